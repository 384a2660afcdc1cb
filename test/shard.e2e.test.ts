/**
 * Sharded runs (issue 16.3): three shards of one seeded workload run as three processes, then
 * `goodput merge`.
 *
 * - Virtual time (deterministic): the merge has the same request and token counts, the same
 *   duration and every percentile of every latency of one run of the whole workload, within
 *   histogram error.
 * - Live, against one loopback engine, with `--start-at` 2 s ahead: every request of the
 *   workload is sent exactly once (global ids), the counts are the whole workload's, and each
 *   shard's start skew is recorded, below 50 ms, as is the spread across shards.
 * - merge refuses a missing, duplicated or foreign shard with a hint.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { collect, readRecords, readSummary } from '../src/results/index.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import { SUMMARY_LATENCY_NAMES } from '../src/types.js';
import { histogramTolerance } from './fixtures/records.js';
import { ensureBuilt, runBin, runCliInProcess } from './helpers/cli.js';

let work: string;
let sim: SimServer;
beforeAll(async () => {
  ensureBuilt();
  work = await mkdtemp(join(tmpdir(), 'goodput-shard-'));
  sim = await startSim({ host: '127.0.0.1', port: 0, seed: 3, slowdown: 0.2 });
}, 120_000);
afterAll(() => sim?.close());

const WORKLOAD = ['--seed', '11', '--prompt-tokens', '96', '--max-tokens', '12', '--ignore-eos'];
const PERCENTILES = ['p50', 'p90', 'p95', 'p99', 'p999', 'min', 'max', 'mean'] as const;

async function cli(argv: string[]) {
  const r = await runCliInProcess(argv, { cwd: work });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe('three shards as three processes, merged', () => {
  test('virtual time: counts, tokens, duration and every percentile are the one run’s', async () => {
    const load = ['--time', 'virtual', '--rate', '25', '--requests', '90', '--warmup', '3', ...WORKLOAD];
    const shards = await Promise.all(
      [0, 1, 2].map((i) =>
        runBin(['run', ...load, '--shard', `${i}/3`, '-o', `v${i}`, '-q'], { cwd: work, timeoutMs: 120_000 }),
      ),
    );
    for (const s of shards) expect(s.code, s.stderr).toBe(0);
    const whole = await cli(['run', ...load, '-o', 'v-whole', '-q']);
    expect(whole.code, whole.err).toBe(0);
    const merged = await cli(['merge', 'v0', 'v1', 'v2', '-o', 'v-merged']);
    expect(merged.code, merged.err).toBe(0);
    // 90 measured records and the 3 warmup ones, each shard's own.
    expect(merged.err).toContain('merged 3 shards (93 records)');
    expect(merged.out).toMatch(/Shards \(3\)/);

    const one = await readSummary(join(work, 'v-whole'));
    const m = await readSummary(join(work, 'v-merged'));
    // Each shard sent every third measured request (and its share of the warmup).
    const parts = await Promise.all([0, 1, 2].map((i) => readSummary(join(work, `v${i}`))));
    expect(parts.map((p) => p.counts.attempted)).toEqual([30, 30, 30]);
    expect(parts.map((p) => p.counts.warmup)).toEqual([1, 1, 1]);
    for (const key of ['completed', 'failed', 'total_input_tokens', 'total_output_tokens'] as const) {
      expect(m[key], key).toBe(one[key]);
    }
    expect(m.counts).toEqual(one.counts);
    expect(m.goodput.totalOutputTokens).toBe(one.goodput.totalOutputTokens);
    expect(m.duration).toBeCloseTo(one.duration, 6);
    expect(m.request_throughput).toBeCloseTo(one.request_throughput, 6);
    for (const name of SUMMARY_LATENCY_NAMES) {
      const merged = m.latency[name];
      const whole = one.latency[name];
      // phase latencies (reasoning) are absent when nothing measured them: absent in both
      expect(merged === undefined, name).toBe(whole === undefined);
      if (!merged || !whole) continue;
      expect(merged.count, name).toBe(whole.count);
      for (const p of PERCENTILES) {
        const a = whole[p];
        expect(Math.abs(merged[p] - a), `${name} ${p}`).toBeLessThanOrEqual(histogramTolerance(a));
      }
    }
    expect(m.meta.shard).toBeUndefined();
    expect(m.meta.load).toEqual(one.meta.load);
    expect(m.shards?.map((s) => [s.index, s.attempted])).toEqual([
      [0, 30],
      [1, 30],
      [2, 30],
    ]);
  }, 240_000);

  test('live: --start-at 2 s ahead, every request once, start skew recorded and < 50 ms', async () => {
    const load = ['--url', sim.url, '--concurrency', '6', '--requests', '60', ...WORKLOAD];
    // Three processes get the same instant. On a machine busy enough that a process takes
    // longer than that to load its tokenizer, a shard starts late and says so: then once more,
    // with the instant as far ahead as readiness took (the skew is about the meeting, not the
    // machine's start-up time).
    let ahead = 2000;
    let runs: Awaited<ReturnType<typeof runBin>>[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const at = new Date(Date.now() + ahead).toISOString();
      runs = await Promise.all(
        [0, 1, 2].map((i) =>
          runBin(['run', ...load, '--shard', `${i}/3`, '--start-at', at, '-o', `l${i}`, '--force'], {
            cwd: work,
            timeoutMs: 120_000,
          }),
        ),
      );
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      const late = runs.map((r) => /--start-at was (\d+) ms ago/.exec(r.stderr)).filter((x) => x !== null);
      if (late.length === 0) break;
      ahead += 2 * Math.max(...late.map((x) => Number(x[1])));
    }
    for (const r of runs) {
      expect(r.stderr).not.toMatch(/--start-at was \d+ ms ago/);
      expect(r.stderr).toMatch(/start skew: [+-]\d+\.\d ms after --start-at/);
    }
    const parts = await Promise.all([0, 1, 2].map((i) => readSummary(join(work, `l${i}`))));
    for (const p of parts) {
      expect(p.meta.shard?.startAt).toBeDefined();
      expect(Math.abs(p.load.startSkewMs!), 'start skew').toBeLessThan(50);
      expect(p.meta.load.concurrency).toBe(6);
      expect(p.load.peakInFlight).toBeLessThanOrEqual(2);
    }
    const merged = await cli(['merge', 'l0', 'l1', 'l2', '-o', 'l-merged', '--force']);
    expect(merged.code, merged.err).toBe(0);
    const spread = /start skew across shards: (\d+\.\d) ms/.exec(merged.out);
    expect(spread, merged.out).not.toBeNull();
    expect(Number(spread![1])).toBeLessThan(50);
    const m = await readSummary(join(work, 'l-merged'));
    expect(m.counts.attempted).toBe(60);
    expect(m.completed).toBe(60);
    expect(m.total_output_tokens).toBe(60 * 12);
    expect(m.shards?.every((s) => s.startSkewMs !== undefined && s.requestsPerS > 0)).toBe(true);
    // The union of the shards is the workload: each request id once, r-000001 … r-000060.
    const ids = (await collect(readRecords(join(work, 'l-merged')))).map((r) => r.id.replace(/^g\d-/, ''));
    expect(new Set(ids).size).toBe(60);
    expect([...ids].sort()).toEqual(
      Array.from({ length: 60 }, (_, i) => `r-${String(i + 1).padStart(6, '0')}`),
    );
    // The same workload in one run counts the same prompt tokens.
    const one = await cli(['run', ...load, '-o', 'l-whole', '-q', '--force']);
    expect(one.code, one.err).toBe(0);
    expect(m.total_input_tokens).toBe((await readSummary(join(work, 'l-whole'))).total_input_tokens);
  }, 300_000);

  test('merge refuses a missing, duplicated or foreign shard, with the fix', async () => {
    const load = ['--time', 'virtual', '--concurrency', '4', '--requests', '8', ...WORKLOAD];
    for (const [dir, extra] of [
      ['f0', ['--shard', '0/2']],
      ['f1', ['--shard', '1/2']],
      ['f1-seed', ['--shard', '1/2', '--seed', '12']],
    ] as const) {
      const r = await cli(['run', ...load, ...extra, '-o', dir, '-q']);
      expect(r.code, r.err).toBe(0);
    }
    const missing = await cli(['merge', 'v0', 'v2', '-o', 'x1']);
    expect(missing.err).toContain('shard 1 of 3 missing');
    expect(missing.err).toContain('hint: pass all 3 shard folders');
    const other = await cli(['merge', 'f0', 'v1', 'v2', '-o', 'x0', '--allow-different']);
    expect(other.err).toContain('belongs to a run of 3 shards');
    const twice = await cli(['merge', 'f0', 'f0', '-o', 'x2']);
    expect(twice.err).toContain('shard 0/2 is given twice');
    expect(twice.err).toContain('hint: pass each shard folder once');
    const seed = await cli(['merge', 'f0', 'f1-seed', '-o', 'x3']);
    expect(seed.err).toContain('seed 12 ≠ 11');
    expect(seed.err).toContain('hint: run every shard with the same flags');
    const ok = await cli(['merge', 'f0', 'f1', '-o', 'x4']);
    expect(ok.code, ok.err).toBe(0);
    // A shard's --workers is its machine's affair, not the workload's: still one run.
    const live = ['--url', sim.url, '--concurrency', '4', '--requests', '8', ...WORKLOAD];
    const one = await cli(['run', ...live, '--shard', '0/2', '-o', 'w0', '-q']);
    expect(one.code, one.err).toBe(0);
    const threads = await cli(['run', ...live, '--shard', '1/2', '--workers', '2', '-o', 'w1', '-q']);
    expect(threads.code, threads.err).toBe(0);
    const mixed = await cli(['merge', 'w0', 'w1', '-o', 'x6']);
    expect(mixed.code, mixed.err).toBe(0);
    for (const r of [missing, other, twice, seed]) expect(r.code).not.toBe(0);
    const split = await cli(['run', ...load, '--concurrency', '1', '--shard', '0/2', '-o', 'x5']);
    expect(split.code).toBe(2);
    expect(split.err).toContain('--concurrency 1 cannot be split over 2 shards');
  }, 120_000);
});
