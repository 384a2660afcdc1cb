/**
 * Pure building blocks that turn a stream of values into small chart series: CDF points from
 * sorted values, a log-bucket histogram for values too many to keep (ITL), fixed-width time
 * buckets, scatter thinning and bucket medians.
 *
 * @module
 */

import type { XY } from './lttb.js';

/** A growable Float64Array: one number per request costs 8 bytes, not a record. */
export class NumberColumn {
  private data = new Float64Array(1024);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  /** A sorted copy of the values pushed so far. */
  sorted(): Float64Array {
    return this.data.slice(0, this.length).sort();
  }

  values(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

/**
 * Points of the empirical CDF of `sorted` (ascending): x = value, y = percent of values ≤ x by rank.
 * Keeps about `maxPoints` evenly spaced ranks plus a dense tail (p99 … p99.999) and the maximum.
 */
export function cdfPoints(sorted: ArrayLike<number>, maxPoints = 1000): XY {
  const n = sorted.length;
  if (n === 0) return { x: [], y: [] };
  const ranks = new Set<number>();
  const even = Math.max(2, Math.min(maxPoints, n));
  for (let k = 0; k < even; k++) ranks.add(Math.round((k * (n - 1)) / (even - 1)));
  for (let t = 2; t <= 5.0001; t += 0.05) ranks.add(Math.min(n - 1, Math.floor((1 - 10 ** -t) * n)));
  const ordered = [...ranks].sort((a, b) => a - b);
  return {
    x: ordered.map((i) => sorted[i]!),
    y: ordered.map((i) => ((i + 1) / n) * 100),
  };
}

/**
 * A histogram with bins of constant relative width (`ratio`), for distributions with too many
 * values to keep (ITL: one per output token). Quantiles carry at most `ratio − 1` relative error.
 */
export class LogHistogram {
  private readonly counts = new Map<number, number>();
  private readonly logRatio: number;
  count = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ratio = 1.01,
    private readonly floor = 1e-3,
  ) {
    this.logRatio = Math.log(ratio);
  }

  add(v: number): void {
    if (!Number.isFinite(v)) return;
    const bin = v <= this.floor ? 0 : Math.ceil(Math.log(v / this.floor) / this.logRatio);
    this.counts.set(bin, (this.counts.get(bin) ?? 0) + 1);
    this.count++;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  /** Upper edge of a bin, clamped to the observed range. */
  private edge(bin: number): number {
    const upper = bin === 0 ? this.floor : this.floor * this.ratio ** bin;
    return Math.min(this.max, Math.max(this.min, upper));
  }

  /** The value at quantile q (0..1), as the upper edge of the bin holding that rank. */
  quantile(q: number): number {
    if (this.count === 0) return Number.NaN;
    const target = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (const bin of [...this.counts.keys()].sort((a, b) => a - b)) {
      seen += this.counts.get(bin)!;
      if (seen >= target) return this.edge(bin);
    }
    return this.max;
  }

  /** CDF points (x = bin upper edge, y = percent at or below it), starting at the minimum. */
  cdf(): XY {
    if (this.count === 0) return { x: [], y: [] };
    const x = [this.min];
    const y = [0];
    let seen = 0;
    for (const bin of [...this.counts.keys()].sort((a, b) => a - b)) {
      seen += this.counts.get(bin)!;
      x.push(this.edge(bin));
      y.push((seen / this.count) * 100);
    }
    return { x, y };
  }
}

/**
 * Fixed-width time buckets that grow as later times arrive. `addAt` adds a value at an instant
 * (errors); `addInterval` adds time-weighted occupancy (a request in flight from a to b), so that
 * bucket i's total is the average number in flight over it; `addSpread` spreads an amount evenly
 * over an interval (tokens over the time it took to produce them), each bucket getting its
 * overlap's share. O(1) per call.
 */
export class TimeBuckets {
  private sums = new Float64Array(256);
  /** Difference array for whole buckets covered by intervals. */
  private cover = new Float64Array(257);
  private used = 0;

  constructor(readonly widthMs: number) {}

  private ensure(bucket: number): void {
    if (bucket < this.sums.length) {
      if (bucket + 1 > this.used) this.used = bucket + 1;
      return;
    }
    let size = this.sums.length;
    while (size <= bucket) size *= 2;
    const sums = new Float64Array(size);
    sums.set(this.sums);
    const cover = new Float64Array(size + 1);
    cover.set(this.cover);
    this.sums = sums;
    this.cover = cover;
    this.used = bucket + 1;
  }

  private bucketOf(tMs: number): number {
    return Math.max(0, Math.floor(tMs / this.widthMs));
  }

  addAt(tMs: number, value = 1): void {
    const b = this.bucketOf(tMs);
    this.ensure(b);
    this.sums[b]! += value;
  }

  /** Occupancy: `weight` × the share of each bucket that [fromMs, toMs) covers. */
  addInterval(fromMs: number, toMs: number, weight = 1): void {
    if (!(toMs > fromMs)) return;
    const w = this.widthMs;
    const a = this.bucketOf(fromMs);
    const b = this.bucketOf(toMs);
    this.ensure(b);
    if (a === b) {
      this.sums[a]! += (weight * (toMs - fromMs)) / w;
      return;
    }
    this.sums[a]! += (weight * ((a + 1) * w - fromMs)) / w;
    this.sums[b]! += (weight * (toMs - b * w)) / w;
    // Buckets a+1 … b-1 are covered whole.
    this.cover[a + 1]! += weight;
    this.cover[b]! -= weight;
  }

  /** `amount` spread evenly over [fromMs, toMs); at `toMs` alone when the interval is empty. */
  addSpread(fromMs: number, toMs: number, amount: number): void {
    if (toMs > fromMs) this.addInterval(fromMs, toMs, (amount * this.widthMs) / (toMs - fromMs));
    else this.addAt(toMs, amount);
  }

  /** Number of buckets that hold data (up to the last one touched). */
  get length(): number {
    return this.used;
  }

  /** Per-bucket totals: sums plus whole-bucket coverage. */
  totals(): number[] {
    const out: number[] = new Array(this.used);
    let running = 0;
    for (let i = 0; i < this.used; i++) {
      running += this.cover[i]!;
      out[i] = this.sums[i]! + running;
    }
    return out;
  }
}

/**
 * Thins a scatter for drawing: an evenly spaced subsample of about `target` points keeps the
 * density of the cloud, and every point in a sparse cell of a cols×rows grid over the range
 * (at most `sparse` points in it) is kept too, so that outliers survive. Sorted by x.
 */
export function thinScatter(
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  target = 2500,
  cols = 100,
  rows = 60,
  sparse = 1,
): XY {
  const n = Math.min(xs.length, ys.length);
  if (n === 0) return { x: [], y: [] };
  let x0 = Number.POSITIVE_INFINITY;
  let x1 = Number.NEGATIVE_INFINITY;
  let y0 = Number.POSITIVE_INFINITY;
  let y1 = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    x0 = Math.min(x0, xs[i]!);
    x1 = Math.max(x1, xs[i]!);
    y0 = Math.min(y0, ys[i]!);
    y1 = Math.max(y1, ys[i]!);
  }
  const cw = (x1 - x0) / cols || 1;
  const ch = (y1 - y0) / rows || 1;
  const cellOf = (i: number) =>
    Math.min(rows - 1, Math.floor((ys[i]! - y0) / ch)) * cols +
    Math.min(cols - 1, Math.floor((xs[i]! - x0) / cw));
  const counts = new Uint32Array(cols * rows);
  for (let i = 0; i < n; i++) counts[cellOf(i)]!++;
  const stride = Math.max(1, Math.ceil(n / target));
  const points: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) {
    if (i % stride === 0 || counts[cellOf(i)]! <= sparse) points.push([xs[i]!, ys[i]!]);
  }
  points.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  return { x: points.map((p) => p[0]), y: points.map((p) => p[1]) };
}

