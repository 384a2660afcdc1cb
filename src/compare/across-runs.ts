/**
 * Statistics across repeated runs: one figure per run (a run's p99 TTFT, its request
 * goodput…), several runs per configuration. A within-run bootstrap sees only the requests of
 * one run and cannot see the service drifting between runs; these intervals can, because each
 * run is one observation. Pure.
 *
 * - `describeRuns`: mean, standard deviation, coefficient of variation and a Student-t 95 %
 *   interval of the mean.
 * - `welchDifference`: the difference of two configurations' means with a Welch–Satterthwaite
 *   t interval (unequal variances), as a relative change of the baseline's mean.
 * - `runsToResolve`: how many runs per side would make an observed difference of this size
 *   significant, at the spread seen (normal approximation, two-sided 95 %, power 80 %).
 *
 * @example
 * const d = welchDifference([100, 104, 98], [80, 83, 79]);
 * // d.change ≈ -0.19 (candidate 19 % lower), d.ci excludes 0
 *
 * @module
 */

import type { Interval } from './stats.js';

/** Mean, spread and a t interval of one configuration's per-run values. */
export interface RunSpread {
  n: number;
  mean: number;
  /** Sample standard deviation (n − 1); 0 with one run. */
  std: number;
  /** std / |mean|; undefined when the mean is 0. */
  cv?: number;
  /** Student-t 95 % interval of the mean; undefined with fewer than 2 runs. */
  ci?: Interval;
}

/** Two configurations' per-run values compared. */
export interface RunDifference {
  /** candidate mean − baseline mean. */
  diff: number;
  /** 95 % Welch interval of `diff`; undefined with fewer than 2 runs on a side. */
  diffCi?: Interval;
  /** diff / |baseline mean| (undefined when the baseline mean is 0). */
  change?: number;
  /** The interval of `change` (diffCi over |baseline mean|). */
  ci?: Interval;
  /** Welch–Satterthwaite degrees of freedom. */
  df?: number;
  /** True when the interval excludes zero. */
  significant: boolean;
  /** Runs per side that would resolve a difference of this size, when not significant. */
  runsNeeded?: number;
}

/**
 * Two-sided 97.5 % quantile of Student's t with `df` degrees of freedom (df may be
 * fractional, as Welch's is). Exact table for small integer df, Cornish–Fisher beyond.
 */
export function tQuantile975(df: number): number {
  if (!(df > 0)) return Number.NaN;
  if (df < 1) return T975[0] as number;
  const lo = Math.floor(df);
  if (lo < T975.length) {
    const a = T975[lo - 1] as number;
    const b = (T975[lo] ?? tExpansion(lo + 1)) as number;
    return a + (b - a) * (df - lo);
  }
  return tExpansion(df);
}

/** t(0.975, df) for df = 1…30. */
const T975 = [
  12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.306, 2.2622, 2.2281, 2.201, 2.1788, 2.1604,
  2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.093, 2.086, 2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555,
  2.0518, 2.0484, 2.0452, 2.0423,
];

/** Cornish–Fisher expansion of t quantiles around z = 1.96 (accurate to 1e-4 from df 30). */
function tExpansion(df: number): number {
  const z = 1.959963984540054;
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3)
  );
}

function mean(values: readonly number[]): number {
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

function variance(values: readonly number[], m: number): number {
  if (values.length < 2) return 0;
  let s = 0;
  for (const v of values) s += (v - m) ** 2;
  return s / (values.length - 1);
}

/** Mean, std, CV and a 95 % t interval of per-run values (finite values only). */
export function describeRuns(values: readonly number[]): RunSpread {
  const v = values.filter(Number.isFinite);
  const n = v.length;
  if (n === 0) return { n: 0, mean: Number.NaN, std: Number.NaN };
  const m = mean(v);
  const std = Math.sqrt(variance(v, m));
  const out: RunSpread = { n, mean: m, std };
  if (m !== 0) out.cv = std / Math.abs(m);
  if (n >= 2) {
    const half = (tQuantile975(n - 1) * std) / Math.sqrt(n);
    out.ci = [m - half, m + half];
  }
  return out;
}

/**
 * candidate − baseline with a Welch 95 % interval. With fewer than 2 runs on a side there is
 * no interval and no verdict: one run per configuration cannot tell a change from drift.
 */
export function welchDifference(baseline: readonly number[], candidate: readonly number[]): RunDifference {
  const a = baseline.filter(Number.isFinite);
  const b = candidate.filter(Number.isFinite);
  const ma = a.length ? mean(a) : Number.NaN;
  const mb = b.length ? mean(b) : Number.NaN;
  const diff = mb - ma;
  const out: RunDifference = { diff, significant: false };
  if (ma !== 0 && Number.isFinite(ma)) out.change = diff / Math.abs(ma);
  if (a.length < 2 || b.length < 2) return out;
  const va = variance(a, ma) / a.length;
  const vb = variance(b, mb) / b.length;
  const se = Math.sqrt(va + vb);
  if (se === 0) {
    // Every run identical on both sides (a deterministic engine): the difference is exact.
    out.diffCi = [diff, diff];
    out.df = a.length + b.length - 2;
  } else {
    const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
    const half = tQuantile975(df) * se;
    out.diffCi = [diff - half, diff + half];
    out.df = df;
  }
  if (out.change !== undefined) out.ci = [out.diffCi[0] / Math.abs(ma), out.diffCi[1] / Math.abs(ma)];
  out.significant = out.diffCi[0] > 0 || out.diffCi[1] < 0;
  if (!out.significant)
    out.runsNeeded = runsToResolve(diff, Math.sqrt(variance(a, ma)), Math.sqrt(variance(b, mb)));
  return out;
}

/**
 * Runs per side for a two-sided 95 % test with 80 % power to detect `diff` at the given
 * per-run standard deviations: n = (z₀.₉₇₅ + z₀.₈)² (σa² + σb²) / diff², at least 2.
 * Undefined for a zero difference (no number of runs resolves nothing).
 */
export function runsToResolve(diff: number, stdA: number, stdB: number): number | undefined {
  if (!Number.isFinite(diff) || diff === 0) return undefined;
  const k = (1.959963984540054 + 0.8416212335729143) ** 2;
  const n = Math.ceil((k * (stdA ** 2 + stdB ** 2)) / diff ** 2);
  return Math.max(2, n);
}
