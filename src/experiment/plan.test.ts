import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { runOrder } from './order.js';
import { gridPoints, parsePlanText, planExperiment, runFlagsArgv } from './plan.js';
import { splitCommand, substitute } from './template.js';

const plan = (text: string) =>
  planExperiment(parsePlanText(text, 'plan.yaml'), { text, file: '/p/plan.yaml', baseDir: '/p', cwd: '/w' });

function errorOf(fn: () => unknown): GoodputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GoodputError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('serve templates', () => {
  it.each([
    ['vllm serve m --port {port}', ['vllm', 'serve', 'm', '--port', '{port}']],
    [`a "b c" 'd e' f\\ g`, ['a', 'b c', 'd e', 'f g']],
    [`x --json '{"a": 1}'`, ['x', '--json', '{"a": 1}']],
    [`x "say \\"hi\\""`, ['x', 'say "hi"']],
    ['  x   y  ', ['x', 'y']],
  ])('splits %s as a shell would', (text, argv) => {
    expect(splitCommand(text)).toEqual(argv);
  });

  it.each(['a | b', 'a; b', 'a > f', 'echo $HOME', 'a "b'])('refuses %s (no shell runs it)', (text) => {
    expect(errorOf(() => splitCommand(text)).code).toBe('E_CONFIG');
  });

  it('substitutes per element, so a value with spaces stays one argument', () => {
    expect(substitute('--name={n}', { n: 'a b' }, 'f')).toBe('--name=a b');
    expect(substitute('{{port}} {port}', { port: 8 }, 'f')).toBe('{port} 8');
    expect(errorOf(() => substitute('{missing}', {}, 'serve.command[2]')).message).toContain(
      'serve.command[2]',
    );
  });
});

describe('plans', () => {
  it('expands a grid into named configurations after the listed ones, the first the baseline', () => {
    expect(gridPoints({ a: [1, 2], b: [true, false] })).toEqual([
      { a: 1, b: true },
      { a: 1, b: false },
      { a: 2, b: true },
      { a: 2, b: false },
    ]);
    const { spec } = plan(
      'configurations:\n  - params: { max-num-seqs: 64 }\ngrid:\n  max-num-batched-tokens: [1024, 2048]\n',
    );
    expect(spec.configurations.map((c) => c.name)).toEqual(['Baseline', 'Exp-1', 'Exp-2']);
    expect(spec.virtual).toBe(true);
    expect(spec.runs).toBe(3);
    expect(spec.dir).toBe('/w/goodput-experiments/plan');
    const t = spec.configurations[2]!.target;
    expect(t.kind === 'embedded' && t.engineArgs).toEqual(['--max-num-batched-tokens', '2048']);
  });

  it('records flags in vLLM spelling for the embedded engine, booleans as --no-', () => {
    const { spec } = plan('grid:\n  enable-chunked-prefill: [true, false]\n');
    const args = spec.configurations.map((c) => (c.target.kind === 'embedded' ? c.target.engineArgs : []));
    expect(args).toEqual([['--enable-chunked-prefill'], ['--no-enable-chunked-prefill']]);
  });

  it('names the field of a mistake', () => {
    expect(errorOf(() => plan('grid:\n  max-num-batched-token: [1]\n')).message).toContain(
      'grid point 1.params.max-num-batched-token',
    );
    expect(errorOf(() => plan('grid:\n  max-num-batched-token: [1]\n')).hint).toContain(
      'did you mean max-num-batched-tokens',
    );
    expect(errorOf(() => plan('runs: 0\ngrid: { block-size: [16] }\n')).message).toContain('runs');
    expect(
      errorOf(() => plan('configurations:\n  - { url: "http://x" }\ntime: virtual\n')).message,
    ).toContain('time: virtual');
    expect(
      errorOf(() => plan('serve: "s --mnbt {mnbt} --port {port}"\nconfigurations:\n  - params: { x: 1 }\n'))
        .message,
    ).toContain('{mnbt}');
  });

  it('refuses a workload that varies per configuration', () => {
    const e = errorOf(() =>
      plan('configurations:\n  - params: {}\n  - params: {}\n    run: { concurrency: 4 }\n'),
    );
    expect(e.message).toContain('configurations[1].run');
    expect(e.hint).toContain('plan-level run:');
  });

  it('reads run flags as a string, a list or a mapping', () => {
    expect(runFlagsArgv('--concurrency 4 --requests 20')).toEqual(['--concurrency', '4', '--requests', '20']);
    expect(runFlagsArgv(['--concurrency 4', '--ignore-eos'])).toEqual(['--concurrency', '4', '--ignore-eos']);
    expect(
      runFlagsArgv({ concurrency: 4, 'ignore-eos': true, 'server-metrics': false, label: ['a=1', 'b=2'] }),
    ).toEqual([
      '--concurrency',
      '4',
      '--ignore-eos',
      '--no-server-metrics',
      '--label',
      'a=1',
      '--label',
      'b=2',
    ]);
  });

  it('hashes the plan text, so that a changed plan is told apart', () => {
    const a = plan('grid: { block-size: [16, 32] }\n').spec.planSha256;
    const b = plan('grid: { block-size: [16, 64] }\n').spec.planSha256;
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
  });
});

describe('run order', () => {
  it('interleaves configurations: ABC ABC', () => {
    expect(
      runOrder(3, 2, { mode: 'interleaved' }).map((s) => `${'ABC'[s.configuration]}${s.repeat}`),
    ).toEqual(['A0', 'B0', 'C0', 'A1', 'B1', 'C1']);
  });

  it('shuffles each block with the seed: the same seed gives the same order, every block whole', () => {
    const a = runOrder(4, 5, { mode: 'random-blocks', seed: 7 });
    expect(runOrder(4, 5, { mode: 'random-blocks', seed: 7 })).toEqual(a);
    expect(runOrder(4, 5, { mode: 'random-blocks', seed: 8 })).not.toEqual(a);
    for (let r = 0; r < 5; r++) {
      const block = a.slice(r * 4, r * 4 + 4);
      expect(block.every((s) => s.repeat === r)).toBe(true);
      expect(block.map((s) => s.configuration).sort()).toEqual([0, 1, 2, 3]);
    }
  });
});
