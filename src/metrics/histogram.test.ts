import { encodeIntoCompressedBase64, Int32Histogram } from 'hdr-histogram-js';
import { describe, expect, test } from 'vitest';
import { histogramTolerance, referenceStats, seeded } from '../../test/fixtures/records.js';
import { LatencyHistogram } from './histogram.js';
import { RunningStats } from './running-stats.js';

const KEYS = ['p50', 'p90', 'p95', 'p99', 'p999'] as const;

/** Log-uniform values from 0.05 ms to 60 s, plus a cluster of equal values. */
function randomLatencies(seed: number, n: number): number[] {
  const rnd = seeded(seed);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(i % 17 === 0 ? 20 : 0.05 * 1.2e6 ** rnd());
  return out;
}

function expectMatchesReference(h: LatencyHistogram, values: number[]): void {
  const ref = referenceStats(values);
  const got = h.stats();
  expect(got.count).toBe(ref.count);
  expect(got.min).toBe(ref.min);
  expect(got.max).toBe(ref.max);
  expect(got.mean).toBeCloseTo(ref.mean, 6);
  expect(got.std).toBeCloseTo(ref.std, 6);
  for (const k of KEYS) expect(Math.abs(got[k] - ref[k])).toBeLessThanOrEqual(histogramTolerance(ref[k]));
}

