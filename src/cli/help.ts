/**
 * Help text rendered from the option tables: the command list, and one command's usage
 * with its options grouped by section. Returns strings; main prints them.
 *
 * @module
 */

// The spec file and the table's shape alone (types, built-in flags): root help and --version load no parser and no option group.
import { type OptionSpec, optionList } from '../flags/options/table.js';
import { BUILTIN_OPTIONS, type CommandSpec } from '../flags/spec.js';
import { type CommandExample, examplesOf } from './examples.js';

const INDENT = '  ';

/** "--url URL", "--concurrency N", "--[no-]ignore-eos", "-c, --concurrency N". */
export function optionSignature(opt: OptionSpec): string {
  const short = opt.short ? `-${opt.short}, ` : '';
  if (opt.type === 'boolean') {
    return opt.default === true ? `${short}--[no-]${opt.name}` : `${short}--${opt.name}`;
  }
  const placeholder = opt.valueName ?? defaultPlaceholder(opt);
  return `${short}--${opt.name} ${placeholder}`;
}

function defaultPlaceholder(opt: OptionSpec): string {
  if (opt.choices && opt.choices.length <= 4) return opt.choices.join('|');
  switch (opt.type) {
    case 'integer':
    case 'number':
      return 'N';
    case 'duration':
      return 'DURATION';
    case 'list':
      return 'A,B';
    default:
      return 'VALUE';
  }
}

function describe(opt: OptionSpec): string {
  let text = opt.description;
  if (opt.choices && opt.choices.length > 4) text += ` (one of: ${opt.choices.join(', ')})`;
  if (opt.default !== undefined && opt.default !== false) {
    const shown = Array.isArray(opt.default) ? opt.default.join(',') : String(opt.default);
    if (shown !== '') text += ` [default: ${shown}]`;
  }
  return text;
}

/** Options grouped by their `group` (in order of first appearance; ungrouped last as "Options"). */
export function groupOptions(options: readonly OptionSpec[]): Array<[string, OptionSpec[]]> {
  const groups = new Map<string, OptionSpec[]>();
  for (const opt of options) {
    const g = opt.group ?? 'Options';
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(opt);
  }
  const ordered = [...groups.entries()].filter(([g]) => g !== 'Options');
  const ungrouped = groups.get('Options');
  if (ungrouped) ordered.push(['Options', ungrouped]);
  return ordered;
}

function columns(rows: Array<[string, string]>, width = 110, leftWidth?: number): string[] {
  const left = leftWidth ?? Math.min(34, Math.max(...rows.map(([l]) => l.length)) + 2);
  const wrapAt = Math.max(40, width - left - INDENT.length);
  const out: string[] = [];
  for (const [l, r] of rows) {
    const lines = wrap(r, wrapAt);
    if (l.length + 2 > left) {
      out.push(INDENT + l);
      for (const line of lines) out.push(INDENT + ' '.repeat(left) + line);
    } else {
      out.push(INDENT + l.padEnd(left) + (lines[0] ?? ''));
      for (const line of lines.slice(1)) out.push(INDENT + ' '.repeat(left) + line);
    }
  }
  return out;
}

function wrap(text: string, width: number): string[] {
  const words = text.split(/\s+/);
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    if (line.length > 0 && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else {
      line = line.length > 0 ? `${line} ${w}` : w;
    }
  }
  if (line.length > 0) lines.push(line);
  return lines;
}

