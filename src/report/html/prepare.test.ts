import { describe, expect, it } from 'vitest';
import { syntheticMeta, syntheticRecord } from '../../../test/helpers/synthetic-run.js';
import { summarizeRecords } from '../../metrics/index.js';
import type { ServerSample } from '../../types.js';
import {
  addOutputTokens,
  cdfFromHistogram,
  promptRanges,
  RunChartBuilder,
  requestLatencies,
  StrideSample,
  serverSeries,
} from './prepare.js';
import { TimeBuckets } from './series.js';

describe('requestLatencies', () => {
  it('follows the definitions: TTFT, E2EL, TPOT = (E2EL − TTFT)/(n − 1), ITL = chunk gaps', () => {
    const r = syntheticRecord(3, { tokens: 5 });
    // sent 300, first token 323, chunks 323..343, end 344
    expect(requestLatencies(r)).toEqual({ ttft: 23, e2el: 44, tpot: (44 - 23) / 4, itl: [5, 5, 5, 5] });
  });
  it.each([
    { name: 'a failed request has none', record: syntheticRecord(0, { failEvery: 1 }), expected: undefined },
    {
      name: 'one output token: no TPOT',
      record: syntheticRecord(0, { tokens: 1 }),
      expected: { ttft: 20, e2el: 21, itl: [] },
    },
    {
      name: 'no first token: E2EL only',
      record: { ...syntheticRecord(0, { tokens: 2 }), firstTokenMs: undefined },
      expected: { e2el: 26, itl: [5] },
    },
  ])('$name', ({ record, expected }) => {
    expect(requestLatencies(record)).toEqual(expected);
  });
});

describe('RunChartBuilder', () => {
  const records = Array.from({ length: 40 }, (_, i) => syntheticRecord(i, { failEvery: 10 }));
  const warmup = syntheticRecord(99, { warmup: true });
  const summary = summarizeRecords([warmup, ...records], syntheticMeta());
  const builder = new RunChartBuilder(summary, 200);
  for (const r of [warmup, ...records]) builder.addRecord(r);
  const charts = builder.finish();
  const ok = records.filter((r) => r.outcome === 'success');

  it('reads measured records only and ends every CDF at 100% at the maximum', () => {
    expect(charts.recordsRead).toBe(40);
    const ttfts = ok.map((r) => r.firstTokenMs! - r.sentMs);
    expect(charts.cdf.ttft.x[charts.cdf.ttft.x.length - 1]).toBe(Math.max(...ttfts));
    expect(charts.cdf.ttft.x[0]).toBe(Math.min(...ttfts));
    for (const name of ['ttft', 'tpot', 'itl', 'e2el'] as const) {
      expect(charts.cdf[name].y[charts.cdf[name].y.length - 1], name).toBe(100);
    }
  });

  it("agrees with the metrics module's summary on the median TTFT", () => {
    const { x, y } = charts.cdf.ttft;
    const medianFromCdf = x[y.findIndex((p) => p >= 50)]!;
    expect(Math.abs(medianFromCdf - summary.latency.ttft.p50)).toBeLessThanOrEqual(1);
  });

  it('timeline: tokens and errors add up, in-flight matches the overlap of the records', () => {
    const { outputTokensPerS, errorsPerS, inFlight } = charts.timeline;
    const bucketS = 0.2;
    const tokens = outputTokensPerS.y.reduce((s, v) => s + v * bucketS, 0);
    expect(tokens).toBeCloseTo(
      ok.reduce((s, r) => s + r.outputTokens, 0),
      6,
    );
    expect(errorsPerS.y.reduce((s, v) => s + v * bucketS, 0)).toBeCloseTo(4, 6);
    // Plain reference: average number of requests in flight over each 200 ms bucket.
    for (let k = 0; k < inFlight.x.length; k++) {
      const from = inFlight.x[k]! * 1000 - 100;
      const to = from + 200;
      const ref = records.reduce(
        (s, r) => s + Math.max(0, Math.min(r.endMs, to) - Math.max(r.sentMs, from)) / 200,
        0,
      );
      expect(inFlight.y[k]).toBeCloseTo(ref, 9);
    }
    expect(inFlight.x[0]).toBeCloseTo(0.1, 9);
  });

  it('scatter: one point per successful request here, with bucket medians', () => {
    expect(charts.scatter.points.x).toHaveLength(ok.length);
    expect(charts.scatter.medians.x.length).toBeGreaterThan(1);
  });

  it('exposes sorted samples for compare', () => {
    const s = builder.samples();
    expect(s.completed).toBe(ok.length);
    expect(Array.from(s.ttft)).toEqual(ok.map((r) => r.firstTokenMs! - r.sentMs).sort((a, b) => a - b));
    expect(s.itl.length).toBe(ok.length * 7);
  });

  it('stays bounded for a large run', () => {
    const big = new RunChartBuilder(summary, 100);
    for (let i = 0; i < 20_000; i++) big.addRecord(syntheticRecord(i % 5000, { tokens: 3 }));
    const c = big.finish();
    expect(c.cdf.ttft.x.length).toBeLessThan(1200);
    expect(c.timeline.inFlight.x.length).toBeLessThanOrEqual(800);
    expect(c.scatter.points.x.length).toBeLessThan(4000);
  });
});

