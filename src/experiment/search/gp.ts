/**
 * A small Gaussian process with expected improvement, for Bayesian optimisation over a finite
 * set of encoded configurations. Written here because npm has no well-kept Bayesian optimiser
 * for Node (the few packages are unmaintained ports or classifiers); this is ~150 lines with
 * tests. Matérn 5/2 kernel on points in [0, 1]^d, observations standardised, a small noise
 * term (virtual-time runs are deterministic, but a run's figure is not a smooth function of
 * its flags), the length scale chosen from a short list by marginal likelihood. Pure.
 *
 * @module
 */

export interface GaussianProcess {
  /** Posterior mean and standard deviation at x (in the observations' units). */
  predict(x: readonly number[]): { mean: number; std: number };
  lengthScale: number;
}

const LENGTH_SCALES = [0.1, 0.2, 0.35, 0.6, 1, 2];
const NOISE = 1e-4;

function matern52(a: readonly number[], b: readonly number[], l: number): number {
  let d2 = 0;
  for (let i = 0; i < a.length; i++) d2 += (a[i]! - b[i]!) ** 2;
  const r = (Math.sqrt(5 * d2) / l) as number;
  return (1 + r + (r * r) / 3) * Math.exp(-r);
}

/** Lower-triangular L with L·Lᵀ = A; undefined when A is not positive definite. */
export function cholesky(A: readonly (readonly number[])[]): number[][] | undefined {
  const n = A.length;
  const L = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      let s = A[i]![j]!;
      for (let k = 0; k < j; k++) s -= L[i]![k]! * L[j]![k]!;
      if (i === j) {
        if (!(s > 0)) return undefined;
        L[i]![i] = Math.sqrt(s);
      } else L[i]![j] = s / L[j]![j]!;
    }
  return L;
}

/** Solves L·y = b (forward) then Lᵀ·x = y (back). */
function cholSolve(L: number[][], b: readonly number[]): number[] {
  const n = b.length;
  const y = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= L[i]![k]! * y[k]!;
    y[i] = s / L[i]![i]!;
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < n; k++) s -= L[k]![i]! * x[k]!;
    x[i] = s / L[i]![i]!;
  }
  return x;
}

/** Fits a GP to (xs, ys); the length scale of highest marginal likelihood among a few. */
export function fitGaussianProcess(
  xs: readonly (readonly number[])[],
  ys: readonly number[],
): GaussianProcess {
  const n = ys.length;
  const mu = ys.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(ys.reduce((a, b) => a + (b - mu) ** 2, 0) / n) || 1;
  const z = ys.map((y) => (y - mu) / sd);
  let best: { l: number; L: number[][]; alpha: number[]; ll: number } | undefined;
  for (const l of LENGTH_SCALES) {
    const K = xs.map((a, i) => xs.map((b, j) => matern52(a, b, l) + (i === j ? NOISE : 0)));
    const L = cholesky(K);
    if (!L) continue;
    const alpha = cholSolve(L, z);
    let ll = 0;
    for (let i = 0; i < n; i++) ll -= 0.5 * z[i]! * alpha[i]! + Math.log(L[i]![i]!);
    if (!best || ll > best.ll) best = { l, L, alpha, ll };
  }
  if (!best) throw new Error('gaussian process: no length scale gave a positive definite kernel');
  const { l, L, alpha } = best;
  return {
    lengthScale: l,
    predict(x) {
      const k = xs.map((a) => matern52(a, x, l));
      let m = 0;
      for (let i = 0; i < n; i++) m += k[i]! * alpha[i]!;
      const v = cholSolve(L, k);
      let kv = 0;
      for (let i = 0; i < n; i++) kv += k[i]! * v[i]!;
      const variance = Math.max(1 + NOISE - kv, 1e-12);
      return { mean: mu + sd * m, std: sd * Math.sqrt(variance) };
    },
  };
}

/** Standard normal density and distribution. */
const pdf = (z: number): number => Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
function cdf(z: number): number {
  // Abramowitz–Stegun 7.1.26 on erf, |error| < 1.5e-7.
  const t = 1 / (1 + 0.3275911 * (Math.abs(z) / Math.SQRT2));
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-(z * z) / 2);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** Expected improvement over `best` (maximisation) of a prediction; `xi` trades exploration. */
export function expectedImprovement(pred: { mean: number; std: number }, best: number, xi = 0.01): number {
  if (pred.std <= 1e-12) return Math.max(0, pred.mean - best - xi);
  const z = (pred.mean - best - xi) / pred.std;
  return (pred.mean - best - xi) * cdf(z) + pred.std * pdf(z);
}
