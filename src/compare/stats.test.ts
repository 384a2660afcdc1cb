import { describe, expect, it } from 'vitest';
import { bootstrapQuantileChange, resampleQuantile } from './bootstrap.js';
import {
  mannWhitneyU,
  newcombeDifference,
  normalCdf,
  quantileSorted,
  rateRatioChange,
  seededRandom,
  sortedCopy,
  wilsonInterval,
  Z95,
} from './stats.js';

/** Φ by Simpson integration of the normal density: slow, obviously right. */
function referenceNormalCdf(z: number): number {
  const steps = 20000;
  const lo = -12;
  const h = (z - lo) / steps;
  const pdf = (x: number) => Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
  let sum = pdf(lo) + pdf(z);
  for (let i = 1; i < steps; i++) sum += (i % 2 === 1 ? 4 : 2) * pdf(lo + i * h);
  return (sum * h) / 3;
}

/** Mann–Whitney by counting pairs and ties directly, as in a textbook. */
function referenceMannWhitney(a: number[], b: number[]) {
  let uB = 0;
  for (const x of a) for (const y of b) uB += y > x ? 1 : y === x ? 0.5 : 0;
  const n = a.length + b.length;
  const ties = new Map<number, number>();
  for (const v of [...a, ...b]) ties.set(v, (ties.get(v) ?? 0) + 1);
  let tieTerm = 0;
  for (const t of ties.values()) tieTerm += t ** 3 - t;
  const mean = (a.length * b.length) / 2;
  const sd = Math.sqrt(((a.length * b.length) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  const z = sd === 0 ? 0 : (Math.sign(uB - mean) * Math.max(0, Math.abs(uB - mean) - 0.5)) / sd;
  return { uB, z, p: 2 * (1 - referenceNormalCdf(Math.abs(z))) };
}

/** numpy's default percentile (linear), written the long way. */
function referenceQuantile(values: number[], q: number): number {
  const s = [...values].sort((x, y) => x - y);
  const pos = q * (s.length - 1);
  const below = s[Math.floor(pos)] as number;
  const above = s[Math.ceil(pos)] as number;
  return below + (above - below) * (pos - Math.floor(pos));
}

describe('normalCdf', () => {
  it.each([-3, -1.96, -0.5, 0, 0.3, 1, 1.6448536, 2.5758293, 4])('matches integration at z=%s', (z) => {
    expect(normalCdf(z)).toBeCloseTo(referenceNormalCdf(z), 6);
  });
  it('puts 95% within ±Z95', () => {
    expect(normalCdf(Z95) - normalCdf(-Z95)).toBeCloseTo(0.95, 6);
  });
});

describe('mannWhitneyU', () => {
  // p-values from scipy.stats.mannwhitneyu(b, a, method='asymptotic', use_continuity=True).
  const cases: Array<{ a: number[]; b: number[]; uB: number; p: number }> = [
    { a: [1, 2, 3], b: [4, 5, 6], uB: 9, p: 0.08085559837005224 },
    { a: [19, 22, 16, 29, 24], b: [20, 11, 17, 12], uB: 3, p: 0.11134688653314041 },
    { a: [1, 2, 2, 3, 3, 3, 4], b: [2, 3, 3, 4, 4, 5, 5, 6], uB: 45, p: 0.04988443697992588 },
    { a: [7, 7, 7, 7], b: [7, 7, 7, 8], uB: 10, p: 0.4532547047537364 },
    {
      a: [85, 90, 78, 92, 88, 76, 95, 89],
      b: [70, 72, 80, 65, 78, 74, 69, 77, 71],
      uB: 4.5,
      p: 0.0028375834054900928,
    },
  ];
  it.each(cases)('textbook case uB=$uB p=$p', ({ a, b, uB, p }) => {
    const r = mannWhitneyU(a, b);
    const ref = referenceMannWhitney(a, b);
    expect(r.uB).toBe(uB);
    expect(r.uB).toBe(ref.uB);
    expect(r.uA + r.uB).toBe(a.length * b.length);
    expect(r.z).toBeCloseTo(ref.z, 10);
    expect(r.p).toBeCloseTo(p, 6);
    expect(r.p).toBeCloseTo(ref.p, 6);
  });
  it('agrees with pair counting on random samples with ties', () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 20; trial++) {
      const a = Array.from({ length: 5 + trial }, () => Math.floor(random() * 10));
      const b = Array.from({ length: 3 + 2 * trial }, () => Math.floor(random() * 10) + (trial % 3));
      const r = mannWhitneyU(a, b);
      const ref = referenceMannWhitney(a, b);
      expect(r.uB).toBeCloseTo(ref.uB, 9);
      expect(r.p).toBeCloseTo(ref.p, 6);
    }
  });
  it('gives p = 1 when every value is equal', () => {
    expect(mannWhitneyU([3, 3, 3], [3, 3]).p).toBe(1);
  });
  it('reports the direction of the shift', () => {
    expect(mannWhitneyU([1, 2, 3, 4], [5, 6, 7, 8]).probBGreater).toBe(1);
    expect(mannWhitneyU([5, 6, 7, 8], [1, 2, 3, 4]).probBGreater).toBe(0);
  });
});