describe('output tokens on the timeline (addOutputTokens)', () => {
  /** One request streaming `chunks` chunks `gapMs` apart from `startMs`, `perChunk` tokens each. */
  const stream = (startMs: number, chunks: number, gapMs: number, perChunk: number) => ({
    chunkMs: Array.from({ length: chunks }, (_, k) => startMs + k * gapMs),
    outputTokens: chunks * perChunk,
  });
  it.each([
    // chunks 150 ms apart in 100 ms buckets: by chunk instant, every third bucket holds none
    { name: 'chunks slower than the bucket width', r: stream(0, 21, 150, 3), width: 100 },
    // chunks of 8 tokens every 250 ms (a server that batches its stream): 0, 0, 8 by instant
    { name: 'several tokens per chunk', r: stream(0, 13, 250, 8), width: 100 },
  ])(
    'a steady stream gives a steady rate, no bucket at 0 between two that are not: $name',
    ({ r, width }) => {
      const tb = new TimeBuckets(width);
      addOutputTokens(tb, r);
      const totals = tb.totals();
      expect(totals.reduce((a, b) => a + b, 0)).toBeCloseTo(r.outputTokens, 9);
      // between the first and the last chunk every bucket holds the stream's rate
      const perMs = r.outputTokens / r.chunkMs.length / (r.chunkMs[1]! - r.chunkMs[0]!);
      const inner = totals.slice(1, Math.floor(r.chunkMs.at(-1)! / width));
      expect(inner.length).toBeGreaterThan(5);
      for (const v of inner) expect(v).toBeCloseTo(perMs * width, 9);
      // the old reading, tokens at their chunk's instant, dipped to 0 here
      const byInstant = new TimeBuckets(width);
      for (const t of r.chunkMs) byInstant.addAt(t, r.outputTokens / r.chunkMs.length);
      expect(byInstant.totals().slice(1, -1)).toContain(0);
    },
  );
});

describe('promptRanges', () => {
  it.each([
    {
      name: 'sorted, as half-open ranges',
      buckets: [
        { minTokens: 512, maxTokens: 1024 },
        { minTokens: 256, maxTokens: 512 },
      ],
      out: [
        [256, 512],
        [512, 1024],
      ],
    },
    {
      name: 'an empty or overlapping bucket is dropped',
      buckets: [
        { minTokens: 0, maxTokens: 0 },
        { minTokens: 100, maxTokens: 300 },
        { minTokens: 200, maxTokens: 400 },
      ],
      out: [[100, 300]],
    },
  ])('$name', ({ buckets, out }) => {
    expect(promptRanges(buckets)).toEqual(out);
  });
});

describe('serverSeries', () => {
  const sample = (tMs: number, values: ServerSample['values']): ServerSample => ({
    tMs,
    engine: 'vllm',
    values,
  });
  it('turns the preemption counter into per-scrape increments (a reset counts from zero) and KV usage into %', () => {
    const s = serverSeries([
      sample(2000, { preemptionsTotal: 5, kvUsage: 0.5 }),
      sample(0, { preemptionsTotal: 0, kvUsage: 0.1, running: 3 }),
      sample(1000, { preemptionsTotal: 2, kvUsage: 0.25 }),
      sample(3000, { preemptionsTotal: 1, kvUsage: 0.75 }),
    ]);
    expect(s.preemptions).toEqual({ x: [0, 1, 2, 3], y: [0, 2, 3, 1] });
    expect(s.kvUsagePct).toEqual({ x: [0, 1, 2, 3], y: [10, 25, 50, 75] });
    expect(s.running).toEqual({ x: [0], y: [3] });
  });
  it('keeps KV usage that is already a percentage', () => {
    expect(serverSeries([sample(0, { kvUsage: 40 }), sample(1000, { kvUsage: 80 })]).kvUsagePct.y).toEqual([
      40, 80,
    ]);
  });
});

describe('StrideSample', () => {
  it('keeps every value under the cap, then an evenly spaced subsample', () => {
    const small = new StrideSample(10);
    for (let i = 0; i < 7; i++) small.add(i);
    expect(Array.from(small.sorted())).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const big = new StrideSample(100);
    for (let i = 0; i < 10_000; i++) big.add(i);
    const kept = Array.from(big.sorted());
    expect(kept.length).toBeLessThan(100);
    expect(kept.length).toBeGreaterThan(30);
    const gaps = new Set(kept.slice(1).map((v, i) => v - kept[i]!));
    expect(gaps.size).toBe(1);
  });
});

describe('cdfFromHistogram', () => {
  const records = Array.from({ length: 50 }, (_, i) => syntheticRecord(i));
  const summary = summarizeRecords(records, syntheticMeta());

  it('reads the distribution back from the summary histogram (within its precision)', () => {
    const { x, y } = cdfFromHistogram(summary.histograms.ttft);
    const ttfts = records.map((r) => r.firstTokenMs! - r.sentMs).sort((a, b) => a - b);
    // Nearest rank of the plain sorted values, at a few percentiles.
    for (const p of [10, 50, 90, 100]) {
      const exact = ttfts[Math.ceil((p / 100) * ttfts.length) - 1]!;
      expect(Math.abs(x[y.indexOf(p)]! - exact) / exact, `p${p}`).toBeLessThan(0.01);
    }
  });

  it('is what a run without records charts', () => {
    const builder = new RunChartBuilder(summary);
    const charts = builder.finish();
    expect(charts.recordsRead).toBe(0);
    expect(charts.cdf.e2el.x.length).toBeGreaterThan(100);
    expect(cdfFromHistogram(undefined)).toEqual({ x: [], y: [] });
    expect(cdfFromHistogram('not base64 at all')).toEqual({ x: [], y: [] });
  });
});
