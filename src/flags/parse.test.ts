import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { parseArgv } from './parse.js';
import type { CommandSpec } from './spec.js';

const noop = async () => 0 as const;

const spec: CommandSpec = {
  name: 'run',
  summary: 'test spec',
  run: noop,
  options: {
    url: { type: 'string', description: '' },
    api: { type: 'string', choices: ['chat', 'completions'], default: 'chat', description: '' },
    concurrency: { short: 'c', type: 'integer', description: '' },
    temperature: { type: 'number', default: 0, description: '' },
    duration: { short: 'd', type: 'duration', description: '' },
    ignoreEos: { type: 'boolean', description: '' },
    serverMetrics: { type: 'boolean', default: true, description: '' },
    label: { type: 'list', description: '' },
    metric: { type: 'list', choices: ['ttft', 'tpot'], description: '' },
  },
};

const withPositionals: CommandSpec = {
  name: 'compare',
  summary: '',
  run: noop,
  options: {},
  positionals: [
    { name: 'base', description: 'baseline run', required: true },
    { name: 'candidates', description: 'candidate runs', variadic: true },
  ],
};

const parent: CommandSpec = {
  name: 'adr',
  summary: '',
  run: noop,
  options: {},
  subcommands: [
    { name: 'new', summary: '', run: noop, options: { title: { type: 'string', description: '' } } },
    { name: 'lint', summary: '', run: noop, options: {}, positionals: [{ name: 'file', description: '' }] },
  ],
};

describe('parseArgv values', () => {
  const cases: Array<[string, string[], Record<string, unknown>]> = [
    ['defaults only', [], { api: 'chat', temperature: 0, serverMetrics: true }],
    ['--name value', ['--url', 'http://h:8000'], { url: 'http://h:8000' }],
    ['--name=value', ['--url=http://h:8000/a=b'], { url: 'http://h:8000/a=b' }],
    ['short alias', ['-c', '16'], { concurrency: 16 }],
    ['short alias with =', ['-c=4'], { concurrency: 4 }],
    ['negative number value', ['--temperature', '-0.5'], { temperature: -0.5 }],
    ['float number', ['--temperature=0.7'], { temperature: 0.7 }],
    ['duration seconds', ['--duration', '10s'], { duration: 10_000 }],
    ['duration minutes', ['-d', '1.5m'], { duration: 90_000 }],
    ['duration zero needs no unit', ['--duration', '0'], { duration: 0 }],
    ['duration ms unit', ['--duration', '500ms'], { duration: 500 }],
    ['duration hours', ['--duration', '2h'], { duration: 7_200_000 }],
    ['duration sum', ['--duration', '1m30s'], { duration: 90_000 }],
    ['boolean flag', ['--ignore-eos'], { ignoreEos: true }],
    ['boolean =false', ['--ignore-eos=false'], { ignoreEos: false }],
    ['--no- boolean', ['--no-server-metrics'], { serverMetrics: false }],
    ['choice', ['--api', 'completions'], { api: 'completions' }],
    ['repeated list', ['--label', 'a=1', '--label', 'b=2'], { label: ['a=1', 'b=2'] }],
    ['comma list', ['--label', 'a=1,b=2'], { label: ['a=1', 'b=2'] }],
    ['list choices', ['--metric', 'ttft,tpot'], { metric: ['ttft', 'tpot'] }],
    ['last scalar wins', ['-c', '1', '-c', '2'], { concurrency: 2 }],
  ];
  it.each(cases)('%s', (_name, argv, expected) => {
    const parsed = parseArgv(spec, argv);
    for (const [k, v] of Object.entries(expected)) expect(parsed.options[k]).toEqual(v);
  });

  it('records only the options the user gave, not defaults', () => {
    const parsed = parseArgv(spec, ['--url', 'x', '--no-server-metrics']);
    expect([...parsed.given].sort()).toEqual(['serverMetrics', 'url']);
    expect(parsed.options.api).toBe('chat');
    expect(parsed.options.concurrency).toBeUndefined();
  });

  it('keeps positionals and everything after --', () => {
    const parsed = parseArgv(withPositionals, ['a', 'b', '--', '--not-a-flag']);
    expect(parsed.positionals).toEqual(['a', 'b', '--not-a-flag']);
  });

  it('does not share the default list between parses', () => {
    const s: CommandSpec = {
      ...spec,
      options: { x: { type: 'list', default: ['a'], description: '' } },
    };
    const first = parseArgv(s, []);
    (first.options.x as string[]).push('mutated');
    expect(parseArgv(s, []).options.x).toEqual(['a']);
  });
});

