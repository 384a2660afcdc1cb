import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { BENCHMARK_OPTIONS, optionList } from './options/index.js';
import { parseArgv } from './parse.js';
import type { CommandSpec } from './spec.js';
import { VLLM_FLAGS } from './vllm-flags.js';

const run: CommandSpec = { name: 'run', summary: '', options: BENCHMARK_OPTIONS, run: async () => 0 };
const report: CommandSpec = {
  name: 'report',
  summary: '',
  options: { out: { type: 'string', description: '' } },
  run: async () => 0,
};

function refusal(spec: CommandSpec, argv: string[]): GoodputError {
  try {
    parseArgv(spec, argv);
  } catch (e) {
    expect(e).toBeInstanceOf(GoodputError);
    return e as GoodputError;
  }
  throw new Error(`expected ${argv.join(' ')} to be refused`);
}

describe('vllm bench serve flags taken as ours', () => {
  it.each<[string[], string[]]>([
    [
      ['--request-rate', '4'],
      ['--rate', '4'],
    ],
    [
      ['--request-rate', 'inf'],
      ['--rate', 'inf'],
    ],
    [
      ['--num-prompts', '200'],
      ['--requests', '200'],
    ],
    [
      ['--random-input-len', '1024'],
      ['--prompt-tokens', '1024'],
    ],
    [
      ['--random-output-len', '64'],
      ['--max-tokens', '64'],
    ],
    [
      ['--base-url', 'http://gpu:8000'],
      ['--url', 'http://gpu:8000'],
    ],
    [
      ['--dataset-path', 'sharegpt.json'],
      ['--dataset', 'sharegpt.json'],
    ],
    [
      ['--endpoint', '/v1/completions'],
      ['--api', 'completions'],
    ],
    [
      ['--endpoint', '/v1/chat/completions'],
      ['--api', 'chat'],
    ],
    [
      ['--backend', 'openai-chat'],
      ['--api', 'chat'],
    ],
    [
      ['--backend', 'vllm'],
      ['--api', 'completions'],
    ],
    [
      ['--goodput', 'ttft:500', 'tpot:50'],
      ['--slo', 'ttft=500,tpot=50'],
    ],
    [
      ['--goodput', 'e2el:5000'],
      ['--slo', 'e2el=5000'],
    ],
    [['--goodput=ttft:300'], ['--slo', 'ttft=300']],
    [
      ['--num_prompts', '7'],
      ['--requests', '7'],
    ],
    [
      ['--save-result', '--num-prompts', '3'],
      ['--requests', '3'],
    ],
    [['--save-detailed', '--dataset-name', 'random'], []],
  ])('%j = %j', (theirs, ours) => {
    const a = parseArgv(run, theirs);
    const b = parseArgv(run, ours);
    expect(a.options).toEqual(b.options);
    expect([...a.given].sort()).toEqual([...b.given].sort());
    expect(a.positionals).toEqual([]);
  });

  it('--goodput takes its KEY:VALUE words and stops at the next flag or other word', () => {
    const a = parseArgv(run, ['--goodput', 'ttft:500', 'tpot:50', '--num-prompts', '10']);
    expect(a.options).toMatchObject({ slo: 'ttft=500,tpot=50', requests: 10 });
    expect(() => parseArgv(run, ['--goodput', 'ttft:500', 'extra'])).toThrow(/unexpected argument 'extra'/);
  });

  it('every accepted flag stands for an option of the benchmark commands', () => {
    const ours = new Set(optionList(BENCHMARK_OPTIONS).map((o) => o.name));
    for (const f of VLLM_FLAGS.filter((f) => f.as !== undefined))
      expect([f.name, ours.has(f.as!)]).toEqual([f.name, true]);
    // and none shadows one of ours
    for (const f of VLLM_FLAGS) expect([f.name, ours.has(f.name)]).toEqual([f.name, false]);
  });
});

describe('vllm bench serve flags that differ: refused with ours', () => {
  it.each<[string[], RegExp, RegExp]>([
    [['--percentile-metrics', 'ttft,tpot'], /--percentile-metrics is vllm bench serve's flag/, /p99\(ttft\)/],
    [['--metric-percentiles', '99'], /--metric-percentiles/, /--threshold/],
    [['--result-dir', 'results'], /--result-dir is vllm bench serve's flag/, /--out DIR/],
    [['--result-filename', 'x.json'], /--result-filename/, /--out DIR/],
    [['--random-range-ratio', '0.5'], /--random-range-ratio/, /--prompt-tokens-range R/],
    [['--host', 'gpu'], /--host/, /--url http:\/\/HOST:PORT/],
    [['--port', '8000'], /--port/, /--url http:\/\/HOST:PORT/],
    [['--endpoint', '/v1/embeddings'], /--endpoint \/v1\/embeddings has no goodput equivalent/, /--api chat/],
    [['--backend', 'tgi'], /--backend tgi/, /--api chat/],
    [['--dataset-name', 'sharegpt'], /--dataset-name sharegpt/, /--dataset FILE/],
    [['--goodput', 'ttft'], /--goodput expects KEY:VALUE/, /--slo ttft=500/],
    [['--num-prompts'], /--num-prompts needs a value/, /--requests N/],
  ])('%j', (argv, message, hint) => {
    const e = refusal(run, argv);
    expect(e.code).toBe('E_USAGE');
    expect(e.message).toMatch(message);
    expect(e.hint).toMatch(hint);
  });

  it('a vLLM flag for an option the command lacks is an unknown option there', () => {
    expect(refusal(report, ['--num-prompts', '5']).message).toMatch(
      /unknown option --num-prompts for goodput report/,
    );
  });

  it('the command’s own option of the same name wins (sim --port is the simulator’s)', () => {
    const sim: CommandSpec = {
      name: 'sim',
      summary: '',
      options: { port: { type: 'integer', description: '' } },
      run: async () => 0,
    };
    expect(parseArgv(sim, ['--port', '8000']).options.port).toBe(8000);
  });
});
