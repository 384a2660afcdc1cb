/**
 * The per-user view of a run: each request's output tokens per second once its answer streams,
 * kept in a mergeable histogram and summarised with its slow tail (p1, p10).
 *
 * Definition (AIPerf's "output token throughput per user"): decode time is E2EL − TTFT, over
 * which the tokens after the first arrived, so a request's rate is (output tokens − 1) ÷
 * decode time in seconds = 1000 / TPOT. A request of one token (or none) has no rate.
 *
 * @module
 */

import type { PerUserSummary, RateStats } from '../types.js';
import { LatencyHistogram } from './histogram.js';

/** The distribution of per-user rates (a LatencyHistogram holding tokens/s in place of ms: 4 significant digits). */
export class UserRates {
  constructor(readonly histogram: LatencyHistogram = new LatencyHistogram()) {}

  record(tokensPerS: number): void {
    this.histogram.record(tokensPerS);
  }

  get count(): number {
    return this.histogram.count;
  }

  merge(other: UserRates): void {
    this.histogram.merge(other.histogram);
  }

  stats(): RateStats {
    const h = this.histogram;
    if (h.count === 0) return { count: 0, mean: 0, min: 0, max: 0, p1: 0, p10: 0, p50: 0, p90: 0, p99: 0 };
    const all = h.stats();
    return {
      count: all.count,
      mean: all.mean,
      min: all.min,
      max: all.max,
      p1: h.percentile(1),
      p10: h.percentile(10),
      p50: all.p50,
      p90: all.p90,
      p99: all.p99,
    };
  }

  /** The summary block, or undefined when no request had a rate. */
  summary(): PerUserSummary | undefined {
    if (this.count === 0) return undefined;
    return { outputTokensPerS: this.stats(), histogram: this.histogram.encode() };
  }

  /** From a summary's block (exact count, mean, min and max kept beside the histogram). */
  static fromSummary(block: PerUserSummary): UserRates {
    const s = block.outputTokensPerS;
    if (!block.histogram) return new UserRates();
    const exact = { ...s, std: 0, p95: s.p90, p999: s.p99 };
    return new UserRates(LatencyHistogram.decode(block.histogram, exact));
  }
}
