/**
 * The option table of every command that measures an endpoint (run, gate, sweep, watch,
 * doctor), by group: target, workload, trace, load, output and sharding flags. Each group is
 * keyed by the camelCase key of its parsed value, with bounds in the entries; commands spread
 * the groups they need into their CommandSpec.options, and `FlagValues` of the table is the
 * type of the parsed options. Keep names and meanings stable: other commands and the README
 * build on them.
 *
 * Pure data and the table's types: the config file reads the bounds of the flags it shares
 * (`--timeout`, `--max-retries`) from here.
 *
 * @module
 */

import { AGENT_OPTIONS } from './agents.js';
import { LOAD_OPTIONS, WORKERS_OPTION } from './load.js';
import { OUTPUT_OPTIONS, type SHARD_OPTIONS } from './output.js';
import { defineOptions, type FlagValues } from './table.js';
import { TARGET_OPTIONS } from './target.js';
import { TRACE_OPTIONS } from './trace.js';
import { WORKLOAD_OPTIONS } from './workload.js';

export { boundsProblem, DAY_MS, describeBounds, HOUR_MS, PORT_BOUNDS } from './bounds.js';
export {
  CONCURRENCY_BOUNDS,
  LOAD_OPTIONS,
  MAX_FLAG_CONCURRENCY,
  WORKERS_OPTION,
} from './load.js';
export { FORCE_OPTION, OTLP_OPTIONS, OUTPUT_OPTIONS, SHARD_OPTIONS } from './output.js';
export {
  type BooleanOption,
  type Bounds,
  type DurationOption,
  defineOptions,
  type FlagValues,
  flagName,
  type ListOption,
  type NumberOption,
  type OptionDef,
  type OptionSpec,
  type OptionTable,
  type OptionType,
  omitOptions,
  omitOptionsOf,
  optionList,
  pickOptions,
  type RepeatableOption,
  regroupOptions,
  type StringOption,
  type ValueOf,
} from './table.js';
export {
  REASONING_OPTIONS,
  SCHEDULING_POLICY_OPTION,
  SPECULATIVE_CONFIG_OPTION,
  TARGET_OPTIONS,
} from './target.js';
export { TRACE_OPTIONS } from './trace.js';
export { TOKEN_BOUNDS, WORKLOAD_OPTIONS } from './workload.js';

/** Every flag a benchmark-running command accepts. */
export const BENCHMARK_OPTIONS = defineOptions({
  ...TARGET_OPTIONS,
  ...WORKLOAD_OPTIONS,
  ...AGENT_OPTIONS,
  ...TRACE_OPTIONS,
  ...LOAD_OPTIONS,
  workers: WORKERS_OPTION,
  ...OUTPUT_OPTIONS,
});

/**
 * What resolveBenchmarkConfig reads of a command's parsed options: the benchmark and shard
 * flags, each possibly absent (doctor, watch and sweep take a part of the table).
 */
export type BenchmarkFlags = Partial<FlagValues<typeof BENCHMARK_OPTIONS> & FlagValues<typeof SHARD_OPTIONS>>;
