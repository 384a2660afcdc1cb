/**
 * Flags: the typed option table of a command (CommandSpec), the pure argv parser, the
 * option groups shared by every command that measures an endpoint, and
 * resolveBenchmarkConfig, which turns those flags into a BenchmarkConfig. Command modules
 * (`<module>/command.ts`) import this, never `cli/`; library functions take typed options
 * and never see parsed flags.
 *
 * @module
 */

import type { BenchmarkConfig } from '../runner/config.js';
import type { BenchmarkFlags } from './options/index.js';
import type { ParsedArgs } from './spec.js';

export { chosenFormat } from './format.js';
export {
  BENCHMARK_OPTIONS,
  type BenchmarkFlags,
  type BooleanOption,
  CONCURRENCY_BOUNDS,
  DAY_MS,
  type DurationOption,
  defineOptions,
  type FlagValues,
  FORCE_OPTION,
  HOUR_MS,
  LOAD_OPTIONS,
  type NumberOption,
  type OptionDef,
  type OptionTable,
  OTLP_OPTIONS,
  OUTPUT_OPTIONS,
  omitOptions,
  omitOptionsOf,
  optionList,
  PORT_BOUNDS,
  pickOptions,
  REASONING_OPTIONS,
  regroupOptions,
  SCHEDULING_POLICY_OPTION,
  SHARD_OPTIONS,
  SPECULATIVE_CONFIG_OPTION,
  type StringOption,
  TARGET_OPTIONS,
  TOKEN_BOUNDS,
  TRACE_OPTIONS,
  WORKERS_OPTION,
  WORKLOAD_OPTIONS,
} from './options/index.js';
export { camelCase, parseArgv, parseTable } from './parse.js';
export {
  type AnyCommandSpec,
  type AnyFlagValues,
  BUILTIN_OPTIONS,
  type CommandContext,
  type CommandEntry,
  type CommandSpec,
  defineCommand,
  type LazyCommand,
  type OptionSpec,
  type OptionType,
  type ParsedArgs,
  type PositionalSpec,
} from './spec.js';
export { flagReplacedByTrace, parseTraceColumns } from './trace.js';
export { convertOptionValue, EXPECTED_FORM } from './values.js';

/**
 * Turns parsed benchmark flags, the environment and the optional config file into a
 * BenchmarkConfig (./resolve.ts). Loaded when called: resolving reaches into the runner and
 * the simulator, which a command that only lists its flags (`goodput sim --help`) or never
 * runs a benchmark (`goodput sim`) must not load.
 */
export async function resolveBenchmarkConfig(
  args: ParsedArgs<BenchmarkFlags>,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<BenchmarkConfig> {
  const { resolveBenchmarkConfig: resolve } = await import('./resolve.js');
  return resolve(args, env, cwd);
}