function usageError(fn: () => unknown): GoodputError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GoodputError);
    expect((e as GoodputError).code).toBe('E_USAGE');
    return e as GoodputError;
  }
  throw new Error('expected a usage error');
}

describe('parseArgv errors', () => {
  const cases: Array<[string, string[], RegExp, RegExp]> = [
    [
      'typo suggests the flag',
      ['--concurency', '8'],
      /unknown option --concurency/,
      /did you mean --concurrency\?/,
    ],
    ['typo with =', ['--temprature=1'], /unknown option --temprature/, /--temperature/],
    ['negated typo', ['--no-server-metric'], /unknown option/, /--no-server-metrics/],
    ['far-off flag lists help', ['--zzzzzzzz'], /unknown option --zzzzzzzz/, /--help/],
    ['bad integer', ['-c', 'eight'], /--concurrency expects a whole number/, /--concurrency/],
    ['negative integer', ['--concurrency=-3'], /--concurrency expects a whole number/, /--concurrency/],
    ['fraction for integer', ['--concurrency', '1.5'], /--concurrency expects a whole number/, /e\.g\. 8/],
    ['bad number', ['--temperature', 'hot'], /--temperature expects a number/, /--temperature/],
    ['bad duration unit', ['--duration', '10 parsecs'], /--duration: unknown unit 'parsecs'/, /60s/],
    ['negative duration', ['-d', '-5s'], /--duration/, /500ms/],
    ['bare duration', ['--duration', '5'], /--duration: '5' has no unit/, /^did you mean 5s\?/],
    ['bad choice', ['--api', 'responses'], /--api expects one of chat, completions, got 'responses'/, /chat/],
    ['bad list choice', ['--metric', 'ttft,itl'], /--metric expects one of ttft, tpot/, /ttft/],
    ['missing value at end', ['--url'], /--url needs a value/, /--url/],
    ['missing value before flag', ['--url', '--api', 'chat'], /--url needs a value/, /--url/],
    ['value on --no-', ['--no-server-metrics=1'], /takes no value/, /--no-server-metrics/],
    ['bad boolean', ['--ignore-eos=maybe'], /--ignore-eos expects true or false/, /--no-ignore-eos/],
    ['stray positional', ['extra'], /unexpected argument 'extra'/, /takes only options/],
  ];
  it.each(cases)('%s', (_name, argv, message, hint) => {
    const e = usageError(() => parseArgv(spec, argv));
    expect(e.message).toMatch(message);
    expect(e.hint).toMatch(hint);
  });

  it('names a missing required positional', () => {
    const e = usageError(() => parseArgv(withPositionals, []));
    expect(e.message).toMatch(/needs BASE/);
  });
});

describe('parseArgv subcommands', () => {
  it('picks the subcommand and parses its options', () => {
    const parsed = parseArgv(parent, ['new', '--title', 'KV budget']);
    expect(parsed.subcommand).toBe('new');
    expect(parsed.options.title).toBe('KV budget');
  });
  it('suggests a close subcommand', () => {
    const e = usageError(() => parseArgv(parent, ['lnt']));
    expect(e.hint).toMatch(/goodput adr lint/);
  });
  it('requires a subcommand', () => {
    expect(usageError(() => parseArgv(parent, [])).message).toMatch(/needs a subcommand: new, lint/);
  });
  it('reports unknown options against the subcommand', () => {
    expect(usageError(() => parseArgv(parent, ['new', '--titel', 'x'])).hint).toMatch(/--title/);
  });
  it('passes --help through', () => {
    expect(parseArgv(parent, ['--help']).options.help).toBe(true);
    expect(parseArgv(parent, ['lint', '-h']).options.help).toBe(true);
  });
  it('runs a command that works on its own too when no subcommand is named (sim, sim calibrate)', () => {
    const own = {
      ...parent,
      runsWithoutSubcommand: true,
      options: { port: { type: 'integer' as const, description: '' } },
    };
    const alone = parseArgv(own, ['--port', '0']);
    expect(alone.subcommand).toBeUndefined();
    expect(alone.options.port).toBe(0);
    expect(parseArgv(own, []).subcommand).toBeUndefined();
    expect(parseArgv(own, ['new', '--title', 'x']).subcommand).toBe('new');
    // A word that names no subcommand is still a typo, not a positional of the command.
    expect(usageError(() => parseArgv(own, ['lnt'])).hint).toMatch(/goodput adr lint/);
  });
});
