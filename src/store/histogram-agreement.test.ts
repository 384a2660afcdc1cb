/**
 * Two histogram codecs, one answer: the store keeps its smaller codec (StoreHistogram, 1/64 of
 * an octave per bucket) while runs keep HdrHistogram at 4 significant digits (metrics/). This
 * test stores a week of hourly rounds in a real store file, and takes the week's percentiles
 * (a) from the store's merged window and (b) from the run histograms of the same records, as
 * `run` writes them into summary.json, decoded and merged as `merge` does. Both must sit within
 * their documented bounds of the exact nearest-rank value of the week's values, and so agree
 * within the sum of the two: STORE_PERCENTILE_RELATIVE_ERROR (1/128) of the value, plus the run
 * histogram's 1/32768, plus a microsecond of rounding each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { histogramTolerance, nearestRank, runMeta, streamed } from '../../test/fixtures/records.js';
import { LatencyHistogram, RunAccumulator, requestMetrics } from '../metrics/index.js';
import type { RequestRecord, RunSummary } from '../types.js';
import { createRng } from '../workload/index.js';
import { STORE_PERCENTILE_RELATIVE_ERROR, StoreHistogram } from './histogram.js';
import { WatchStore } from './store.js';
import { STORED_LATENCIES, type StoredLatency } from './types.js';

const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;
/** A Monday aligned to the store's week windows (multiples of a week since the epoch). */
const WEEK_START = Math.ceil(Date.UTC(2026, 0, 5) / WEEK) * WEEK;
const ROUNDS = 7 * 24;
const REQUESTS_PER_ROUND = 12;
const TOKENS = 16;

/** One round's records: lognormal latencies, and a bad day (Wednesday) three times slower. */
function roundRecords(round: number): RequestRecord[] {
  const rng = createRng(1000 + round);
  const slow = Math.floor(round / 24) === 2 ? 3 : 1;
  const out: RequestRecord[] = [];
  for (let i = 0; i < REQUESTS_PER_ROUND; i++) {
    const sentMs = 1_000 + i * 50;
    const ttft = slow * 180 * Math.exp(0.45 * rng.normal());
    const chunkMs: number[] = [sentMs + ttft];
    for (let k = 1; k < TOKENS; k++)
      chunkMs.push(chunkMs[k - 1]! + slow * 22 * Math.exp(0.35 * rng.normal()));
    const r = streamed({ index: i, sentMs, ttft, tokens: TOKENS });
    r.id = `r${round}-${i}`;
    r.chunkMs = chunkMs.map((t) => Math.round(t * 1000) / 1000);
    r.firstTokenMs = r.chunkMs[0];
    r.endMs = r.chunkMs[TOKENS - 1]! + 1;
    out.push(r);
  }
  return out;
}

/** The store's view of a round's records, as watch keeps it: every latency of every success. */
function storeHistograms(records: readonly RequestRecord[]): Record<StoredLatency, StoreHistogram> {
  const h = {
    ttft: new StoreHistogram(),
    tpot: new StoreHistogram(),
    itl: new StoreHistogram(),
    e2el: new StoreHistogram(),
  };
  for (const r of records) {
    const m = requestMetrics(r);
    if (m.ttftMs !== undefined) h.ttft.record(m.ttftMs);
    if (m.tpotMs !== undefined) h.tpot.record(m.tpotMs);
    for (const gap of m.itlMs) h.itl.record(gap);
    h.e2el.record(m.e2elMs);
  }
  return h;
}

/** The exact values of the same records, for the nearest-rank reference. */
function exactValues(records: readonly RequestRecord[], into: Record<StoredLatency, number[]>): void {
  for (const r of records) {
    const m = requestMetrics(r);
    into.ttft.push(m.ttftMs!);
    into.tpot.push(m.tpotMs!);
    into.itl.push(...m.itlMs);
    into.e2el.push(m.e2elMs);
  }
}

