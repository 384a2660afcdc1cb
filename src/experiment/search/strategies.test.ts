import { describe, expect, it } from 'vitest';
import { pointParams, spaceFromGrid } from './space.js';
import { type Evaluation, halvingBudgets, ranking, runStrategy } from './strategies.js';

// A 10 × 10 space with one peak: objective of (a, b) = 100 − (a − 7)² − 2(b − 3)².
const space = spaceFromGrid({
  a: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  b: [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
});
const truth = (index: number) => {
  const p = pointParams(space, index) as { a: number; b: number };
  return 100 - (p.a - 7) ** 2 - 2 * (p.b - 3) ** 2;
};
const peak = Array.from({ length: space.size }, (_, i) => i).reduce(
  (m, i) => (truth(i) > truth(m) ? i : m),
  0,
);

function counting(noisyBelow = 0) {
  const calls: Array<[number, number]> = [];
  // Short runs are noisier: a small budget blurs the objective by up to ±noisyBelow/budget.
  const evaluate = async (index: number, budget: number) => {
    calls.push([index, budget]);
    return truth(index) + (noisyBelow > 0 ? (((index * 7919) % 11) - 5) * (noisyBelow / budget) : 0);
  };
  return { calls, evaluate };
}

describe('search strategies', () => {
  it('numbers points as the grid does, the last parameter fastest', () => {
    expect(space.size).toBe(100);
    expect(pointParams(space, 0)).toEqual({ a: 0, b: 9 });
    expect(pointParams(space, 1)).toEqual({ a: 0, b: 8 });
    expect(pointParams(space, 10)).toEqual({ a: 1, b: 9 });
    expect(pointParams(space, peak)).toEqual({ a: 7, b: 3 });
  });

  it('grid measures every point at the full budget', async () => {
    const { calls, evaluate } = counting();
    const evals = await runStrategy('grid', space, evaluate, { fullBudget: 200 });
    expect(calls).toHaveLength(100);
    expect(new Set(calls.map(([, b]) => b))).toEqual(new Set([200]));
    expect(ranking(evals)[0]!.index).toBe(peak);
  });

  it('successive halving runs short for all, longer for the best, and finds the peak for far fewer requests', async () => {
    expect(halvingBudgets(100, 200, 2, 8)).toEqual([8, 13, 25, 50, 100, 200]);
    const { calls, evaluate } = counting(40);
    const evals = await runStrategy('halving', space, evaluate, { fullBudget: 200, minBudget: 8 });
    const perRound = [0, 1, 2, 3, 4, 5].map((r) => evals.filter((e: Evaluation) => e.round === r).length);
    expect(perRound).toEqual([100, 50, 25, 13, 7, 4]);
    // Each round keeps the best of the one before.
    for (let r = 1; r < 6; r++) {
      const before = evals.filter((e) => e.round === r - 1).sort((x, y) => y.objective - x.objective);
      const kept = new Set(evals.filter((e) => e.round === r).map((e) => e.index));
      expect(kept).toEqual(new Set(before.slice(0, kept.size).map((e) => e.index)));
    }
    const top = ranking(evals)[0]!;
    expect(top.index).toBe(peak);
    expect(top.budget).toBe(200);
    const requests = calls.reduce((s, [, b]) => s + b, 0);
    expect(requests).toBeLessThan(0.25 * 100 * 200);
  });

  it('Bayesian optimisation finds the peak in a fifth of the evaluations, the same way each time', async () => {
    const a = counting();
    const evals = await runStrategy('bayes', space, a.evaluate, {
      fullBudget: 200,
      evaluations: 20,
      seed: 3,
    });
    expect(a.calls).toHaveLength(20);
    expect(new Set(a.calls.map(([i]) => i)).size).toBe(20);
    expect(ranking(evals)[0]!.index).toBe(peak);
    const b = counting();
    await runStrategy('bayes', space, b.evaluate, { fullBudget: 200, evaluations: 20, seed: 3 });
    expect(b.calls).toEqual(a.calls);
  });

  it('stops when its signal is aborted', async () => {
    const ac = new AbortController();
    let n = 0;
    const evals = await runStrategy(
      'grid',
      space,
      async () => {
        if (++n === 5) ac.abort();
        return 1;
      },
      { fullBudget: 10, signal: ac.signal },
    );
    expect(evals).toHaveLength(5);
  });
});
