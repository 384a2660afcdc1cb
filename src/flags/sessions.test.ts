import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHMARK_OPTIONS, SHARD_OPTIONS } from './options/index.js';
import { parseArgv } from './parse.js';
import { resolveBenchmarkConfig } from './resolve.js';
import { parseThinkTime, parseTurns } from './sessions.js';
import type { CommandSpec } from './spec.js';

const spec: CommandSpec = {
  name: 'run',
  summary: '',
  options: { ...BENCHMARK_OPTIONS, ...SHARD_OPTIONS },
  run: async () => 0,
};
const dir = mkdtempSync(join(tmpdir(), 'goodput-sessions-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const resolve = async (argv: string[]) => resolveBenchmarkConfig(parseArgv(spec, argv), {}, dir);

describe('session flag grammar', () => {
  it.each([
    ['3', { min: 3, max: 3 }],
    ['2-6', { min: 2, max: 6 }],
    [' 4 - 4 ', { min: 4, max: 4 }],
  ])('--turns %s', (text, want) => expect(parseTurns(text)).toEqual(want));
  it.each(['0', '5-2', 'three', '2-', '-3', '1.5'])('--turns %s is refused with an example', (text) =>
    expect(() => parseTurns(text)).toThrow(/--turns expects N or MIN-MAX/),
  );
  it.each([
    ['2s', { meanMs: 2000, dist: 'fixed' }],
    ['exp:1.5s', { meanMs: 1500, dist: 'exponential' }],
    ['exponential:500ms', { meanMs: 500, dist: 'exponential' }],
    ['0', { meanMs: 0, dist: 'fixed' }],
  ])('--think-time %s', (text, want) => expect(parseThinkTime(text)).toEqual(want));
  it('--think-time needs a unit', () =>
    expect(() => parseThinkTime('exp:2')).toThrow(/--think-time: '2' has no unit/));
});

describe('session flags → config', () => {
  it('--sessions: a closed loop over sessions with 3 turns by default', async () => {
    const c = await resolve(['--sessions', '4']);
    expect(c.load).toMatchObject({
      mode: 'closed',
      concurrency: 4,
      sessions: { concurrency: 4 },
      requests: 80,
    });
    expect(c.workload.sessions).toEqual({ turns: { min: 3, max: 3 } });
  });

  it('--session-rate with a request cap, a user rate and the synthetic shape', async () => {
    const c = await resolve([
      '--session-rate',
      '2',
      '--max-concurrency',
      '16',
      '--user-rate',
      '0.5',
      '--turns',
      '2-6',
      '--turn-tokens',
      '64',
    ]);
    expect(c.load).toMatchObject({
      mode: 'open',
      burstiness: 1,
      maxConcurrency: 16,
      sessions: { rate: 2, userRate: 0.5 },
      requests: 120,
    });
    expect(c.load.rate).toBeUndefined();
    expect(c.workload.sessions).toEqual({ turns: { min: 2, max: 6 }, turnTokens: 64 });
  });

  it.each([
    [['--turns', '3'], /--turns shapes multi-turn sessions, but none were asked for/],
    [['--user-rate', '1', '--think-time', '1s'], /--user-rate, --think-time shape multi-turn sessions/],
    [['--sessions', '2', '--session-rate', '1'], /cannot be used together/],
    [['--sessions', '2', '--concurrency', '4'], /--sessions and --concurrency cannot be used together/],
    [['--session-rate', '2', '--rate', '4'], /--session-rate and --rate cannot be used together/],
    [['--sessions', '2', '--user-rate', '1', '--think-time', '2s'], /--user-rate and --think-time/],
    [['--sessions', '2', '--cancel-after-ms', '100'], /--cancel-after-ms does not apply to sessions/],
    [
      ['--sessions', '2', '--dataset', 'x.jsonl', '--turns', '3'],
      /--turns applies to synthetic sessions only/,
    ],
    [['--sessions', '2', '--stages', '10s:4'], /--sessions cannot be used with --stages/],
  ])('%j is refused as a usage error', async (argv, message) => {
    await expect(resolve(argv)).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringMatching(message),
    });
  });
});