let dir: string;
let store: WatchStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'goodput-agreement-'));
  store = WatchStore.open(join(dir, 'goodput.db'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a week's percentiles from the store and from the run histograms of the same records", () => {
  it('agree within the documented bound, and each sits within its own bound of the exact value', () => {
    store.targetId('prod', 'http://gw', 'm');
    const summaries: RunSummary[] = [];
    const exact: Record<StoredLatency, number[]> = { ttft: [], tpot: [], itl: [], e2el: [] };
    const perRoundP99: number[] = [];
    let storeBytes = 0;
    let runBytes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const records = roundRecords(round);
      exactValues(records, exact);
      // the run side: what `goodput run` would write into summary.json for this round
      const meta = runMeta({ runId: `prod#${round + 1}` });
      const acc = RunAccumulator.fromMeta(meta);
      for (const r of records) acc.add(r);
      const summary = acc.summarize(meta, { dropped: 0, interrupted: false });
      summaries.push(summary);
      perRoundP99.push(summary.latency.ttft.p99);
      // the store side: the round as watch stores it
      const histograms = storeHistograms(records);
      storeBytes += STORED_LATENCIES.reduce((a, n) => a + histograms[n].encode().length, 0);
      runBytes += STORED_LATENCIES.reduce(
        (a, n) => a + Buffer.from(summary.histograms[n]!, 'base64').length,
        0,
      );
      store.addRound({
        target: 'prod',
        round: round + 1,
        startedAt: WEEK_START + round * HOUR,
        durationMs: 2_000,
        valid: true,
        attempted: REQUESTS_PER_ROUND,
        completed: REQUESTS_PER_ROUND,
        failed: 0,
        good: REQUESTS_PER_ROUND,
        outputTokens: REQUESTS_PER_ROUND * TOKENS,
        proberLagMs: 1,
        errors: {},
        histograms,
      });
    }
    const windows = store.windows(WEEK);
    expect(windows).toHaveLength(1);
    const week = windows[0]!;
    expect(week.rounds).toBe(ROUNDS);

    for (const name of STORED_LATENCIES) {
      // the run histograms of the week, decoded and merged as `goodput merge` does
      const merged = new LatencyHistogram();
      for (const s of summaries) merged.merge(LatencyHistogram.decode(s.histograms[name]!, s.latency[name]));
      const sorted = [...exact[name]].sort((a, b) => a - b);
      expect(merged.count).toBe(sorted.length);
      expect(week.latency[name].count).toBe(sorted.length);
      for (const p of [50, 90, 99] as const) {
        const truth = nearestRank(sorted, p);
        const fromRun = merged.percentile(p);
        const fromStore = week.latency[name][`p${p}`];
        const storeBound = truth * STORE_PERCENTILE_RELATIVE_ERROR + 0.001;
        const runBound = histogramTolerance(truth);
        const where = `${name} p${p}: exact ${truth}, run ${fromRun}, store ${fromStore}`;
        expect(Math.abs(fromRun - truth), where).toBeLessThanOrEqual(runBound);
        expect(Math.abs(fromStore - truth), where).toBeLessThanOrEqual(storeBound);
        expect(Math.abs(fromStore - fromRun), where).toBeLessThanOrEqual(storeBound + runBound);
      }
    }

    // Why merged histograms: the mean of the rounds' p99s is not the week's p99 (the bad day
    // dominates the tail), and misses it by far more than the bound above.
    const meanOfP99s = perRoundP99.reduce((a, b) => a + b, 0) / perRoundP99.length;
    const weekP99 = week.latency.ttft.p99;
    expect(Math.abs(meanOfP99s - weekP99)).toBeGreaterThan(20 * weekP99 * STORE_PERCENTILE_RELATIVE_ERROR);
    // and why the store keeps its own codec: the same rounds take far fewer bytes
    expect(storeBytes).toBeLessThan(runBytes / 2);
  });
});
