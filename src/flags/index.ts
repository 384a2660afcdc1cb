/**
 * Flags: the typed option table of a command (CommandSpec), the pure argv parser, the
 * option groups shared by every command that measures an endpoint, and
 * resolveBenchmarkConfig, which turns those flags into a BenchmarkConfig. Command modules
 * (`<module>/command.ts`) import this, never `cli/`; library functions take typed options
 * and never see parsed flags.
 *
 * @module
 */

export { chosenFormat } from './format.js';
export {
  BENCHMARK_OPTIONS,
  FORCE_OPTION,
  LOAD_OPTIONS,
  OTLP_OPTIONS,
  OUTPUT_OPTIONS,
  REASONING_OPTIONS,
  SHARD_OPTIONS,
  SPECULATIVE_CONFIG_OPTION,
  TARGET_OPTIONS,
  TRACE_OPTIONS,
  WORKLOAD_OPTIONS,
} from './options.js';
export { camelCase, parseArgv } from './parse.js';
export { LOAD_FLAG_KEYS, resolveBenchmarkConfig } from './resolve.js';
export {
  BUILTIN_OPTIONS,
  type CommandContext,
  type CommandEntry,
  type CommandSpec,
  type LazyCommand,
  type OptionSpec,
  type OptionType,
  type ParsedArgs,
  type PositionalSpec,
} from './spec.js';
export { flagReplacedByTrace, parseTraceColumns } from './trace.js';
export { convertOptionValue, EXPECTED_FORM } from './values.js';
