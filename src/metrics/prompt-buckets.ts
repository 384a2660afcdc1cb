/**
 * Prompt-length buckets: TTFT and E2EL broken down by input tokens, so that a slow tail that
 * lives in long prompts shows as such (issue 6).
 *
 * Buckets are [minTokens, maxTokens): by default powers of two ([0,1), [1,2), [2,4), [4,8), …);
 * with explicit edges e0 < e1 < … they are [0,e0) when e0 > 0, [e0,e1), …, and [eLast, ∞) with
 * ∞ written as Number.MAX_SAFE_INTEGER (JSON has no Infinity). A bucket's `count` is every
 * measured request whose prompt fell in it (failures included); its latencies are those of the
 * successful ones, like every other latency.
 *
 * @module
 */

import type { PromptBucket } from '../types.js';
import { LatencyHistogram } from './histogram.js';

/** Upper bound written for the last, open-ended bucket. */
export const OPEN_BUCKET_MAX = Number.MAX_SAFE_INTEGER;

/** How prompts are bucketed: powers of two, explicit ascending edges, or not at all. */
export type PromptBucketing = 'pow2' | readonly number[] | false;

/** The [min, max) bucket holding a prompt of `tokens` tokens. */
export function promptBucketRange(tokens: number, bucketing: 'pow2' | readonly number[]): [number, number] {
  const t = Math.max(0, Math.floor(tokens));
  if (bucketing === 'pow2') {
    if (t < 1) return [0, 1];
    const lo = 2 ** Math.floor(Math.log2(t));
    // guard against floating error in log2 near exact powers
    const min = lo * 2 <= t ? lo * 2 : lo > t ? lo / 2 : lo;
    return [min, min * 2];
  }
  const edges = normaliseEdges(bucketing);
  if (edges.length === 0) return [0, OPEN_BUCKET_MAX];
  if (t < (edges[0] as number)) return [0, edges[0] as number];
  for (let i = edges.length - 1; i >= 0; i--) {
    const e = edges[i] as number;
    if (t >= e) return [e, i + 1 < edges.length ? (edges[i + 1] as number) : OPEN_BUCKET_MAX];
  }
  return [0, OPEN_BUCKET_MAX];
}

/** Sorted, de-duplicated, non-negative integer edges. */
export function normaliseEdges(edges: readonly number[]): number[] {
  return [...new Set(edges.filter((e) => Number.isFinite(e) && e >= 0).map((e) => Math.floor(e)))].sort(
    (a, b) => a - b,
  );
}

/** One bucket's running state. */
export class PromptBucketState {
  count = 0;
  readonly ttft: LatencyHistogram;
  readonly e2el: LatencyHistogram;

  constructor(
    readonly minTokens: number,
    readonly maxTokens: number,
    ttft = new LatencyHistogram(),
    e2el = new LatencyHistogram(),
  ) {
    this.ttft = ttft;
    this.e2el = e2el;
  }

  /** Rebuilds the state from a persisted bucket (histograms decoded when present). */
  static fromBucket(b: PromptBucket): PromptBucketState {
    const ttft = b.histograms?.ttft
      ? LatencyHistogram.decode(b.histograms.ttft, b.ttft)
      : new LatencyHistogram();
    const e2el = b.histograms?.e2el
      ? LatencyHistogram.decode(b.histograms.e2el, b.e2el)
      : new LatencyHistogram();
    const s = new PromptBucketState(b.minTokens, b.maxTokens, ttft, e2el);
    s.count = b.count;
    return s;
  }

  merge(other: PromptBucketState): void {
    this.count += other.count;
    this.ttft.merge(other.ttft);
    this.e2el.merge(other.e2el);
  }

  toBucket(): PromptBucket {
    const histograms: { ttft?: string; e2el?: string } = {};
    if (this.ttft.count > 0) histograms.ttft = this.ttft.encode();
    if (this.e2el.count > 0) histograms.e2el = this.e2el.encode();
    return {
      minTokens: this.minTokens,
      maxTokens: this.maxTokens,
      count: this.count,
      ttft: this.ttft.stats(),
      e2el: this.e2el.stats(),
      histograms,
    };
  }
}

/** Buckets keyed by their range, created as prompts arrive (at most one per distinct range). */
export class PromptBuckets {
  private readonly buckets = new Map<string, PromptBucketState>();

  constructor(private readonly bucketing: 'pow2' | readonly number[] = 'pow2') {}

  /** The bucket for a prompt of `tokens`, created on first use; `count` is incremented. */
  enter(tokens: number): PromptBucketState {
    const [min, max] = promptBucketRange(tokens, this.bucketing);
    let b = this.buckets.get(`${min}:${max}`);
    if (!b) {
      b = new PromptBucketState(min, max);
      this.buckets.set(`${min}:${max}`, b);
    }
    b.count++;
    return b;
  }

  /** Adds a persisted or foreign bucket state; buckets merge when their ranges are equal, else stay apart. */
  mergeState(state: PromptBucketState): void {
    const key = `${state.minTokens}:${state.maxTokens}`;
    const b = this.buckets.get(key);
    if (b) b.merge(state);
    else this.buckets.set(key, state);
  }

  /** Number of distinct buckets. */
  get size(): number {
    return this.buckets.size;
  }

  /** Buckets in ascending order of prompt length. */
  toBuckets(): PromptBucket[] {
    return [...this.buckets.values()]
      .sort((a, b) => a.minTokens - b.minTokens || a.maxTokens - b.maxTokens)
      .map((b) => b.toBucket());
  }
}
