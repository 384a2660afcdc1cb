/**
 * Golden comparison of seeded virtual-time runs: the summary a run produces must not change
 * when the load loop or the run pipeline is refactored. The fixture was written by the code
 * before the refactor (one load loop with an injected clock, issue 12); re-write it only for
 * an intended change of the numbers, with GOODPUT_UPDATE_GOLDEN=1.
 *
 * One intended change since: in 'closed-cancels' a worker whose simulated user cancels now
 * sends its next request at the cancel, as a live client does, instead of when the engine
 * noticed the disconnect at the end of its step; its entry was re-written then (the counts
 * stayed, 9 of 5687 generated tokens moved). 'open' and 'closed' are the pre-refactor values.
 * 'closed-reasoning' (reasoning mode in virtual time) was added later, by itself
 * (`-t closed-reasoning`): the earlier entries stayed byte for byte.
 *
 * Tolerance: counts, token totals and histogram counts are exact. Latency figures may differ
 * by the histogram's own error (4 significant digits: at most 1/32768 of the value, plus 0.5 µs
 * of rounding to whole microseconds, see src/metrics/histogram.ts) plus 1 µs for the records'
 * microsecond rounding of times computed in a different order. The bound used is
 * |a − b| ≤ 2 µs + a/16384 (twice the histogram bound).
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LatencyStats, RunSummary } from '../src/types.js';
import { REPO, runCliInProcess } from './helpers/cli.js';

const FIXTURE = join(REPO, 'test', 'fixtures', 'golden-virtual.json');
const UPDATE = process.env.GOODPUT_UPDATE_GOLDEN === '1';

/** The runs of the golden set, as CLI arguments. */
const RUNS: Record<string, string[]> = {
  open: ['--time', 'virtual', '--rate', '5', '--requests', '40', '--seed', '7'],
  closed: ['--time', 'virtual', '--concurrency', '4', '--requests', '40', '--seed', '7'],
  'closed-cancels': [
    '--time',
    'virtual',
    '--concurrency',
    '16',
    '--requests',
    '120',
    '--seed',
    '3',
    '--cancel-after-ms',
    '300',
    '--cancel-rate',
    '0.3',
    '--max-tokens',
    '64',
  ],
  // Reasoning mode in virtual time (added after the others, which it leaves unchanged).
  'closed-reasoning': [
    '--time',
    'virtual',
    '--concurrency',
    '8',
    '--requests',
    '40',
    '--seed',
    '7',
    '--max-tokens',
    '48',
    '--reasoning-tokens',
    'exp:20',
  ],
};

interface Golden {
  counts: RunSummary['counts'];
  latency: Record<string, LatencyStats>;
  throughput: RunSummary['throughput'];
  goodput: Omit<RunSummary['goodput'], 'slo'>;
  errors: number;
  peakInFlight: number;
  dropped: number;
  server: { preemptions?: number; generatedTokens?: number; wastedTokens?: number };
  /** Reasoning totals: absent in the runs without reasoning mode. */
  reasoning?: RunSummary['reasoning'];
}

/** The part of a summary that a refactor of the pipeline must keep. */
function golden(s: RunSummary): Golden {
  const { slo: _slo, ...goodput } = s.goodput;
  return {
    counts: s.counts,
    latency: s.latency as Record<string, LatencyStats>,
    throughput: s.throughput,
    goodput,
    errors: s.errors.reduce((n, e) => n + e.count, 0),
    peakInFlight: s.load.peakInFlight,
    dropped: s.load.dropped,
    server: {
      preemptions: s.server?.preemptions,
      generatedTokens: s.server?.generatedTokens,
      wastedTokens: s.server?.wastedTokens,
    },
    ...(s.reasoning ? { reasoning: s.reasoning } : {}),
  };
}

/** Within the documented bound: 2 µs + 1/16384 of the value (ms in, ms compared). */
function expectClose(actual: number, expected: number, path: string): void {
  const bound = 0.002 + Math.abs(expected) / 16384;
  if (Math.abs(actual - expected) > bound)
    expect.fail(`${path}: ${actual} differs from the golden ${expected} by more than ${bound}`);
}

async function runOnce(args: string[]): Promise<RunSummary> {
  const dir = await mkdtemp(join(tmpdir(), 'goodput-golden-'));
  const { code, stdout } = await runCliInProcess(['run', ...args, '--out', join(dir, 'r'), '--json'], {
    cwd: dir,
  });
  expect(code).toBe(0);
  return JSON.parse(stdout) as RunSummary;
}

describe('golden virtual runs: the summary is unchanged by refactors', () => {
  it.each(Object.keys(RUNS))('%s', async (name) => {
    const got = golden(await runOnce(RUNS[name]!));
    const all: Record<string, Golden> = existsSync(FIXTURE)
      ? JSON.parse(await readFile(FIXTURE, 'utf8'))
      : {};
    if (UPDATE) {
      // Each case re-reads and re-writes the file: the cases of one file run one after another.
      all[name] = got;
      await writeFile(FIXTURE, `${JSON.stringify(all, null, 2)}\n`);
      return;
    }
    const want = all[name];
    expect(want, `no golden for ${name}: run with GOODPUT_UPDATE_GOLDEN=1`).toBeDefined();
    expect(got.counts).toEqual(want!.counts);
    expect(got.errors).toBe(want!.errors);
    expect(got.dropped).toBe(want!.dropped);
    expect(got.peakInFlight).toBe(want!.peakInFlight);
    expect(got.server).toEqual(want!.server);
    expect(got.reasoning).toEqual(want!.reasoning);
    const { attainment, tokenGoodputRatio, requestGoodput, goodTokenThroughput, ...tokens } = got.goodput;
    const {
      attainment: wa,
      tokenGoodputRatio: wr,
      requestGoodput: wg,
      goodTokenThroughput: wt,
      ...wantTokens
    } = want!.goodput;
    expect(tokens).toEqual(wantTokens);
    expect(attainment).toBeCloseTo(wa, 9);
    expect(tokenGoodputRatio).toBeCloseTo(wr, 9);
    // Per-second figures divide by the measured span, which moves with the latencies.
    expect(requestGoodput).toBeCloseTo(wg, 3);
    expect(goodTokenThroughput ?? 0).toBeCloseTo(wt ?? 0, 1);
    for (const [metric, stats] of Object.entries(want!.latency)) {
      const g = got.latency[metric];
      expect(g, metric).toBeDefined();
      expect(g!.count, `${metric}.count`).toBe(stats.count);
      for (const key of ['mean', 'min', 'max', 'p50', 'p90', 'p95', 'p99', 'p999'] as const)
        expectClose(g![key], stats[key], `${metric}.${key}`);
    }
    for (const key of Object.keys(want!.throughput) as Array<keyof Golden['throughput']>)
      expect(got.throughput[key] / want!.throughput[key], `throughput.${key}`).toBeCloseTo(1, 3);
  });
});
