import { describe, expect, it } from 'vitest';
import { BENCHMARK_OPTIONS, type CommandSpec, parseArgv, resolveBenchmarkConfig } from '../flags/index.js';
import { benchmarkConfig } from './config.js';

const spec: CommandSpec = { name: 'run', summary: '', options: BENCHMARK_OPTIONS, run: async () => 0 };
const fromFlags = (argv: string[]) => resolveBenchmarkConfig(parseArgv(spec, argv), {}, '/tmp');

describe('benchmarkConfig', () => {
  // The programmatic defaults must equal what `goodput run` resolves from the same flags.
  const cases: Array<[string, Parameters<typeof benchmarkConfig>[0], string[]]> = [
    ['nothing', {}, []],
    ['closed loop count', { load: { concurrency: 4, requests: 20 } }, ['-c', '4', '-n', '20']],
    ['open loop from a rate', { load: { rate: 5, requests: 30 } }, ['--rate', '5', '-n', '30']],
    ['duration only', { load: { durationMs: 2000 } }, ['-d', '2s']],
    [
      'sampling and seed',
      { seed: 9, sampling: { temperature: 0.5, maxTokens: 16, ignoreEos: true } },
      ['--seed', '9', '--temperature', '0.5', '--max-tokens', '16', '--ignore-eos'],
    ],
    [
      'url and slo',
      { url: 'http://h:1', slo: { ttftMs: 300 } },
      ['--url', 'http://h:1', '--slo', 'ttft=300'],
    ],
  ];
  it.each(cases)('%s matches the flags', async (_name, input, argv) => {
    expect(benchmarkConfig(input)).toEqual(await fromFlags(argv));
  });

  it('keeps a duration-bound run without a count', () => {
    expect(benchmarkConfig({ load: { durationMs: 500 } }).load.requests).toBeUndefined();
  });
});
