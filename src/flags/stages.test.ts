import { describe, expect, it } from 'vitest';
import { BENCHMARK_OPTIONS } from './options/index.js';
import { parseArgv } from './parse.js';
import { resolveBenchmarkConfig } from './resolve.js';
import type { CommandSpec } from './spec.js';
import { parseStages } from './stages.js';

const spec: CommandSpec = { name: 'run', summary: '', options: BENCHMARK_OPTIONS, run: async () => 0 };
const resolve = (argv: string[]) => resolveBenchmarkConfig(parseArgv(spec, argv), {}, '/tmp');

describe('--stages', () => {
  it('parses k6-style stages', () => {
    expect(parseStages(['30s:10', '2m:50', '0s:5', '30s:0'])).toEqual([
      { durationMs: 30_000, target: 10 },
      { durationMs: 120_000, target: 50 },
      { durationMs: 0, target: 5 },
      { durationMs: 30_000, target: 0 },
    ]);
  });

  it.each([
    [['30s'], /DURATION:TARGET/],
    [['30:10'], /unit|duration/i],
    [['30s:-1'], /≥ 0/],
    [['30s:x'], /≥ 0/],
    [['0s:10'], /at least one stage that lasts/],
  ])('refuses %j', (items, message) => {
    expect(() => parseStages(items)).toThrow(message);
  });

  it('makes a closed loop of the highest concurrency lasting the stages, or an open loop of rates', async () => {
    const c = await resolve(['--stages', '30s:10,2m:50,30s:0']);
    expect(c.load).toMatchObject({
      mode: 'closed',
      concurrency: 50,
      durationMs: 180_000,
      stagesOf: 'concurrency',
    });
    expect(c.load.requests).toBeUndefined();
    const r = await resolve(['--stages', '1m:100', '--stages-of', 'rate', '--burstiness', '0.5']);
    expect(r.load).toMatchObject({ mode: 'open', durationMs: 60_000, stagesOf: 'rate', burstiness: 0.5 });
    expect(r.load.rate).toBeUndefined();
    expect(r.load.concurrency).toBeUndefined();
  });

  it.each([
    [['--stages', '30s:10', '--rate', '5'], /--rate cannot be used with --stages/],
    [['--stages', '30s:10', '--duration', '1m'], /--duration cannot be used with --stages/],
    [['--stages-of', 'rate'], /--stages-of needs --stages/],
    [['--stages', '30s:10', '--burstiness', '2'], /--burstiness applies to --stages-of rate/],
  ])('refuses %j', async (argv, message) => {
    await expect(resolve(argv)).rejects.toThrow(message);
  });
});