describe('proportion intervals', () => {
  // Newcombe (1998), Statistics in Medicine 17:873, Table II, method 10.
  const newcombe: Array<[number, number, number, number, number, number]> = [
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
    [6, 7, 2, 7, 0.0582, 0.8062],
    [5, 56, 0, 29, -0.0381, 0.1926],
    [0, 10, 0, 20, -0.1611, 0.2775],
    [0, 10, 0, 10, -0.2775, 0.2775],
  ];
  it.each(newcombe)('Newcombe %i/%i − %i/%i', (x1, n1, x2, n2, lo, hi) => {
    // newcombeDifference(xA, nA, xB, nB) is B − A: the paper's p1 − p2 has p1 as B.
    const [l, u] = newcombeDifference(x2, n2, x1, n1);
    expect(l).toBeCloseTo(lo, 4);
    expect(u).toBeCloseTo(hi, 4);
  });
  it.each([
    [81, 263],
    [0, 15],
    [15, 15],
    [1, 2],
  ])('Wilson %i/%i solves the score equation', (x, n) => {
    // The Wilson bounds are the p where |x/n − p| = z·sqrt(p(1−p)/n).
    const [l, u] = wilsonInterval(x, n);
    for (const bound of [l, u]) {
      if (bound === 0 || bound === 1) {
        expect(x === 0 || x === n).toBe(true);
        continue;
      }
      expect(Math.abs(x / n - bound)).toBeCloseTo(Z95 * Math.sqrt((bound * (1 - bound)) / n), 9);
    }
  });
});

describe('rateRatioChange', () => {
  it('is the classic Poisson interval for counts', () => {
    const ci = rateRatioChange(
      { rate: 100 / 10, relativeVariance: 1 / 100 },
      { rate: 150 / 10, relativeVariance: 1 / 150 },
    );
    const se = Math.sqrt(1 / 100 + 1 / 150);
    expect(ci?.[0]).toBeCloseTo(1.5 * Math.exp(-Z95 * se) - 1, 12);
    expect(ci?.[1]).toBeCloseTo(1.5 * Math.exp(Z95 * se) - 1, 12);
    expect(ci?.[0]).toBeGreaterThan(0);
  });
  it('is undefined for a zero rate', () => {
    expect(
      rateRatioChange({ rate: 0, relativeVariance: 1 }, { rate: 1, relativeVariance: 1 }),
    ).toBeUndefined();
  });
});

describe('quantiles and the bootstrap', () => {
  it.each([0, 0.1, 0.5, 0.9, 0.99, 1])('quantileSorted(q=%s) matches the linear definition', (q) => {
    const random = seededRandom(3);
    const values = Array.from({ length: 37 }, () => random() * 100);
    expect(quantileSorted(sortedCopy(values), q)).toBeCloseTo(referenceQuantile(values, q), 12);
  });

  it.each([0.5, 0.9, 0.99])('resampleQuantile(q=%s) equals sorting the same resample', (q) => {
    const random = seededRandom(11);
    const sorted = sortedCopy(Array.from({ length: 200 }, () => Math.round(random() * 50)));
    const counts = new Uint32Array(sorted.length);
    for (let trial = 0; trial < 10; trial++) {
      // Same seed twice: once through the counting walk, once as explicit indices.
      const seed = 100 + trial;
      const fast = resampleQuantile(sorted, q, seededRandom(seed), counts);
      const replay = seededRandom(seed);
      const resample = Array.from(
        { length: sorted.length },
        () => sorted[Math.floor(replay() * sorted.length)] as number,
      );
      expect(fast).toBeCloseTo(referenceQuantile(resample, q), 12);
    }
  });

  it('finds a real shift of the p99 and not a fake one', () => {
    const random = seededRandom(5);
    const base = sortedCopy(Array.from({ length: 400 }, () => 100 + random() * 100));
    const slower = sortedCopy(Array.from({ length: 400 }, () => 150 + random() * 100));
    const same = sortedCopy(Array.from({ length: 400 }, () => 100 + random() * 100));
    const shifted = bootstrapQuantileChange(base, slower, 0.99, { random: seededRandom(1), resamples: 1000 });
    expect(shifted?.ci[0]).toBeGreaterThan(0);
    expect(shifted?.change).toBeCloseTo(shifted ? shifted.candidate / shifted.baseline - 1 : 0, 12);
    const flat = bootstrapQuantileChange(base, same, 0.5, { random: seededRandom(1), resamples: 1000 });
    expect(flat?.ci[0]).toBeLessThan(0);
    expect(flat?.ci[1]).toBeGreaterThan(0);
  });

  it('repeats exactly with the same seed', () => {
    const a = sortedCopy([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const b = sortedCopy([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const one = bootstrapQuantileChange(a, b, 0.5, { random: seededRandom(9), resamples: 200 });
    const two = bootstrapQuantileChange(a, b, 0.5, { random: seededRandom(9), resamples: 200 });
    expect(one).toEqual(two);
  });
});