/** The help of one command: usage line, description, subcommands, options by group. */
export function renderCommandHelp(spec: CommandSpec, prefix = 'goodput'): string {
  const out: string[] = [];
  const positional = (spec.positionals ?? [])
    .map((p) => {
      const n = p.name.toUpperCase() + (p.variadic ? '...' : '');
      return p.required ? n : `[${n}]`;
    })
    .join(' ');
  const sub =
    spec.subcommands && spec.subcommands.length > 0
      ? spec.runsWithoutSubcommand
        ? ' [subcommand]'
        : ' <subcommand>'
      : '';
  out.push(`Usage: ${prefix} ${spec.name}${sub} [options]${positional ? ` ${positional}` : ''}`, '');
  out.push(...wrap(spec.summary, 110));
  // Paragraphs as written, each line wrapped: a long description stays readable in a terminal.
  if (spec.description)
    out.push('', ...spec.description.split('\n').flatMap((l) => (l === '' ? [''] : wrap(l, 110))));
  const path = `${prefix} ${spec.name}`.replace(/^goodput /, '');
  const examples = examplesOf(path);
  if (examples.length > 0) out.push('', 'Examples:', ...renderExamples(examples));
  if (spec.subcommands && spec.subcommands.length > 0) {
    out.push('', 'Subcommands:');
    out.push(...columns(spec.subcommands.map((s) => [s.name, s.summary])));
  }
  if (spec.positionals && spec.positionals.length > 0) {
    out.push('', 'Arguments:');
    out.push(...columns(spec.positionals.map((p) => [p.name.toUpperCase(), p.description])));
  }
  const own = optionList(spec.options);
  const table = [...own, ...BUILTIN_OPTIONS.filter((b) => !own.some((o) => o.name === b.name))];
  // One left column for every group, so that descriptions line up across sections.
  const leftWidth = Math.min(34, Math.max(...table.map((o) => optionSignature(o).length)) + 2);
  for (const [group, opts] of groupOptions(table)) {
    out.push('', `${group}:`);
    out.push(
      ...columns(
        opts.map((o) => [optionSignature(o), describe(o)]),
        110,
        leftWidth,
      ),
    );
  }
  return `${out.join('\n')}\n`;
}

/** A command line cut into what must stay on one line: a quoted word whole, a flag with its value. */
function commandUnits(command: string): string[] {
  const words = command.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? [];
  const units: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const next = words[i + 1];
    if (w.startsWith('-') && w !== '--' && next !== undefined && !next.startsWith('-')) {
      units.push(`${w} ${next}`);
      i++;
    } else units.push(w);
  }
  return units;
}

/**
 * Examples as a shell would take them: `# what it does`, then the command, cut before a flag
 * with ` \` continuations so that no line passes `width`; a blank line between two.
 */
export function renderExamples(examples: readonly CommandExample[], width = 110): string[] {
  const out: string[] = [];
  for (const [i, ex] of examples.entries()) {
    if (i > 0) out.push('');
    out.push(`${INDENT}# ${ex.what}`);
    let line = '';
    for (const unit of commandUnits(ex.command)) {
      if (line !== '' && line.length + 1 + unit.length + 2 > width) {
        out.push(`${line} \\`);
        line = `${INDENT}    ${unit}`;
      } else line = line === '' ? `${INDENT}${unit}` : `${line} ${unit}`;
    }
    out.push(line);
  }
  return out;
}

/** The top-level help: what goodput is and the list of commands. */
export function renderRootHelp(
  commands: ReadonlyArray<Pick<CommandSpec, 'name' | 'summary'>>,
  version: string,
): string {
  const out = [
    `goodput ${version}: measure, compare, gate and watch OpenAI-compatible LLM inference endpoints`,
    '',
    'Usage: goodput <command> [options]',
    '',
    'Commands:',
    ...columns(commands.map((c) => [c.name, c.summary])),
    '',
    'Options:',
    ...columns([
      ['-h, --help', 'Show help (goodput <command> --help for a command)'],
      ['--version', 'Print the version'],
    ]),
    '',
    'With no --url, goodput run measures the embedded simulated engine: try `goodput run`.',
  ];
  return `${out.join('\n')}\n`;
}

/** A Markdown table of options (for the README and docs), one row per flag. */
export function renderOptionsMarkdown(options: readonly OptionSpec[]): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const rows = ['| flag | description | default |', '|---|---|---|'];
  for (const o of options) {
    // A default resolved later (not by the parser) is written "[default: …]" in the description.
    const m = /\s*\[default: (.*)\]$/.exec(o.description);
    const description = m ? o.description.slice(0, m.index) : o.description;
    let def = m?.[1] ?? '';
    if (o.default !== undefined && def === '')
      def = Array.isArray(o.default) ? o.default.join(',') : String(o.default);
    const signature = optionSignature(o);
    const desc =
      o.choices && !signature.includes(o.choices.join('|'))
        ? `${description} (${o.choices.join(', ')})`
        : description;
    rows.push(`| \`${cell(signature)}\` | ${cell(desc)} | ${cell(def)} |`);
  }
  return `${rows.join('\n')}\n`;
}
