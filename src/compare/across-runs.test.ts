import { describe, expect, it } from 'vitest';
import { describeRuns, runsToResolve, tQuantile975, welchDifference } from './across-runs.js';
import { seededRandom } from './stats.js';

/** Standard normal from two uniforms (Box–Muller), for coverage checks. */
function normal(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

describe('tQuantile975', () => {
  // Published two-sided 95 % critical values of Student's t.
  it.each([
    [1, 12.706],
    [2, 4.303],
    [4, 2.776],
    [10, 2.228],
    [30, 2.042],
    [40, 2.021],
    [60, 2.0],
    [120, 1.98],
    [1e6, 1.96],
  ])('df %d → %d', (df, t) => {
    expect(tQuantile975(df)).toBeCloseTo(t, 2);
  });
  it('interpolates fractional (Welch) degrees of freedom between its neighbours', () => {
    const t = tQuantile975(4.5);
    expect(t).toBeLessThan(tQuantile975(4));
    expect(t).toBeGreaterThan(tQuantile975(5));
  });
});

describe('describeRuns', () => {
  it('mean, sample std, CV and the t interval by hand', () => {
    const d = describeRuns([10, 12, 14]);
    expect(d.mean).toBe(12);
    expect(d.std).toBeCloseTo(2, 12);
    expect(d.cv).toBeCloseTo(2 / 12, 12);
    const half = (4.3027 * 2) / Math.sqrt(3);
    expect(d.ci?.[0]).toBeCloseTo(12 - half, 3);
    expect(d.ci?.[1]).toBeCloseTo(12 + half, 3);
  });
  it('one run: no interval; non-finite values are left out', () => {
    expect(describeRuns([5, Number.NaN]).ci).toBeUndefined();
    expect(describeRuns([5, Number.NaN]).n).toBe(1);
  });
});

describe('welchDifference', () => {
  it('matches a hand-computed Welch interval', () => {
    const a = [100, 104, 98];
    const b = [80, 83, 79];
    const d = welchDifference(a, b);
    // means 100.667 and 80.667; variances 9.333 and 4.333
    const va = 9.3333 / 3;
    const vb = 4.3333 / 3;
    const df = (va + vb) ** 2 / (va ** 2 / 2 + vb ** 2 / 2);
    expect(d.diff).toBeCloseTo(-20, 6);
    expect(d.df).toBeCloseTo(df, 2);
    expect(d.diffCi?.[1]).toBeLessThan(0);
    expect(d.significant).toBe(true);
    expect(d.change).toBeCloseTo(-20 / 100.6667, 4);
  });
  it('fewer than two runs on a side gives no interval and no verdict', () => {
    const d = welchDifference([100], [80, 81]);
    expect(d.diffCi).toBeUndefined();
    expect(d.significant).toBe(false);
  });
  it('covers the true difference about 95 % of the time (3 runs a side, unequal spreads)', () => {
    const rand = seededRandom(7);
    let covered = 0;
    const trials = 4000;
    for (let t = 0; t < trials; t++) {
      const a = [0, 0, 0].map(() => 100 + 5 * normal(rand));
      const b = [0, 0, 0].map(() => 110 + 2 * normal(rand));
      const d = welchDifference(a, b);
      if (d.diffCi && d.diffCi[0] <= 10 && 10 <= d.diffCi[1]) covered++;
    }
    // Welch is slightly conservative at 3 runs a side.
    expect(covered / trials).toBeGreaterThan(0.935);
    expect(covered / trials).toBeLessThan(0.99);
  });
  it('an A/A pair is called significant about 5 % of the time, not more', () => {
    const rand = seededRandom(11);
    let calls = 0;
    const trials = 4000;
    for (let t = 0; t < trials; t++) {
      const a = [0, 0, 0, 0, 0].map(() => 50 + 3 * normal(rand));
      const b = [0, 0, 0, 0, 0].map(() => 50 + 3 * normal(rand));
      if (welchDifference(a, b).significant) calls++;
    }
    expect(calls / trials).toBeLessThan(0.065);
  });
  it('says how many runs would resolve a difference it cannot call', () => {
    const d = welchDifference([100, 110, 90], [104, 114, 94]);
    expect(d.significant).toBe(false);
    // (1.96 + 0.84)^2 * (100 + 100) / 16 ≈ 98.1
    expect(d.runsNeeded).toBe(99);
    expect(runsToResolve(0, 1, 1)).toBeUndefined();
  });
});