describe('LatencyHistogram', () => {
  test.each([1, 2, 3])('percentiles match the sorted-array reference within the bound (seed %i)', (seed) => {
    const values = randomLatencies(seed, 20_000);
    const h = new LatencyHistogram();
    for (const v of values) h.record(v);
    expectMatchesReference(h, values);
  });

  test('percentiles are right to the millisecond up to 10 s', () => {
    const rnd = seeded(7);
    for (let trial = 0; trial < 200; trial++) {
      const values = Array.from({ length: 1 + Math.floor(rnd() * 50) }, () => rnd() * 10_000);
      const h = new LatencyHistogram();
      for (const v of values) h.record(v);
      const ref = referenceStats(values);
      const got = h.stats();
      for (const k of KEYS) expect(Math.abs(got[k] - ref[k])).toBeLessThan(0.5);
    }
  });

  test('values below 16 ms are kept to the microsecond', () => {
    const values = [0.001, 0.5, 1.234, 15.999, 3.3, 7.25];
    const h = new LatencyHistogram();
    for (const v of values) h.record(v);
    const ref = referenceStats(values);
    for (const k of KEYS) expect(Math.abs(h.stats()[k] - ref[k])).toBeLessThanOrEqual(0.0005);
  });

  test('a weighted value counts as that many values', () => {
    const weighted = new LatencyHistogram();
    const expanded: number[] = [];
    const rnd = seeded(11);
    for (let i = 0; i < 500; i++) {
      const v = rnd() * 300;
      const w = 1 + Math.floor(rnd() * 5);
      weighted.record(v, w);
      for (let j = 0; j < w; j++) expanded.push(v);
    }
    expectMatchesReference(weighted, expanded);
  });

  test('merging equals recording everything in one histogram', () => {
    const values = randomLatencies(5, 9_000);
    const parts = [new LatencyHistogram(), new LatencyHistogram(), new LatencyHistogram()];
    const all = new LatencyHistogram();
    values.forEach((v, i) => {
      parts[i % 3]?.record(v);
      all.record(v);
    });
    const merged = new LatencyHistogram();
    for (const p of parts) merged.merge(p);
    const a = merged.stats();
    const b = all.stats();
    for (const k of KEYS) expect(a[k]).toBe(b[k]);
    expect(a.count).toBe(b.count);
    expect(a.mean).toBeCloseTo(b.mean, 9);
    expect(a.std).toBeCloseTo(b.std, 9);
    expect([a.min, a.max]).toEqual([b.min, b.max]);
  });

  test('encode/decode keeps percentiles, and exact stats when given', () => {
    const values = randomLatencies(9, 3_000);
    const h = new LatencyHistogram();
    for (const v of values) h.record(v);
    const exact = LatencyHistogram.decode(h.encode(), h.stats());
    expect(exact.stats()).toEqual(h.stats());
    const estimated = LatencyHistogram.decode(h.encode());
    const s = estimated.stats();
    for (const k of KEYS) expect(s[k]).toBeCloseTo(h.stats()[k], 1);
    expect(s.count).toBe(values.length);
  });

  test('memory does not grow with the number of values', () => {
    const small = new LatencyHistogram();
    const large = new LatencyHistogram();
    const rnd = seeded(3);
    small.record(9_999);
    large.record(9_999);
    for (let i = 0; i < 1_000; i++) small.record(rnd() * 10_000);
    for (let i = 0; i < 200_000; i++) large.record(rnd() * 10_000);
    expect(large.footprintBytes).toBe(small.footprintBytes);
    expect(large.footprintBytes).toBeLessThan(1_000_000);
  });

  test("the fast recording path indexes exactly like HdrHistogram's recordValue", () => {
    const rnd = seeded(13);
    const mine = new LatencyHistogram();
    const lib = new Int32Histogram(1, 2, 4);
    lib.autoResize = true;
    const micros = [0, 1, 16_383, 16_384, 32_767, 32_768, 2 ** 31 - 1, 2 ** 31, 2 ** 35];
    for (let i = 0; i < 50_000; i++) micros.push(Math.floor(2 ** (rnd() * 36)));
    for (const us of micros) {
      mine.record(us / 1000);
      lib.recordValue(us);
    }
    expect(mine.encode()).toBe(encodeIntoCompressedBase64(lib));
  });

  test('values held back before the counts array is built give the same histogram as recording at once', () => {
    // Read after every value (built at once) against read only at the end, for runs below and
    // above the 4,096 values held back, with weighted values among them.
    for (const n of [1, 300, 4_096, 4_097, 9_000]) {
      const values = randomLatencies(n, n);
      const eager = new LatencyHistogram();
      const held = new LatencyHistogram();
      const heldToMerge = new LatencyHistogram();
      eager.stats();
      values.forEach((v, i) => {
        const weight = i % 1_000 === 999 ? 3 : 1;
        eager.record(v, weight);
        held.record(v, weight);
        heldToMerge.record(v, weight);
      });
      expect(held.encode(), String(n)).toBe(eager.encode());
      expect(held.stats(), String(n)).toEqual(eager.stats());
      const merged = new LatencyHistogram();
      merged.record(7);
      merged.merge(heldToMerge);
      const mergedEager = new LatencyHistogram();
      mergedEager.record(7);
      mergedEager.stats();
      mergedEager.merge(eager);
      expect(merged.encode(), String(n)).toBe(mergedEager.encode());
    }
  });

  test('whatever its hold limit, a histogram built from held values is the one recording at once gives', () => {
    // Hold limits take 16 turns (4,096–6,016 values); values from 50 µs to a minute, so the
    // counts array is resized when built (once, to the largest) and on the way (eager).
    const values = randomLatencies(5, 6_100);
    const eager = new LatencyHistogram();
    eager.stats();
    for (const v of values) eager.record(v);
    // One histogram made per turn, so that the 16 in a row take every limit.
    for (let turn = 0; turn < 16; turn++) {
      const held = new LatencyHistogram();
      for (const v of values) held.record(v);
      expect(held.encode(), String(turn)).toBe(eager.encode());
      expect(held.footprintBytes, String(turn)).toBe(eager.footprintBytes);
    }
  });

  test('empty gives zeros; negative and NaN values do not poison it', () => {
    expect(new LatencyHistogram().stats()).toEqual(referenceStats([]));
    const h = new LatencyHistogram();
    h.record(-5);
    h.record(Number.NaN);
    h.record(2);
    expect(h.stats()).toMatchObject({ count: 2, min: 0, max: 2, mean: 1 });
  });
});

describe('RunningStats', () => {
  test('merge of parts equals one pass (Chan), and fromLatencyStats round-trips', () => {
    const rnd = seeded(21);
    const values = Array.from({ length: 1000 }, () => rnd() * 1000 - 100);
    const one = new RunningStats();
    const a = new RunningStats();
    const b = new RunningStats();
    values.forEach((v, i) => {
      one.add(v);
      (i < 300 ? a : b).add(v);
    });
    a.merge(b);
    const ref = referenceStats(values);
    for (const s of [one, a]) {
      expect(s.count).toBe(ref.count);
      expect(s.mean).toBeCloseTo(ref.mean, 9);
      expect(s.std).toBeCloseTo(ref.std, 9);
      expect([s.min, s.max]).toEqual([ref.min, ref.max]);
    }
    const back = RunningStats.fromLatencyStats({ ...ref });
    expect(back.std).toBeCloseTo(ref.std, 9);
    expect(back.mean).toBe(ref.mean);
  });
});
