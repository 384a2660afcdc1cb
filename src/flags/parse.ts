/**
 * The pure argv parser: a CommandSpec's option table in, typed ParsedArgs out. No I/O, no
 * process access, so it is table-tested directly.
 *
 * Accepted forms: `--name value`, `--name=value`, `-s value`, `-s=value`, `--flag`,
 * `--no-flag`, `--flag=false`, repeated or comma-separated lists, `--` to end options.
 * Unknown flags and bad values throw GoodputError E_USAGE naming the flag, with a
 * "did you mean" hint found by edit distance.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import { closestName } from '../util/index.js';
import { type FlagValues, type OptionSpec, type OptionTable, optionList } from './options/index.js';
import { type AnyCommandSpec, BUILTIN_OPTIONS, type CommandSpec, type ParsedArgs } from './spec.js';
import { convertOptionValue, EXPECTED_FORM } from './values.js';
import { readForeignFlag } from './vllm-flags.js';

/** "max-tokens" → "maxTokens". */
export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function unknownOption(flag: string, spec: AnyCommandSpec, options: OptionSpec[]): GoodputError {
  const names = options.flatMap((o) => (o.type === 'boolean' ? [o.name, `no-${o.name}`] : [o.name]));
  const bare = flag.replace(/^-+/, '').split('=')[0]!;
  const suggestion = bare.length > 1 ? closestName(bare, names) : undefined;
  const hint = suggestion
    ? `did you mean --${suggestion}?`
    : `run goodput ${spec.name} --help to list its options`;
  return new GoodputError('E_USAGE', `unknown option ${flag.split('=')[0]} for goodput ${spec.name}`, hint);
}

function missingValue(opt: OptionSpec): GoodputError {
  const form = opt.valueName ?? EXPECTED_FORM[opt.type];
  return new GoodputError(
    'E_USAGE',
    `--${opt.name} needs a value (${form})`,
    `write --${opt.name} ${opt.valueName ?? 'VALUE'} or --${opt.name}=${opt.valueName ?? 'VALUE'}`,
  );
}

/**
 * Parses argv (without node and the script, and without the command name) against a
 * command's option table. For a spec with subcommands, the first argument picks the
 * subcommand and the rest is parsed against its table; `subcommand` names it.
 *
 * @example
 * parseArgv(runSpec, ['--concurrency', '8', '--no-ignore-eos']).options.concurrency // 8
 */
export function parseArgv<T extends OptionTable>(
  spec: CommandSpec<T>,
  argv: readonly string[],
): ParsedArgs<FlagValues<T>> {
  // The table drives the parse, so its values are those its FlagValues type says: the one place
  // that type is stated rather than derived.
  return parseTable(spec as AnyCommandSpec, argv) as ParsedArgs<FlagValues<T>>;
}

/** parseArgv for a command whose table is not known where it is parsed (the values untyped). */
export function parseTable(spec: AnyCommandSpec, argv: readonly string[]): ParsedArgs {
  if (spec.subcommands && spec.subcommands.length > 0) return parseSubcommand(spec, argv);
  const own = optionList(spec.options);
  const table = [...own, ...BUILTIN_OPTIONS.filter((b) => !own.some((o) => o.name === b.name))];
  const parsed = readOptions(spec, table, argv);
  applyDefaults(table, parsed.given, parsed.options);
  checkPositionals(spec, parsed.positionals, parsed.options.help === true);
  return parsed;
}

/** A command with subcommands: the first argument picks one, the rest is parsed against its table. */
function parseSubcommand(spec: AnyCommandSpec, argv: readonly string[]): ParsedArgs {
  const subcommands = spec.subcommands!;
  const first = argv[0];
  // A command that runs on its own too (`goodput sim --port 0` beside `goodput sim calibrate`).
  if (spec.runsWithoutSubcommand && (first === undefined || first.startsWith('-')))
    return parseTable({ ...spec, subcommands: undefined }, argv);
  if (first === undefined || first.startsWith('-')) {
    if (first === '--help' || first === '-h') {
      return { options: { help: true }, positionals: [], given: new Set(['help']) };
    }
    throw new GoodputError(
      'E_USAGE',
      `goodput ${spec.name} needs a subcommand: ${subcommands.map((s) => s.name).join(', ')}`,
      `run goodput ${spec.name} --help`,
    );
  }
  const sub = subcommands.find((s) => s.name === first);
  if (sub && 'load' in sub) {
    throw new Error(`subcommand ${spec.name} ${sub.name} is not loaded: the dispatcher loads it first`);
  }
  if (!sub) {
    const guess = closestName(
      first,
      subcommands.map((s) => s.name),
    );
    throw new GoodputError(
      'E_USAGE',
      `unknown subcommand '${first}' for goodput ${spec.name}`,
      guess ? `did you mean goodput ${spec.name} ${guess}?` : `run goodput ${spec.name} --help`,
    );
  }
  const parsed = parseTable({ ...sub, name: `${spec.name} ${sub.name}` }, argv.slice(1));
  return { ...parsed, subcommand: parsed.subcommand ? `${sub.name} ${parsed.subcommand}` : sub.name };
}

