/**
 * The store's mergeable latency histogram: sparse log-linear buckets over integer
 * microseconds with the exact count, sum, sum of squares, min and max kept beside them, and
 * a compact binary encoding (varint deltas of bucket indices and counts).
 *
 * Why not the metrics module's HdrHistogram encoding: at 4 significant digits a round of 10
 * requests with ~300 inter-token gaps encodes to several hundred bytes per latency, and a month
 * of 5-minute rounds would not fit the 2 MB budget (bench/store.bench.mjs measures this codec).
 * Here a bucket spans 1/64 of an octave (relative width ≤ 1.6 %), and a percentile is
 * reported as the middle of its bucket clamped to the exact min and max, so it is within
 * 0.8 % of the exact nearest-rank value, whatever the window: merging two histograms is an
 * exact addition of counts, so a week's p99 is the p99 of the week's values, not an average of
 * per-round percentiles.
 *
 * Agreement with the run histograms (issue: one figure, one answer): the store's percentile is
 * within STORE_PERCENTILE_RELATIVE_ERROR (1/128, half a bucket) of the exact nearest-rank value
 * plus 1 µs of rounding, a run's HdrHistogram within 1/32768 plus 0.6 µs (metrics/histogram.ts),
 * so for the same records the two agree within the sum: 1/128 + 1/32768 of the value + 1.6 µs
 * (a p99 of 2 s: within 15.7 ms). histogram-agreement.test.ts shows it on a week of rounds.
 *
 * @module
 */

/** Sub-buckets per octave, as a power of two (2^6 = 64). */
export const STORE_SUB_BUCKET_BITS = 6;
const SUB = 1 << STORE_SUB_BUCKET_BITS;
/**
 * Largest error of a percentile against the exact nearest-rank value, relative to the value
 * (plus 1 µs of rounding): half a bucket, whose width is at most 1/64 of its lower edge.
 */
export const STORE_PERCENTILE_RELATIVE_ERROR = 1 / (2 * SUB);
const MAX_MICROS = 2 ** 40;

/** Bucket index of a value in microseconds (values below 2^6 µs have their own bucket each). */
export function bucketIndex(micros: number): number {
  const v = Math.min(MAX_MICROS, Math.max(0, Math.round(micros)));
  if (v < SUB) return v;
  let exponent = v < 0x80000000 ? 31 - Math.clz32(v) : Math.floor(Math.log2(v));
  // Math.log2 may round across a power of two for large values: correct it.
  if (2 ** exponent > v) exponent--;
  else if (2 ** (exponent + 1) <= v) exponent++;
  const shift = exponent - STORE_SUB_BUCKET_BITS;
  const sub = Math.floor(v / 2 ** shift);
  return shift * SUB + sub;
}

/** [lowest, highest) microseconds of a bucket. */
export function bucketRange(index: number): [number, number] {
  if (index < SUB) return [index, index + 1];
  const shift = Math.floor(index / SUB) - 1;
  const sub = index - shift * SUB;
  return [sub * 2 ** shift, (sub + 1) * 2 ** shift];
}

/** Exact summary figures kept beside the buckets. */
export interface HistogramMoments {
  count: number;
  sum: number;
  min: number;
  max: number;
}

/**
 * A sparse histogram of latencies in milliseconds.
 *
 * @example
 * const h = new StoreHistogram();
 * h.record(12.5);
 * h.record(80);
 * StoreHistogram.decode(h.encode()).percentile(50); // ≈ 12.5
 */
export class StoreHistogram {
  readonly buckets = new Map<number, number>();
  count = 0;
  sum = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;

  /** Records a latency in milliseconds (negative and NaN values are ignored). */
  record(ms: number, weight = 1): void {
    if (!(ms >= 0) || weight <= 0) return;
    const index = bucketIndex(ms * 1000);
    this.buckets.set(index, (this.buckets.get(index) ?? 0) + weight);
    this.count += weight;
    this.sum += ms * weight;
    if (ms < this.min) this.min = ms;
    if (ms > this.max) this.max = ms;
  }

