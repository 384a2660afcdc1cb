import { describe, expect, it } from 'vitest';
import { cholesky, expectedImprovement, fitGaussianProcess } from './gp.js';

describe('gaussian process', () => {
  it('interpolates its observations and is unsure far from them', () => {
    const xs = [[0], [0.25], [0.5], [0.75], [1]];
    const f = (x: number) => Math.sin(3 * x) * 10 + 50;
    const gp = fitGaussianProcess(
      xs,
      xs.map(([x]) => f(x!)),
    );
    for (const [x] of xs) {
      const p = gp.predict([x!]);
      expect(p.mean).toBeCloseTo(f(x!), 1);
      expect(p.std).toBeLessThan(0.5);
    }
    // Between two observations the prediction is near the function, with more doubt.
    const mid = gp.predict([0.375]);
    expect(Math.abs(mid.mean - f(0.375))).toBeLessThan(3);
    expect(mid.std).toBeGreaterThan(gp.predict([0.25]).std);
  });

  it('expected improvement favours a high mean or a wide doubt, and is never negative', () => {
    expect(expectedImprovement({ mean: 12, std: 1 }, 10)).toBeGreaterThan(
      expectedImprovement({ mean: 9, std: 1 }, 10),
    );
    expect(expectedImprovement({ mean: 9, std: 5 }, 10)).toBeGreaterThan(
      expectedImprovement({ mean: 9, std: 0.5 }, 10),
    );
    expect(expectedImprovement({ mean: 5, std: 0 }, 10)).toBe(0);
    expect(expectedImprovement({ mean: 11, std: 0 }, 10, 0)).toBe(1);
    // Reference value: EI(μ=0, σ=1, best=0, ξ=0) = φ(0) = 0.39894.
    expect(expectedImprovement({ mean: 0, std: 1 }, 0, 0)).toBeCloseTo(0.398942, 5);
  });

  it('cholesky factors a positive definite matrix and refuses one that is not', () => {
    const L = cholesky([
      [4, 2],
      [2, 3],
    ])!;
    expect(L[0]![0]).toBe(2);
    expect(L[1]![0]).toBe(1);
    expect(L[1]![1]).toBeCloseTo(Math.SQRT2, 12);
    expect(
      cholesky([
        [1, 2],
        [2, 1],
      ]),
    ).toBeUndefined();
  });
});
