import { describe, expect, test } from 'vitest';
import { failed, runMeta, seeded, streamed } from '../../test/fixtures/records.js';
import { GoodputError } from '../errors.js';
import type { RequestRecord } from '../types.js';
import { summarizeRecords } from './accumulator.js';
import { mergeSummaries } from './merge.js';
import { SUMMARY_LATENCIES } from './run-state.js';

function randomRun(seed: number, n: number): RequestRecord[] {
  const rnd = seeded(seed);
  return Array.from({ length: n }, (_, i) => {
    const roll = rnd();
    if (roll < 0.05) return failed('HTTP_RATE_LIMITED', { index: i, sentMs: i * 20 });
    const r = streamed({
      index: i,
      sentMs: i * 20,
      scheduledMs: i * 20 - rnd() * 30,
      ttft: 20 + rnd() ** 3 * 4000,
      gap: 2 + rnd() * 60,
      tokens: 1 + Math.floor(rnd() * 40),
      promptTokens: 1 + Math.floor(rnd() * 5000),
    });
    if (roll < 0.1)
      return { ...r, outcome: 'cancelled' as const, error: { code: 'ABORTED' as const, message: 'x' } };
    return r;
  });
}

describe('mergeSummaries', () => {
  const meta = runMeta({
    slo: { ttftMs: 800, tpotMs: 40 },
    load: { mode: 'open', rate: 50, warmup: 0, timeoutMs: 1, maxRetries: 0 },
  });
  const all = randomRun(1, 1500);
  const parts = [0, 1, 2].map((k) => all.filter((_, i) => i % 3 === k));
  const extras = { durationS: 30 };
  const merged = mergeSummaries(
    parts.map((p, k) => summarizeRecords(p, { ...meta, runId: `g${k}` }, extras)),
  );
  const one = summarizeRecords(all, meta, extras);

  test('latencies equal recording everything in one place (percentiles exact, moments to rounding)', () => {
    for (const name of SUMMARY_LATENCIES) {
      const a = merged.latency[name];
      const b = one.latency[name];
      expect(a === undefined).toBe(b === undefined);
      if (!a || !b) continue;
      expect([a.count, a.min, a.max, a.p50, a.p90, a.p95, a.p99, a.p999]).toEqual([
        b.count,
        b.min,
        b.max,
        b.p50,
        b.p90,
        b.p95,
        b.p99,
        b.p999,
      ]);
      expect(a.mean).toBeCloseTo(b.mean, 9);
      expect(a.std).toBeCloseTo(b.std, 9);
    }
    expect(merged.p99_ttft_ms).toBe(one.p99_ttft_ms);
  });

  test('counts, goodput, errors, dispatch lag and buckets equal the single run', () => {
    expect(merged.counts).toEqual(one.counts);
    expect(merged.goodput).toEqual(one.goodput);
    expect(merged.errors).toEqual(one.errors);
    expect(merged.request_throughput).toBeCloseTo(one.request_throughput, 12);
    expect(merged.total_token_throughput).toBeCloseTo(one.total_token_throughput, 12);
    expect(merged.load.dispatchLag.p99).toBe(one.load.dispatchLag.p99);
    expect(merged.load.lateSends).toBe(one.load.lateSends);
    expect(merged.buckets?.map((b) => [b.minTokens, b.count, b.ttft.p90, b.e2el.p99])).toEqual(
      one.buckets?.map((b) => [b.minTokens, b.count, b.ttft.p90, b.e2el.p99]),
    );
    expect(merged.meta.runId).toBe('g0+g1+g2');
  });

  test('per-second peaks are summed (an upper bound of the single run)', () => {
    expect(merged.max_output_tokens_per_s).toBeGreaterThanOrEqual(one.max_output_tokens_per_s);
    expect(merged.max_concurrent_requests).toBeGreaterThanOrEqual(one.max_concurrent_requests);
  });

  test('server token counters: same server → largest, else summed', () => {
    const server = (url: string) => ({ engine: 'vllm' as const, metricsUrl: url, samples: 3, series: {} });
    const a = summarizeRecords(parts[0] ?? [], meta, { serverGeneratedTokens: 1000, server: server('u1') });
    const b = summarizeRecords(parts[1] ?? [], meta, { serverGeneratedTokens: 1200, server: server('u1') });
    expect(mergeSummaries([a, b]).goodput.totalOutputTokens).toBe(1200);
    const c = summarizeRecords(parts[1] ?? [], meta, { serverGeneratedTokens: 1200, server: server('u2') });
    expect(mergeSummaries([a, c]).goodput.totalOutputTokens).toBe(2200);
  });

  test('GC pauses of the clients survive the merge (mergeGcPauses), and a run built from records with them keeps them', () => {
    const paused = summarizeRecords(
      parts[0]!,
      { ...meta, runId: 'p0' },
      {
        ...extras,
        gcPauses: { count: 4, totalMs: 90, p99Ms: 60, maxMs: 60 },
      },
    );
    expect(paused.load.gcPauses).toEqual({ count: 4, totalMs: 90, p99Ms: 60, maxMs: 60 });
    expect(paused.caveats?.map((c) => c.id)).toContain('gc-pauses');
    const others = [1, 2].map((k) =>
      summarizeRecords(
        parts[k]!,
        { ...meta, runId: `p${k}` },
        {
          ...extras,
          ...(k === 1 ? { gcPauses: { count: 10, totalMs: 25, p99Ms: 8, maxMs: 9 } } : {}),
        },
      ),
    );
    const both = mergeSummaries([paused, ...others]);
    expect(both.load.gcPauses).toEqual({ count: 14, totalMs: 115, p99Ms: 60, maxMs: 60 });
    expect(both.caveats?.map((c) => c.id)).toContain('gc-pauses');
    // runs that measured none (virtual time, older summaries) merge to none
    expect(merged.load.gcPauses).toBeUndefined();
  });

  test("an open loop's start window survives the merge (mergeStartWindows), and so does its caveat", () => {
    const warming = { ms: 1000, sends: 1000, p99Ms: 25, laterSends: 9000, laterP99Ms: 2 };
    const a = summarizeRecords(parts[0]!, { ...meta, runId: 'w0' }, { ...extras, startWindow: warming });
    expect(a.load.startWindow).toEqual(warming);
    expect(a.caveats?.map((c) => c.id)).toContain('client-warming-up');
    const b = summarizeRecords(
      parts[1]!,
      { ...meta, runId: 'w1' },
      { ...extras, startWindow: { ms: 1000, sends: 1000, p99Ms: 2, laterSends: 9000, laterP99Ms: 3 } },
    );
    const both = mergeSummaries([a, b]);
    expect(both.load.startWindow).toEqual({
      ms: 1000,
      sends: 2000,
      p99Ms: 25,
      laterSends: 18000,
      laterP99Ms: 3,
    });
    expect(both.caveats?.map((c) => c.id)).toContain('client-warming-up');
    expect(merged.load.startWindow).toBeUndefined();
  });

  test('refuses an empty list and runs judged by different SLOs', () => {
    expect(() => mergeSummaries([])).toThrow(GoodputError);
    const other = summarizeRecords(parts[0] ?? [], { ...meta, slo: { ttftMs: 1 } });
    const mine = summarizeRecords(parts[0] ?? [], meta);
    expect(() => mergeSummaries([mine, other])).toThrow(/different SLOs/);
  });
});
