/**
 * The shape of a command and its options: a typed table that drives parsing, help and
 * docs (as vitest's cli-config does). Commands live beside the module they drive
 * (`<module>/command.ts`) and are listed in src/cli/commands/index.ts.
 *
 * @module
 */

import type { ExitCode } from '../errors.js';
import type { FlagValues, OptionSpec, OptionTable } from './options/index.js';

export type { OptionSpec, OptionType } from './options/index.js';

export interface PositionalSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
}

/** The parsed options of a table that is not known here: every value of any option type. */
export type AnyFlagValues = Record<string, string | number | boolean | string[] | undefined>;

export interface ParsedArgs<V = AnyFlagValues> {
  /** camelCase option name → value, typed by the command's option table (FlagValues). Absent options without default are undefined. */
  options: V & { help?: boolean };
  positionals: string[];
  /** Options the user actually gave (camelCase), to tell flag values from defaults when merging with config files. */
  given: Set<string>;
  /** For a command with subcommands: the one chosen (e.g. "new" for `goodput adr new`). */
  subcommand?: string;
}

/** What a command sees of the outside world: injected, so commands run in-process in tests. */
export interface CommandContext<V = AnyFlagValues> {
  args: ParsedArgs<V>;
  /** Data goes here (JSON, tables). */
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  /** Progress, warnings and errors go here. */
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
  /** Aborted on Ctrl-C (SIGINT) or SIGTERM: stop the load, write what was measured. */
  signal: AbortSignal;
  /** The whole command line (`goodput run …`), for the summary's record of what ran (redacted there). */
  argv?: readonly string[];
}

export interface CommandSpec<T extends OptionTable = OptionTable> {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Longer help text shown above the options. */
  description?: string;
  /** The option table, keyed by the parsed values' keys (`maxTokens` is `--max-tokens`). */
  options: T;
  positionals?: PositionalSpec[];
  /**
   * Sub-commands (e.g. `adr new`, `adr lint`): when present, the first positional picks one. A
   * lazy entry is loaded by the dispatcher when it is picked (`sim calibrate`).
   */
  subcommands?: CommandEntry[];
  /** With subcommands: the command also runs itself when its first argument is an option or absent (`goodput sim`). */
  runsWithoutSubcommand?: boolean;
  run(ctx: CommandContext<FlagValues<T>>): Promise<ExitCode>;
}

/** A command of any table, as lists of commands hold them. */
// biome-ignore lint/suspicious/noExplicitAny: each command has its own table
export type AnyCommandSpec = CommandSpec<any>;

/**
 * Declares a command, its parsed options typed by its table: `run` reads
 * `ctx.args.options.concurrency` as `number | undefined` when the table has `concurrency`.
 */
export function defineCommand<const T extends OptionTable>(spec: CommandSpec<T>): CommandSpec<T> {
  return spec;
}

/** Built-in flags every command accepts; the dispatcher handles them before the command runs. */
export const BUILTIN_OPTIONS: OptionSpec[] = [
  { name: 'help', key: 'help', short: 'h', type: 'boolean', description: 'Show this help and exit' },
];

/**
 * A command as the binary lists it: name and summary at hand, the spec (and everything it
 * imports) loaded only when the command is run or its help is asked for.
 */
export interface LazyCommand {
  name: string;
  summary: string;
  load(): Promise<AnyCommandSpec>;
}

/** What the dispatcher accepts: a loaded spec, or a lazy entry. */
export type CommandEntry = AnyCommandSpec | LazyCommand;