/** Median of a sorted array (mean of the two middle values for an even count). */
export function medianOfSorted(sorted: ArrayLike<number>): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const mid = Math.floor(n / 2);
  return n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A half-open range of x: [lo, hi). */
export type XRange = readonly [lo: number, hi: number];

/**
 * Medians of `ys` per x range (`ranges` ascending, not overlapping): x = the median x of the
 * range's points, y = their median y, so that a median is drawn where the data are. A range
 * with no point gets no median; where empty ranges (or a hole between ranges) lie between two
 * medians, a gap (y = NaN at the end of the earlier range, drawn as a break in the line) sits
 * between them, so the line never suggests data
 * where there are none. Points outside every range are ignored.
 */
export function rangeMedians(xs: ArrayLike<number>, ys: ArrayLike<number>, ranges: readonly XRange[]): XY {
  const n = Math.min(xs.length, ys.length);
  const groupsX: number[][] = ranges.map(() => []);
  const groupsY: number[][] = ranges.map(() => []);
  for (let i = 0; i < n; i++) {
    const x = xs[i]!;
    const b = rangeIndex(ranges, x);
    if (b < 0) continue;
    groupsX[b]!.push(x);
    groupsY[b]!.push(ys[i]!);
  }
  const out: XY = { x: [], y: [] };
  let previous = -1;
  for (let b = 0; b < ranges.length; b++) {
    if (groupsY[b]!.length === 0) continue;
    // An empty range between, or a hole between two ranges that do not touch: a gap.
    if (previous >= 0 && (b > previous + 1 || ranges[previous]![1] < ranges[b]![0])) {
      out.x.push(ranges[previous]![1]);
      out.y.push(Number.NaN);
    }
    out.x.push(medianOfSorted(groupsX[b]!.sort((p, q) => p - q)));
    out.y.push(medianOfSorted(groupsY[b]!.sort((p, q) => p - q)));
    previous = b;
  }
  return out;
}

/** Index of the range holding x (binary search), or -1. */
function rangeIndex(ranges: readonly XRange[], x: number): number {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = ranges[mid]!;
    if (x < a) hi = mid - 1;
    else if (x >= b) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/**
 * Medians of `ys` over `buckets` equal-width ranges of `xs` (see {@link rangeMedians}: the
 * median of each non-empty range, a gap where empty ranges lie between two of them).
 */
export function bucketMedians(xs: ArrayLike<number>, ys: ArrayLike<number>, buckets = 10): XY {
  const n = Math.min(xs.length, ys.length);
  if (n === 0) return { x: [], y: [] };
  let x0 = Number.POSITIVE_INFINITY;
  let x1 = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    x0 = Math.min(x0, xs[i]!);
    x1 = Math.max(x1, xs[i]!);
  }
  const width = (x1 - x0) / buckets;
  if (!(width > 0)) return rangeMedians(xs, ys, [[x0, Number.POSITIVE_INFINITY]]);
  const ranges: XRange[] = Array.from({ length: buckets }, (_, b) => [
    x0 + b * width,
    // the last range takes in the maximum
    b === buckets - 1 ? Number.POSITIVE_INFINITY : x0 + (b + 1) * width,
  ]);
  return rangeMedians(xs, ys, ranges);
}