  /** Adds everything `other` holds: exactly as if its values had been recorded here. */
  merge(other: StoreHistogram): void {
    for (const [i, c] of other.buckets) this.buckets.set(i, (this.buckets.get(i) ?? 0) + c);
    this.count += other.count;
    this.sum += other.sum;
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
  }

  get mean(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  /**
   * The nearest-rank percentile p (0 < p ≤ 100) in ms: the middle of the bucket that holds the
   * ⌈p/100 · count⌉-th smallest value, clamped to the exact min and max. 0 when empty.
   */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    const indices = [...this.buckets.keys()].sort((a, b) => a - b);
    let seen = 0;
    for (const i of indices) {
      seen += this.buckets.get(i)!;
      if (seen >= rank) {
        const [lo, hi] = bucketRange(i);
        const middle = (lo + (hi - lo) / 2) / 1000;
        const clamped = Math.min(this.max, Math.max(this.min, i < SUB ? lo / 1000 : middle));
        return Math.round(clamped * 1000) / 1000;
      }
    }
    return this.max;
  }

  /** Share of values ≤ `ms` (bucket-exact when `ms` is a bucket boundary). */
  fractionAtOrBelow(ms: number): number {
    if (this.count === 0) return 0;
    const limit = bucketIndex(ms * 1000);
    let n = 0;
    for (const [i, c] of this.buckets) if (i <= limit) n += c;
    return n / this.count;
  }

  moments(): HistogramMoments {
    return { count: this.count, sum: this.sum, min: this.min, max: this.max };
  }

  /**
   * Compact binary form: varint bucket count, then per bucket (ascending) the varint index
   * delta and varint count; then min and max as float32 (the mean of a decoded histogram comes from its bucket middles).
   * Empty histograms encode to one byte.
   */
  encode(): Buffer {
    const out: number[] = [];
    const indices = [...this.buckets.keys()].sort((a, b) => a - b);
    writeVarint(out, indices.length);
    let previous = 0;
    for (const i of indices) {
      writeVarint(out, i - previous);
      writeVarint(out, this.buckets.get(i)!);
      previous = i;
    }
    if (indices.length === 0) return Buffer.from(out);
    const tail = Buffer.alloc(8);
    tail.writeFloatLE(this.min, 0);
    tail.writeFloatLE(this.max, 4);
    return Buffer.concat([Buffer.from(out), tail]);
  }

  /** Decodes what encode() wrote (min and max keep float32 precision; the mean is within the bucket precision). */
  static decode(data: Uint8Array): StoreHistogram {
    const h = new StoreHistogram();
    const cursor = { pos: 0 };
    const n = readVarint(data, cursor);
    let index = 0;
    for (let k = 0; k < n; k++) {
      index += readVarint(data, cursor);
      const c = readVarint(data, cursor);
      h.buckets.set(index, c);
      h.count += c;
    }
    if (n === 0) return h;
    const view = Buffer.from(data.buffer, data.byteOffset + cursor.pos, 8);
    h.min = view.readFloatLE(0);
    h.max = view.readFloatLE(4);
    // The sum is not stored (bytes matter): rebuilt from bucket middles, within the bucket precision.
    for (const [i, c] of h.buckets) {
      const [lo, hi] = bucketRange(i);
      h.sum += ((i < SUB ? lo : lo + (hi - lo) / 2) / 1000) * c;
    }
    return h;
  }
}

/** Appends an unsigned LEB128 varint. */
export function writeVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** Reads an unsigned LEB128 varint at cursor.pos and advances it. */
export function readVarint(data: Uint8Array, cursor: { pos: number }): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = data[cursor.pos++];
    if (byte === undefined) throw new Error('truncated store histogram');
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 0x80;
  }
}
