import { describe, expect, it } from 'vitest';
import { parseArgv } from '../flags/index.js';
import type { SweepPointSummary } from '../types.js';
import {
  bisectNext,
  capacityAtSlo,
  doublingConcurrencies,
  evenlySpacedRates,
  explosion,
  findKnee,
  round3,
  sloBracket,
} from './analysis.js';
import { resolveSweepPlan, sweepCommand } from './command.js';

function point(load: number, over: Partial<SweepPointSummary> = {}): SweepPointSummary {
  return {
    phase: 'step',
    mode: 'concurrency',
    load,
    dir: `d${load}`,
    runId: 'x',
    completed: 10,
    failed: 0,
    errorRate: 0,
    requestThroughput: load,
    outputThroughput: load * 100,
    meanTtftMs: 50,
    p99TtftMs: 80,
    meanTpotMs: 10,
    meanE2elMs: 1000,
    p99E2elMs: 1200,
    attainment: 1,
    requestGoodput: load,
    passes: true,
    ...over,
  };
}

describe('plans', () => {
  it('doubles up to the maximum, keeping it', () => {
    expect(doublingConcurrencies(16)).toEqual([1, 2, 4, 8, 16]);
    expect(doublingConcurrencies(12)).toEqual([1, 2, 4, 8, 12]);
    expect(doublingConcurrencies(1)).toEqual([1]);
  });
  it('spaces rates evenly above the synchronous rate up to the maximum', () => {
    expect(evenlySpacedRates(2, 12, 5)).toEqual([4, 6, 8, 10, 12]);
    expect(evenlySpacedRates(5, 5, 3)).toEqual([5]);
    expect(evenlySpacedRates(1, 2, 3)).toEqual([1.33, 1.67, 2]);
  });
  it('round3 keeps three significant digits', () => {
    for (const [x, r] of [
      [1234.5, 1230],
      [0.012345, 0.0123],
      [6.54321, 6.54],
      [0, 0],
    ] as const) {
      expect(round3(x)).toBe(r);
    }
  });
});

describe('findKnee (Kneedle on mean E2EL vs throughput)', () => {
  it('finds the bend of a hockey stick', () => {
    // throughput saturates at 8 while latency climbs after c=8
    const pts = [1, 2, 4, 8, 16, 32].map((c) =>
      point(c, { requestThroughput: Math.min(c, 8), meanE2elMs: c <= 8 ? 1000 + c * 10 : 1000 * (c / 8) }),
    );
    expect(findKnee(pts)?.load).toBe(8);
  });
  it('reports none when latency stays flat (noise), and a knee when it jumps after a load', () => {
    const flat = [1, 2, 4, 8].map((c) =>
      point(c, { requestThroughput: c, meanE2elMs: c === 2 ? 1100 : 1000 }),
    );
    expect(findKnee(flat)).toBeUndefined();
    const jump = [1, 2, 4, 8].map((c) =>
      point(c, { requestThroughput: c, meanE2elMs: c === 8 ? 1500 : 1000 }),
    );
    expect(findKnee(jump)?.load).toBe(4);
  });
  it('reports none for a straight line or too few points', () => {
    const line = [1, 2, 3, 4].map((c) => point(c, { requestThroughput: c, meanE2elMs: 100 * c }));
    expect(findKnee(line)).toBeUndefined();
    expect(findKnee([point(1), point(2)])).toBeUndefined();
  });
});

