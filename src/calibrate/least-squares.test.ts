import { describe, expect, it } from 'vitest';
import { levenbergMarquardt, solveLinear } from './least-squares.js';

describe('levenbergMarquardt', () => {
  it('recovers the parameters of models with an exact fit', () => {
    const xs = [0, 0.5, 1, 1.5, 2, 3, 4];
    const cases: Array<{
      name: string;
      model: (p: readonly number[], x: number) => number;
      truth: number[];
      start: number[];
    }> = [
      { name: 'line', model: ([a, b], x) => a! * x + b!, truth: [2, -1], start: [0, 0] },
      { name: 'decay', model: ([a, b], x) => a! * Math.exp(-b! * x), truth: [5, 0.7], start: [1, 0.1] },
      {
        name: 'roofline-like max',
        model: ([a, b, c], x) => Math.max(a! * x, b!) + c!,
        truth: [3, 4, 0.5],
        start: [1, 1, 1],
      },
    ];
    for (const c of cases) {
      const ys = xs.map((x) => c.model(c.truth, x));
      const fit = levenbergMarquardt((p) => xs.map((x, i) => c.model(p, x) - ys[i]!), c.start, {
        diffStep: 1e-6,
        tolerance: 1e-14,
        maxIterations: 200,
      });
      for (let j = 0; j < c.truth.length; j++)
        expect(fit.x[j], `${c.name} p${j}`).toBeCloseTo(c.truth[j]!, 4);
      expect(fit.cost, c.name).toBeLessThan(1e-8);
    }
  });

  it('finds the Rosenbrock valley floor, and counts its evaluations', () => {
    let calls = 0;
    const fit = levenbergMarquardt(
      ([x, y]) => {
        calls++;
        return [10 * (y! - x! * x!), 1 - x!];
      },
      [-1.2, 1],
      { diffStep: 1e-7, tolerance: 1e-15, maxIterations: 500 },
    );
    expect(fit.x[0]).toBeCloseTo(1, 5);
    expect(fit.x[1]).toBeCloseTo(1, 5);
    expect(fit.evaluations).toBe(calls);
    expect(fit.converged).toBe(true);
  });

  it('refuses non-finite trial steps instead of taking them', () => {
    // log(x) is NaN below 0: a full Gauss–Newton step from 3 towards the root at 1 overshoots there.
    const fit = levenbergMarquardt(([x]) => [Math.log(x!) * 10, x! - 1], [3], { diffStep: 1e-7 });
    expect(fit.x[0]).toBeCloseTo(1, 4);
    expect(() => levenbergMarquardt(() => [Number.NaN], [0])).toThrow(/not finite at the starting point/);
  });
});

describe('solveLinear', () => {
  it('solves a pivoting case and says when the matrix is singular', () => {
    expect(
      solveLinear(
        [
          [0, 2],
          [3, 1],
        ],
        [4, 5],
      ),
    ).toEqual([1, 2]);
    expect(
      solveLinear(
        [
          [1, 2],
          [2, 4],
        ],
        [1, 2],
      ),
    ).toBeUndefined();
  });
});
