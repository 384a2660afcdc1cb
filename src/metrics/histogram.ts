/**
 * Mergeable, serialisable latency histograms: an HdrHistogram of integer microseconds for
 * the percentiles, with exact count / mean / std / min / max kept beside it.
 *
 * Precision: 4 significant digits. A value v (µs) falls in a bucket of width
 * 2^max(0, floor(log2(v / 16384))) µs, and a percentile is reported as the middle of its bucket
 * (clamped to the exact min and max), so the error against the exact nearest-rank percentile is
 * at most half a bucket plus 0.5 µs of rounding:
 * exact below 16.4 ms, ≤ 0.26 ms up to 16.7 s, ≤ 0.52 ms up to 33.5 s, and never more than
 * 1/32768 (0.003 %) of the value. bench/metrics-histogram.bench.mjs measures it.
 *
 * Memory: the counts array grows with the largest value recorded (about 64 KB per doubling of
 * range, ≈ 0.7 MB for a histogram spanning 1 µs to 10 s), never with the number of values; it
 * is built only once a histogram is read or holds more than 4,096–6,016 values (until then
 * they are kept as they came, 8 bytes each; the limit differs from one histogram to the next,
 * so that the histograms of one record do not all build at once).
 *
 * Percentiles follow the nearest-rank definition (the smallest value such that p % of the
 * values are ≤ it), as HdrHistogram does; numpy's default interpolates between neighbours
 * instead, which differs by at most the gap between two adjacent values.
 *
 * @module
 */

import type { JsHistogram } from 'hdr-histogram-js';
import type { LatencyStats } from '../types.js';
import { decodeHistogram, encodeHistogram, Int32Histogram } from './hdr-encoding.js';
import { RunningStats } from './running-stats.js';

/** Significant decimal digits kept by every latency histogram. */
export const HISTOGRAM_SIGNIFICANT_DIGITS = 4;
/** The fewest values a histogram holds back before it builds its counts array (HELD_STAGGER). */
const HELD_BASE = 4096;
/**
 * Histograms take turns at a hold limit of HELD_BASE and 0 to HELD_TURNS − 1 steps of this
 * (4,096–6,016 values, 47 KB at most, against the counts array's 128 KB at least): the dozen
 * histograms one record feeds (TTFT, TPOT, ITL, E2EL, …) would otherwise all build on the same
 * record, a stall of tens of milliseconds in the middle of a run's sends while the process is
 * fresh (measured at 2,000 req/s: 41 ms, 25 of them building counts arrays). Staggered, they
 * build 128 values apart, each a fraction of that. (Upwards, so that no histogram builds
 * sooner than it did: a run with few requests keeps its memory.)
 */
const HELD_STAGGER = 128;
/** How many hold limits the histograms take turns at. */
const HELD_TURNS = 16;
/** Histograms made in this process: the next one's turn. */
let histogramsMade = 0;
/** Values are clamped to this many microseconds (about 12.7 days) so a clock bug cannot allocate without bound. */
const MAX_MICROS = 2 ** 40;

/** The percentiles every LatencyStats carries, as [key, percentile in %]. */
export const STAT_PERCENTILES = [
  ['p50', 50],
  ['p90', 90],
  ['p95', 95],
  ['p99', 99],
  ['p999', 99.9],
] as const;

/** A LatencyStats with every field 0 (no values). */
export function emptyLatencyStats(): LatencyStats {
  return { count: 0, mean: 0, std: 0, min: 0, max: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0 };
}

function toMicros(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(MAX_MICROS, Math.round(ms * 1000));
}

/**
 * HdrHistogram's own recordValue computes the bucket with Math.log2 and Math.pow, which
 * made it the hot spot of the accumulator (two values per streamed chunk). This computes
 * the same counts-array index with integer bit operations (the Java original's formula)
 * for values below 2^31 µs that fit the current array, and falls back to the library
 * otherwise (larger values, or a resize). histogram.test.ts checks both paths index alike.
 */
function recordMicros(h: JsHistogram, micros: number, count: number): void {
  if (micros < 0x80000000) {
    const shift = Math.max(0, 31 - Math.clz32(micros) - h.subBucketHalfCountMagnitude - h.unitMagnitude);
    const subBucketIndex = micros >>> (shift + h.unitMagnitude);
    const index = ((shift + 1) << h.subBucketHalfCountMagnitude) + subBucketIndex - h.subBucketHalfCount;
    if (index < h.countsArrayLength) {
      h.addToCountAtIndex(index, count);
      h.updateMinAndMax(micros);
      h.addToTotalCount(count);
      return;
    }
  }
  h.recordValueWithCount(micros, count);
}

function newHdr(): JsHistogram {
  const h = new Int32Histogram(1, 2, HISTOGRAM_SIGNIFICANT_DIGITS);
  h.autoResize = true;
  return h;
}

/**
 * One latency distribution in milliseconds: record values, read LatencyStats, merge with
 * another, encode for `RunSummary.histograms` and decode back.
 *
 * @example
 * const h = new LatencyHistogram();
 * h.record(12.5);
 * h.record(80);
 * h.stats().p50; // 12.5
 */
