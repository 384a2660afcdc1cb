import { describe, expect, it } from 'vitest';
import { createRng } from './rng.js';
import { nextActiveMs, StagedArrivals, StageTally, stageWindows, targetAt } from './stages.js';

const stages = [
  { durationMs: 10_000, target: 10 },
  { durationMs: 0, target: 30 },
  { durationMs: 20_000, target: 50 },
  { durationMs: 10_000, target: 0 },
];
const windows = stageWindows(stages);

describe('stage windows and targets', () => {
  it.each([
    [0, 0],
    [5_000, 5],
    [10_000, 30], // the 0-length stage jumps
    [20_000, 40],
    [30_000, 50],
    [35_000, 25],
    [40_000, 0],
    [99_000, 0],
  ])('target at %i ms is %d', (t, want) => {
    expect(targetAt(windows, t)).toBeCloseTo(want, 9);
  });

  it.each([
    // worker, from → first time it may send
    [0, 0, 1_000], // needs a target ≥ 1: reached at 1 s of the first ramp
    [9, 0, 10_000],
    [10, 0, 10_000], // the jump to 30 at 10 s
    [29, 0, 10_000],
    [30, 0, 11_000], // 30 → 50 over 20 s: 31 at 11 s
    [49, 0, 30_000],
    [50, 0, Number.POSITIVE_INFINITY],
    [0, 39_000, 39_000], // ramp down: target 1 at 39 s
    [0, 39_900, Number.POSITIVE_INFINITY], // target 0.5
    [20, 33_000, 33_000], // 50 → 0 over 30–40 s: 35 at 33 s
    [40, 33_000, Number.POSITIVE_INFINITY],
  ])('worker %i from %i ms may send at %d', (worker, from, want) => {
    expect(nextActiveMs(windows, worker, from)).toBeCloseTo(want, 6);
  });
});

describe('StagedArrivals', () => {
  it('sends as many requests in each stage as its mean rate says (regular gaps), none after the end', () => {
    const rate = [
      { durationMs: 10_000, target: 20 },
      { durationMs: 20_000, target: 100 },
      { durationMs: 10_000, target: 0 },
    ];
    const a = new StagedArrivals(rate, 1e6, createRng(1).fork('arrivals'));
    const offsets: number[] = [];
    for (let k = 0; ; k++) {
      const t = a.offsetAt(k);
      if (!Number.isFinite(t)) break;
      offsets.push(t);
    }
    const count = (from: number, to: number) => offsets.filter((t) => t >= from && t < to).length;
    expect(count(0, 10_000)).toBeGreaterThanOrEqual(99); // 10 s × mean 10/s
    expect(count(0, 10_000)).toBeLessThanOrEqual(101);
    expect(Math.abs(count(10_000, 30_000) - 1200)).toBeLessThanOrEqual(1); // 20 s × mean 60/s
    expect(Math.abs(count(30_000, 40_000) - 500)).toBeLessThanOrEqual(1);
    // Non-decreasing, and random access gives the same values.
    expect(offsets.every((t, i) => i === 0 || t >= offsets[i - 1]!)).toBe(true);
    expect(a.offsetAt(5)).toBe(offsets[5]);
    // Within a ramp the rate grows: later seconds of the first stage hold more sends.
    expect(count(9_000, 10_000)).toBeGreaterThan(count(0, 1_000));
  });

  it('keeps Poisson arrivals at burstiness 1 near the mean count', () => {
    const a = new StagedArrivals([{ durationMs: 60_000, target: 50 }], 1, createRng(2).fork('arrivals'));
    let n = 0;
    while (Number.isFinite(a.offsetAt(n))) n++;
    expect(Math.abs(n - 1500)).toBeLessThan(150); // mean 1500, sd ≈ 39
  });
});

describe('StageTally', () => {
  it('counts sends per stage and integrates requests in flight over time', () => {
    const t = new StageTally(
      [
        { durationMs: 1000, target: 2 },
        { durationMs: 1000, target: 2 },
      ],
      'concurrency',
    );
    t.sent(0);
    t.sent(500);
    t.ended(1500); // 2 in flight over 500–1500
    t.sent(1600);
    t.ended(1800);
    t.ended(2000);
    const [a, b] = t.finish(2000);
    expect(a).toMatchObject({ sent: 2, achievedRate: 2, from: 0, to: 2, targetMean: 1, coveredMs: 1000 });
    expect(a!.meanInFlight).toBeCloseTo((500 * 1 + 500 * 2) / 1000, 9);
    expect(b!.sent).toBe(1);
    expect(b!.meanInFlight).toBeCloseTo((500 * 2 + 100 * 1 + 200 * 2 + 200 * 1) / 1000, 9);
  });
});
