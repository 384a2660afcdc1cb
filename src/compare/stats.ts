/**
 * Plain statistics for comparing two runs: a seeded RNG, interpolated quantiles, the normal
 * distribution, the Mann–Whitney U rank test (normal approximation, tie and continuity
 * correction), Wilson and Newcombe intervals for proportions, and a rate-ratio interval.
 *
 * All functions are pure; 95% is the default confidence level everywhere.
 *
 * @module
 */

/** z such that P(|Z| ≤ z) = 0.95. */
export const Z95 = 1.959963984540054;

export { seededRandom } from '../util/index.js';

/** Numerically sorted copy. */
export function sortedCopy(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

/**
 * Quantile of an ascending array with linear interpolation between order statistics
 * (position q·(n−1), numpy's default). NaN for an empty array.
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = q * (n - 1);
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (h - lo) * (b - a);
}

/** Chebyshev coefficients of Numerical Recipes' erfc fit, lowest power first. */
const ERFC_COEFFICIENTS = [
  -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587,
  -0.82215223, 0.17087277,
];

/** Complementary error function (Numerical Recipes' fit, relative error < 1.2e-7). */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  let poly = 0;
  for (let i = ERFC_COEFFICIENTS.length - 1; i >= 0; i--) poly = poly * t + (ERFC_COEFFICIENTS[i] as number);
  const r = t * Math.exp(-z * z + poly);
  return x >= 0 ? r : 2 - r;
}

/** Standard normal cumulative distribution Φ(z). */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

export interface MannWhitneyResult {
  /** U statistic of the first sample: pairs (a, b) with a > b, ties counting ½. */
  uA: number;
  /** U statistic of the second sample; uA + uB = nA·nB. */
  uB: number;
  /** Normal-approximation z of uB (positive: the second sample tends to be larger). */
  z: number;
  /** Two-sided p-value. */
  p: number;
  /** P(B > A) + ½·P(B = A): 0.5 means no shift. */
  probBGreater: number;
}

/**
 * Mann–Whitney U test of two independent samples, with average ranks for ties, the tie
 * correction of the variance and a continuity correction of ½.
 * With no variance at all (every value equal) it returns z = 0, p = 1.
 */
export function mannWhitneyU(a: ArrayLike<number>, b: ArrayLike<number>): MannWhitneyResult {
  const nA = a.length;
  const nB = b.length;
  const n = nA + nB;
  if (nA === 0 || nB === 0) return { uA: 0, uB: 0, z: 0, p: 1, probBGreater: 0.5 };
  // Pool with a group tag, sort by value, assign average ranks to runs of ties.
  const order = new Array<number>(n);
  const values = new Float64Array(n);
  for (let i = 0; i < nA; i++) values[i] = a[i] as number;
  for (let i = 0; i < nB; i++) values[nA + i] = b[i] as number;
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((x, y) => (values[x] as number) - (values[y] as number));
  let rankSumB = 0;
  let tieTerm = 0;
  for (let start = 0; start < n; ) {
    let end = start + 1;
    while (end < n && values[order[end] as number] === values[order[start] as number]) end++;
    const averageRank = (start + 1 + end) / 2; // ranks start+1 … end
    const t = end - start;
    tieTerm += t * t * t - t;
    for (let k = start; k < end; k++) if ((order[k] as number) >= nA) rankSumB += averageRank;
    start = end;
  }
  const uB = rankSumB - (nB * (nB + 1)) / 2;
  const uA = nA * nB - uB;
  const mean = (nA * nB) / 2;
  const variance = ((nA * nB) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  let z = 0;
  if (variance > 0) {
    const diff = uB - mean;
    const corrected = Math.sign(diff) * Math.max(0, Math.abs(diff) - 0.5);
    z = corrected / Math.sqrt(variance);
  }
  // erfc(|z|/√2) = 2(1 − Φ(|z|)) without the cancellation in the tail; exactly 1 at z = 0.
  const p = z === 0 ? 1 : Math.min(1, erfc(Math.abs(z) / Math.SQRT2));
  return { uA, uB, z, p, probBGreater: uB / (nA * nB) };
}

/** An interval [lo, hi]. */
export type Interval = [number, number];

/** Wilson score interval of a proportion x/n. [0, 1] when n = 0. */
export function wilsonInterval(x: number, n: number, z = Z95): Interval {
  if (n === 0) return [0, 1];
  const p = x / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const half = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const denom = 1 + z2 / n;
  return [Math.max(0, (centre - half) / denom), Math.min(1, (centre + half) / denom)];
}

/**
 * Newcombe's hybrid score interval (method 10) for the difference of two proportions
 * xB/nB − xA/nA, built from the two Wilson intervals.
 */
export function newcombeDifference(xA: number, nA: number, xB: number, nB: number, z = Z95): Interval {
  const pA = nA === 0 ? 0 : xA / nA;
  const pB = nB === 0 ? 0 : xB / nB;
  const [lA, uA] = wilsonInterval(xA, nA, z);
  const [lB, uB] = wilsonInterval(xB, nB, z);
  const d = pB - pA;
  return [d - Math.sqrt((pB - lB) ** 2 + (uA - pA) ** 2), d + Math.sqrt((uB - pB) ** 2 + (pA - lA) ** 2)];
}

/** A rate with the relative variance of its numerator: Σx²/(Σx)² for a sum of per-event amounts x. */
export interface RateObservation {
  /** The rate, e.g. tokens per second. */
  rate: number;
  /** Σx²/(Σx)² over the events that make up the rate; 1/count for a plain count. */
  relativeVariance: number;
}

/**
 * Interval for the relative change rateB/rateA − 1 of two compound-Poisson rates, computed on
 * the log scale where var(log rate) ≈ Σx²/(Σx)². For plain counts this is the classic
 * 1/cA + 1/cB. Undefined when either rate is not positive.
 */
export function rateRatioChange(a: RateObservation, b: RateObservation, z = Z95): Interval | undefined {
  if (!(a.rate > 0) || !(b.rate > 0)) return undefined;
  const logRatio = Math.log(b.rate) - Math.log(a.rate);
  const se = Math.sqrt(a.relativeVariance + b.relativeVariance);
  return [Math.exp(logRatio - z * se) - 1, Math.exp(logRatio + z * se) - 1];
}