type OptionValues = Record<string, string | number | boolean | string[]>;

/** The options and positionals of argv, in order; unknown flags and missing values refused. */
function readOptions(
  spec: AnyCommandSpec,
  table: OptionSpec[],
  argv: readonly string[],
): { options: OptionValues; positionals: string[]; given: Set<string> } {
  const byName = new Map(table.map((o) => [o.name, o]));
  const byShort = new Map(table.filter((o) => o.short).map((o) => [o.short!, o]));
  const options: OptionValues = {};
  const given = new Set<string>();
  const positionals: string[] = [];

  const assign = (opt: OptionSpec, raw: string): void => {
    const key = opt.key;
    const value = convertOptionValue(opt, raw);
    if (opt.type === 'list' || opt.repeatable) {
      const before = given.has(key) ? options[key] : [];
      options[key] = [
        ...(Array.isArray(before) ? before : []),
        ...(Array.isArray(value) ? value : [String(value)]),
      ];
    } else {
      options[key] = value;
    }
    given.add(key);
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-' || /^-\d/.test(arg)) {
      positionals.push(arg);
      continue;
    }
    const long = arg.startsWith('--');
    const body = arg.slice(long ? 2 : 1);
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    const inline = eq >= 0 ? body.slice(eq + 1) : undefined;

    let opt = long ? byName.get(name) : byShort.get(name);
    let negated = false;
    if (!opt && long && name.startsWith('no-')) {
      const base = byName.get(name.slice(3));
      if (base?.type === 'boolean') {
        opt = base;
        negated = true;
      }
    }
    if (!opt) {
      // Another tool's flag (vllm bench serve): taken as ours where it means the same, else refused with ours.
      const foreign = readForeignFlag(arg, argv.slice(i + 1), byName);
      if (!foreign) throw unknownOption(arg, spec, table);
      if (foreign.option) assign(foreign.option, foreign.value!);
      i += foreign.consumed;
      continue;
    }

    if (opt.type === 'boolean') {
      if (negated) {
        if (inline !== undefined) {
          throw new GoodputError(
            'E_USAGE',
            `--no-${opt.name} takes no value`,
            `write --no-${opt.name} alone`,
          );
        }
        options[opt.key] = false;
        given.add(opt.key);
      } else {
        assign(opt, inline ?? 'true');
      }
      continue;
    }
    if (inline !== undefined) {
      assign(opt, inline);
      continue;
    }
    const next = argv[i + 1];
    if (next === undefined || (next.startsWith('--') && next.length > 2)) throw missingValue(opt);
    assign(opt, next);
    i++;
  }

  return { options, positionals, given };
}

/** Every option not given takes its default. */
function applyDefaults(table: OptionSpec[], given: Set<string>, options: OptionValues): void {
  for (const opt of table) {
    const key = opt.key;
    if (!given.has(key) && opt.default !== undefined) {
      // A duration's default is written as the flag is ("5m") and parsed like a given value.
      options[key] =
        typeof opt.default === 'string' && opt.type === 'duration'
          ? convertOptionValue(opt, opt.default)
          : Array.isArray(opt.default)
            ? [...opt.default]
            : (opt.default as string | number | boolean);
    }
  }
}

function checkPositionals(spec: AnyCommandSpec, positionals: string[], help: boolean): void {
  if (help) return;
  const declared = spec.positionals ?? [];
  const required = declared.filter((p) => p.required).length;
  if (positionals.length < required) {
    const missing = declared.filter((p) => p.required)[positionals.length]!;
    throw new GoodputError(
      'E_USAGE',
      `goodput ${spec.name} needs ${missing.name.toUpperCase()} (${missing.description})`,
      `run goodput ${spec.name} --help for its usage`,
    );
  }
  const variadic = declared.some((p) => p.variadic);
  if (!variadic && positionals.length > declared.length) {
    const extra = positionals[declared.length]!;
    throw new GoodputError(
      'E_USAGE',
      `unexpected argument '${extra}' for goodput ${spec.name}`,
      declared.length === 0
        ? `goodput ${spec.name} takes only options; did you forget a -- before a flag value?`
        : `run goodput ${spec.name} --help for its usage`,
    );
  }
}
