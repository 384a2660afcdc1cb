/**
 * The shape of a command and its options: a typed table that drives parsing, help and
 * docs (as vitest's cli-config does). Commands live beside the module they drive
 * (`<module>/command.ts`) and are listed in src/cli/commands/index.ts.
 *
 * @module
 */

import type { ExitCode } from '../errors.js';

export type OptionType =
  /** free text */
  | 'string'
  /** a finite number */
  | 'number'
  /** a whole number ≥ 0 */
  | 'integer'
  /** a flag; `--no-NAME` sets it false */
  | 'boolean'
  /** "500ms", "10s", "5m", "2h", "30d", "1m30s" → milliseconds; a unit is required (a bare number is refused) */
  | 'duration'
  /** repeatable, or comma-separated: collected into string[] */
  | 'list';

export interface OptionSpec {
  /** Long name without dashes, kebab-case: "max-tokens". Parsed value key is camelCase: "maxTokens". */
  name: string;
  type: OptionType;
  description: string;
  /** Shown in help; applied by the parser when the option is absent. */
  default?: string | number | boolean | string[];
  /** One-letter alias without dash. */
  short?: string;
  /** Allowed values (for 'string' and 'list'). */
  choices?: readonly string[];
  /** Help section, e.g. "Target", "Load", "Workload", "Output". */
  group?: string;
  /** Placeholder in help: "--url URL". */
  valueName?: string;
  /** 'string' only: repeatable, every occurrence kept whole (commas included) in a string[]. */
  repeatable?: boolean;
  /** 'number' only: `inf` is accepted and means Infinity (e.g. --rate inf: all at once). */
  allowInfinity?: boolean;
}

export interface PositionalSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
}

export interface ParsedArgs {
  /** camelCase option name → value (string, number, boolean, string[]). Absent options without default are undefined. */
  options: Record<string, unknown>;
  positionals: string[];
  /** Options the user actually gave (camelCase), to tell flag values from defaults when merging with config files. */
  given: Set<string>;
  /** For a command with subcommands: the one chosen (e.g. "new" for `goodput adr new`). */
  subcommand?: string;
}

/** What a command sees of the outside world: injected, so commands run in-process in tests. */
export interface CommandContext {
  args: ParsedArgs;
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

export interface CommandSpec {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Longer help text shown above the options. */
  description?: string;
  options: OptionSpec[];
  positionals?: PositionalSpec[];
  /** Sub-commands (e.g. `adr new`, `adr lint`): when present, the first positional picks one. */
  subcommands?: CommandSpec[];
  /** With subcommands: the command also runs itself when its first argument is an option or absent (`goodput sim`). */
  runsWithoutSubcommand?: boolean;
  run(ctx: CommandContext): Promise<ExitCode>;
}

/** Built-in flags every command accepts; the dispatcher handles them before the command runs. */
export const BUILTIN_OPTIONS: OptionSpec[] = [
  { name: 'help', short: 'h', type: 'boolean', description: 'Show this help and exit' },
];

/**
 * A command as the binary lists it: name and summary at hand, the spec (and everything it
 * imports) loaded only when the command is run or its help is asked for.
 */
export interface LazyCommand {
  name: string;
  summary: string;
  load(): Promise<CommandSpec>;
}

/** What the dispatcher accepts: a loaded spec, or a lazy entry. */
export type CommandEntry = CommandSpec | LazyCommand;
