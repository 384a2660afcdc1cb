/**
 * Nonlinear least squares by Levenberg–Marquardt, for the few parameters of a calibration:
 * minimise ½‖r(x)‖² where r is any residual function (here: a simulation per run), its
 * Jacobian taken by forward differences. Small on purpose (n ≤ ~10 parameters: the normal
 * equations are solved directly); pure, no I/O.
 *
 * @module
 */

export interface LeastSquaresOptions {
  /** Most Jacobians computed (each costs n + 1 evaluations, plus rejected trial steps) [50]. */
  maxIterations?: number;
  /** Forward-difference step, in the units of x [1e-3]. */
  diffStep?: number;
  /** Stop when a step lowers the cost by less than this fraction [1e-6]. */
  tolerance?: number;
  /** First damping factor [1e-2]. */
  lambda?: number;
}

export interface LeastSquaresResult {
  x: number[];
  residuals: number[];
  /** ½‖r‖² at x. */
  cost: number;
  iterations: number;
  /** Calls of the residual function. */
  evaluations: number;
  /** True when the cost stopped falling (tolerance), false when the iteration budget ran out. */
  converged: boolean;
}

const halfSquares = (r: readonly number[]): number => {
  let s = 0;
  for (const v of r) s += v * v;
  return s / 2;
};

/**
 * Minimises ½‖residuals(x)‖² from x0. Residuals that are not finite count as a rejected step
 * (the trial is refused and the damping grows), so a model may answer NaN outside its domain.
 *
 * @example
 * // y = a·x + b through three points
 * const pts = [[0, 1], [1, 3], [2, 5]];
 * levenbergMarquardt(([a, b]) => pts.map(([x, y]) => a! * x! + b! - y!), [0, 0]).x; // ≈ [2, 1]
 */
export function levenbergMarquardt(
  residuals: (x: readonly number[]) => number[],
  x0: readonly number[],
  opts: LeastSquaresOptions = {},
): LeastSquaresResult {
  const maxIterations = opts.maxIterations ?? 50;
  const h = opts.diffStep ?? 1e-3;
  const tolerance = opts.tolerance ?? 1e-6;
  let lambda = opts.lambda ?? 1e-2;
  let evaluations = 0;
  const evaluate = (x: readonly number[]): number[] => {
    evaluations++;
    return residuals(x);
  };
  const finite = (r: readonly number[]) => r.every(Number.isFinite);
  let x = [...x0];
  let r = evaluate(x);
  if (!finite(r)) throw new Error('least squares: the residuals are not finite at the starting point');
  let cost = halfSquares(r);
  const n = x.length;
  let iterations = 0;
  let converged = false;
  while (iterations < maxIterations && !converged) {
    iterations++;
    // Jacobian by forward differences, one column per parameter.
    const J: number[][] = r.map(() => new Array<number>(n).fill(0));
    for (let j = 0; j < n; j++) {
      const xj = [...x];
      xj[j] = xj[j]! + h;
      const rj = evaluate(xj);
      for (let i = 0; i < r.length; i++) J[i]![j] = finite(rj) ? (rj[i]! - r[i]!) / h : 0;
    }
    // Normal equations JᵀJ δ = −Jᵀr, damped on the diagonal (Marquardt's scaling).
    const A = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    const g = new Array<number>(n).fill(0);
    for (let i = 0; i < r.length; i++)
      for (let a = 0; a < n; a++) {
        g[a] = g[a]! - J[i]![a]! * r[i]!;
        for (let b = 0; b < n; b++) A[a]![b] = A[a]![b]! + J[i]![a]! * J[i]![b]!;
      }
    let improved = false;
    for (let attempt = 0; attempt < 12 && !improved; attempt++) {
      const damped = A.map((row, a) => row.map((v, b) => (a === b ? v + lambda * Math.max(v, 1e-12) : v)));
      const step = solveLinear(damped, g);
      if (!step) {
        lambda *= 4;
        continue;
      }
      const trial = x.map((v, j) => v + step[j]!);
      const rt = evaluate(trial);
      const ct = finite(rt) ? halfSquares(rt) : Number.POSITIVE_INFINITY;
      if (ct < cost) {
        const drop = (cost - ct) / Math.max(cost, 1e-300);
        x = trial;
        r = rt;
        cost = ct;
        lambda = Math.max(lambda / 3, 1e-9);
        improved = true;
        if (drop < tolerance) converged = true;
      } else lambda *= 4;
    }
    if (!improved) converged = true;
  }
  return { x, residuals: r, cost, iterations, evaluations, converged };
}

/** Solves A·x = b by Gaussian elimination with partial pivoting; undefined when A is singular. */
export function solveLinear(A: readonly (readonly number[])[], b: readonly number[]): number[] | undefined {
  const n = b.length;
  const m = A.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let i = c + 1; i < n; i++) if (Math.abs(m[i]![c]!) > Math.abs(m[p]![c]!)) p = i;
    if (!(Math.abs(m[p]![c]!) > 1e-300)) return undefined;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let i = c + 1; i < n; i++) {
      const f = m[i]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[i]![k] = m[i]![k]! - f * m[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = m[i]![n]!;
    for (let k = i + 1; k < n; k++) s -= m[i]![k]! * x[k]!;
    x[i] = s / m[i]![i]!;
  }
  return x.every(Number.isFinite) ? x : undefined;
}