export class LatencyHistogram {
  /** The HdrHistogram, once built (see `held`). */
  private built: JsHistogram | undefined;
  /**
   * Values (µs, each of weight 1) held back until the histogram is first read or they pass
   * `heldMax`: a counts array takes 128 KB at least and grows by 64 KB per doubling of range, so
   * the dozens of histograms of a run whose requests are few would hold megabytes for a few
   * thousand values. Replayed in order into the histogram when it is built, so every count,
   * percentile and encoding is what recording them at once gives.
   */
  private held: Float64Array | undefined;
  private heldCount = 0;
  /** How many values this one holds back at most (HELD_STAGGER). */
  private readonly heldMax = HELD_BASE + HELD_STAGGER * (histogramsMade++ % HELD_TURNS);
  private readonly exact: RunningStats;

  constructor(hdr?: JsHistogram, exact: RunningStats = new RunningStats()) {
    this.built = hdr;
    this.exact = exact;
  }

  /** Records a latency in milliseconds, `weight` times (negative values count as 0). */
  record(ms: number, weight = 1): void {
    if (weight <= 0 || Number.isNaN(ms)) return;
    const value = Math.max(ms, 0);
    this.exact.add(value, weight);
    const micros = toMicros(value);
    if (this.built === undefined && weight === 1 && this.hold(micros)) return;
    recordMicros(this.hdr(), micros, weight);
  }

  /** Holds a value back; false when heldMax are held (the histogram is then built). */
  private hold(micros: number): boolean {
    let held = this.held;
    if (held === undefined) {
      held = new Float64Array(16);
      this.held = held;
    } else if (this.heldCount === held.length) {
      if (held.length >= this.heldMax) return false;
      const grown = new Float64Array(Math.min(held.length * 2, this.heldMax));
      grown.set(held);
      held = grown;
      this.held = grown;
    }
    held[this.heldCount++] = micros;
    return true;
  }

  /** The HdrHistogram, built on first need from the values held back. */
  private hdr(): JsHistogram {
    if (this.built === undefined) {
      const h = newHdr();
      const held = this.held;
      const n = this.heldCount;
      if (held !== undefined && n > 0) {
        // One resize to the largest value rather than one per new maximum as they come (each a
        // new counts array and a copy): it is among the values, so recording it with a count of 0
        // first leaves the counts, total, min, max and array length as the replay in order does.
        let largest = 0;
        for (let i = 0; i < n; i++) if (held[i]! > largest) largest = held[i]!;
        h.recordValueWithCount(largest, 0);
        for (let i = 0; i < n; i++) recordMicros(h, held[i]!, 1);
      }
      this.built = h;
      this.held = undefined;
      this.heldCount = 0;
    }
    return this.built;
  }

  /** Number of values recorded (weights included). */
  get count(): number {
    return this.exact.count;
  }

  /**
   * The nearest-rank percentile `p` (0 < p ≤ 100) in milliseconds: the middle of its
   * histogram bucket, clamped to the exact min and max, rounded to the microsecond. 0 when empty.
   */
  percentile(p: number): number {
    if (this.exact.count === 0) return 0;
    const hdr = this.hdr();
    const upper = hdr.getValueAtPercentile(p);
    const middle = hdr.medianEquivalentValue(upper) / 1000;
    const clamped = Math.min(this.exact.max, Math.max(this.exact.min, middle));
    // whole microseconds, without float noise (144.116, not 144.11599999999999)
    return Math.round(clamped * 1000) / 1000;
  }

  /** count, mean, std and min/max exact; percentiles from the histogram. All 0 when empty. */
  stats(): LatencyStats {
    if (this.exact.count === 0) return emptyLatencyStats();
    const out = {
      count: this.exact.count,
      mean: this.exact.mean,
      std: this.exact.std,
      min: this.exact.min,
      max: this.exact.max,
    } as LatencyStats;
    for (const [key, p] of STAT_PERCENTILES) out[key] = this.percentile(p);
    return out;
  }

  /** Adds everything `other` recorded, exactly as if its values had been recorded here. */
  merge(other: LatencyHistogram): void {
    this.hdr().add(other.hdr());
    this.exact.merge(other.exact);
  }

  /** Compressed base64 (HdrHistogram V2 encoding), as stored in `RunSummary.histograms`. */
  encode(): string {
    return encodeHistogram(this.hdr());
  }

  /**
   * Estimated bytes of the counts array the values need (fixed by the value range, not by the
   * number of values); builds it.
   */
  get footprintBytes(): number {
    return this.hdr().estimatedFootprintInBytes;
  }

  /**
   * Rebuilds a histogram from its encoding. Pass the exact stats persisted beside it to keep
   * mean, std, min and max exact; without them they are estimated from the histogram.
   */
  static decode(encoded: string, exact?: LatencyStats): LatencyHistogram {
    const hdr = decodeHistogram(encoded);
    hdr.autoResize = true;
    let stats: RunningStats;
    if (exact && exact.count === hdr.totalCount) {
      stats = RunningStats.fromLatencyStats(exact);
    } else {
      stats = new RunningStats();
      if (hdr.totalCount > 0) {
        stats.count = hdr.totalCount;
        stats.mean = hdr.mean / 1000;
        stats.m2 = (hdr.stdDeviation / 1000) ** 2 * hdr.totalCount;
        stats.min = hdr.getValueAtPercentile(0) / 1000;
        stats.max = hdr.maxValue / 1000;
      }
    }
    return new LatencyHistogram(hdr, stats);
  }
}