describe('capacity at SLO', () => {
  const pts = [1, 2, 4, 8, 16].map((c) => point(c, { passes: c <= 4, attainment: c <= 4 ? 0.99 : 0.5 }));
  it('brackets between the last passing and first failing load', () => {
    const { pass, fail } = sloBracket(pts);
    expect([pass?.load, fail?.load]).toEqual([4, 8]);
  });
  it('bisects concurrency to adjacent integers, rates to 5%', () => {
    expect(bisectNext('concurrency', 4, 8)).toBe(6);
    expect(bisectNext('concurrency', 6, 7)).toBeUndefined();
    expect(bisectNext('rate', 4, 8)).toBe(6);
    expect(bisectNext('rate', 9.8, 10)).toBeUndefined();
  });
  it('is the last passing load, resolved only when the gap is closed', () => {
    expect(capacityAtSlo(pts, 'concurrency')).toEqual({
      mode: 'concurrency',
      load: 4,
      attainment: 0.99,
      firstFailingLoad: 8,
      resolved: false,
    });
    const closed = [...pts, point(5, { passes: false }), point(6, { passes: false })];
    expect(capacityAtSlo(closed, 'concurrency')).toMatchObject({
      load: 4,
      firstFailingLoad: 5,
      resolved: true,
    });
    expect(capacityAtSlo([point(1, { passes: false })], 'concurrency')).toBeUndefined();
    expect(capacityAtSlo([point(1), point(2)], 'concurrency')).toMatchObject({ load: 2, resolved: false });
  });
});

describe('explosion', () => {
  const limits = { maxErrorRate: 0.2, latencyFactor: 10 };
  it('stops on errors or exploding latency, not before', () => {
    expect(explosion(point(8, { errorRate: 0.5 }), point(1), limits)).toMatch(/errors exploded: 50%/);
    expect(explosion(point(8, { meanE2elMs: 20_000 }), point(1), limits)).toMatch(/latency exploded/);
    expect(explosion(point(8, { meanE2elMs: 5000, errorRate: 0.1 }), point(1), limits)).toBeUndefined();
    expect(explosion(point(8, { errorRate: 0.5 }), point(1), limits)).toMatch(/at concurrency 8$/);
    expect(explosion(point(8, { meanE2elMs: 20_000 }), point(1), limits, true)).toMatch(
      /at 8 sessions at once, .* at 1 sessions at once$/,
    );
    const rate = point(2.5, { mode: 'rate', errorRate: 0.5 });
    expect(explosion(rate, undefined, limits)).toMatch(/at rate 2.5 req\/s$/);
    expect(explosion(rate, undefined, limits, true)).toMatch(/at 2.5 sessions\/s$/);
  });
});

describe('resolveSweepPlan', () => {
  const defaults = {
    minAttainment: 0.9,
    bisect: 3,
    maxErrorRate: 0.2,
    latencyFactor: 10,
    steps: 5,
    throughputConcurrency: 64,
  };
  it('reads the three kinds of sweep', () => {
    expect(resolveSweepPlan({ ...defaults, concurrency: ['4', '1', '2'] }).concurrencies).toEqual([4, 1, 2]);
    expect(resolveSweepPlan({ ...defaults, concurrencyMax: 8 }).concurrencies).toEqual([1, 2, 4, 8]);
    expect(resolveSweepPlan({ ...defaults, rateMax: '20' })).toMatchObject({
      mode: 'rate',
      rateMax: 20,
      steps: 5,
    });
    expect(resolveSweepPlan({ ...defaults, rateMax: 'auto' }).rateMax).toBeUndefined();
  });
  it('rejects contradictions and bad values with the flag named', () => {
    expect(() => resolveSweepPlan({ ...defaults, concurrency: ['1'], rateMax: '2' })).toThrow(/--rate-max/);
    expect(() => resolveSweepPlan({ ...defaults, concurrency: ['x'] })).toThrow(/--concurrency/);
    expect(() => resolveSweepPlan({ ...defaults, rateMax: '-1' })).toThrow(/--rate-max/);
    // Bounds are the option entries': the parser refuses the value before a plan is made.
    expect(() => parseArgv(sweepCommand, ['--min-attainment', '2'])).toThrow(/--min-attainment/);
    expect(() => parseArgv(sweepCommand, ['--concurrency-max', '0'])).toThrow(/--concurrency-max/);
  });
});
