/**
 * The option table, keyed by the value each flag parses to (as vitest's CLI options are keyed
 * by its config type): `{ maxTokens: { type: 'integer', max: … } }` is the flag
 * `--max-tokens N`, and `FlagValues` of a table is the type of its parsed options, so a
 * command reads `args.options.maxTokens` as a `number | undefined` without a cast. Bounds of a
 * numeric flag live here, in its entry, and nowhere else: the parser checks them, help shows
 * the entry, and the config file reads the same entry's bounds.
 *
 * @module
 */

/** What each option type parses to and how it is written. */
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

interface OptionCommon {
  description: string;
  /** The flag's name when it is not the key in kebab-case (`fail429` is `--fail-429`). */
  flag?: string;
  /** One-letter alias without dash. */
  short?: string;
  /** Help section, e.g. "Target", "Load", "Workload", "Output". */
  group?: string;
  /** Placeholder in help: "--url URL". */
  valueName?: string;
}

/** Free text, or one of `choices`. */
export interface StringOption<V extends string = string> extends OptionCommon {
  type: 'string';
  choices?: readonly V[];
  /** Applied by the parser when the option is absent; shown in help. */
  default?: V;
  repeatable?: false;
}

/** Text kept whole at every occurrence (commas included), in a string[]. */
export interface RepeatableOption extends OptionCommon {
  type: 'string';
  repeatable: true;
  default?: readonly string[];
}

/**
 * The accepted range of a number (inclusive `min`/`max`, exclusive `above`/`below`);
 * duration flags are in milliseconds. A value outside is a usage error naming the range.
 */
export interface Bounds {
  min?: number;
  max?: number;
  /** Exclusive lower bound: the value must be greater. */
  above?: number;
  /** Exclusive upper bound: the value must be smaller. */
  below?: number;
  /** Why the bound is there, for the hint. */
  why?: string;
  /** The range in words where "at least A and at most B" would not say it as the flag's users know it. */
  says?: string;
}

/** A number, or a whole number ≥ 0. */
export interface NumberOption extends OptionCommon, Bounds {
  type: 'number' | 'integer';
  default?: number;
  /** 'number' only: `inf` is accepted and means Infinity (e.g. --rate inf: all at once). */
  allowInfinity?: boolean;
}

/** A duration, parsed to milliseconds (bounds in milliseconds too). */
export interface DurationOption extends OptionCommon, Bounds {
  type: 'duration';
  /** As the flag is written ("5m"); the parser turns it into milliseconds like a given value. */
  default?: string;
}

/** A flag; `--no-NAME` sets it false. */
export interface BooleanOption extends OptionCommon {
  type: 'boolean';
  default?: boolean;
}

/** Repeatable or comma-separated items, each one of `choices` when given. */
export interface ListOption<V extends string = string> extends OptionCommon {
  type: 'list';
  choices?: readonly V[];
  default?: readonly V[];
}

/** One entry of an option table. */
export type OptionDef =
  | StringOption
  | RepeatableOption
  | NumberOption
  | DurationOption
  | BooleanOption
  | ListOption;

/** Options by the camelCase key of their parsed value; the flag is its kebab-case form (`maxTokens` → `--max-tokens`). */
export type OptionTable = Readonly<Record<string, OptionDef>>;

/** The value one entry parses to. */
export type ValueOf<D> = D extends { type: 'boolean' }
  ? boolean
  : D extends { type: 'number' | 'integer' | 'duration' }
    ? number
    : D extends { type: 'list' }
      ? D extends { choices: readonly (infer V)[] }
        ? V[]
        : string[]
      : D extends { repeatable: true }
        ? string[]
        : D extends { choices: readonly (infer V)[] }
          ? V
          : string;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The parsed options of a table: every key typed by its entry, present when the entry has a
 * default, else optional.
 *
 * @example
 * type Run = FlagValues<{ api: { type: 'string'; choices: ['chat', 'completions']; default: 'chat'; description: '' } }>;
 * // { api: 'chat' | 'completions' }
 */
export type FlagValues<T extends OptionTable> = Simplify<
  {
    -readonly [K in keyof T as T[K] extends { default: unknown } ? K : never]: ValueOf<T[K]>;
  } & {
    -readonly [K in keyof T as T[K] extends { default: unknown } ? never : K]?: ValueOf<T[K]>;
  }
>;

/**
 * Declares an option table, keeping each entry's literal type (choices, defaults) so that
 * `FlagValues` of it is exact.
 */
export function defineOptions<const T extends OptionTable>(table: T): T {
  return table;
}

/** A table without some of its options. */
export function omitOptions<T extends OptionTable, K extends keyof T & string>(
  table: T,
  keys: readonly K[],
): Omit<T, K> {
  const out: Record<string, OptionDef> = { ...table };
  for (const k of keys) delete out[k];
  return out as Omit<T, K>;
}

/** A table without the options another table also has. */
export function omitOptionsOf<T extends OptionTable, O extends OptionTable>(
  table: T,
  other: O,
): Omit<T, keyof O> {
  const out: Record<string, OptionDef> = { ...table };
  for (const k of Object.keys(other)) delete out[k];
  return out as Omit<T, keyof O>;
}

/** Some options of a table. */
export function pickOptions<T extends OptionTable, K extends keyof T & string>(
  table: T,
  keys: readonly K[],
): Pick<T, K> {
  const out: Record<string, OptionDef> = {};
  for (const k of keys) out[k] = table[k]!;
  return out as Pick<T, K>;
}

/** Every entry of a table with a change that keeps its type (another group or description). */
export function regroupOptions<T extends OptionTable>(
  table: T,
  change: (def: OptionDef, key: string) => Partial<Pick<OptionDef, 'group' | 'description'>>,
): T {
  const out: Record<string, OptionDef> = {};
  for (const [k, def] of Object.entries(table)) out[k] = { ...def, ...change(def, k) };
  return out as T;
}

/** "maxTokens" → "max-tokens": the flag of a key. */
export function flagName(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** One option as the parser, help and docs read it: its entry with the flag name and value key. */
export interface OptionSpec extends OptionCommon, Bounds {
  /** Long name without dashes, kebab-case: "max-tokens". */
  name: string;
  /** The parsed value's key, camelCase: "maxTokens". */
  key: string;
  type: OptionType;
  default?: string | number | boolean | readonly string[];
  choices?: readonly string[];
  repeatable?: boolean;
  allowInfinity?: boolean;
}

const listed = new WeakMap<OptionTable, OptionSpec[]>();

/** A table's options in order, each with its flag name and key. */
export function optionList(table: OptionTable): OptionSpec[] {
  let list = listed.get(table);
  if (!list) {
    list = Object.entries(table).map(([key, def]) => ({ ...def, key, name: def.flag ?? flagName(key) }));
    listed.set(table, list);
  }
  return list;
}
