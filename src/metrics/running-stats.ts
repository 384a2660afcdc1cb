/**
 * Exact count, mean, standard deviation, min and max of a stream of values, in constant
 * memory (weighted Welford / West update), mergeable exactly (Chan et al.'s parallel formula).
 *
 * The standard deviation is the population one (divide by n), as numpy's `np.std` that vLLM's
 * benchmark uses.
 *
 * @module
 */

import type { LatencyStats } from '../types.js';

/** Running moments of a stream of values. */
export class RunningStats {
  count = 0;
  mean = 0;
  /** Sum of squared deviations from the mean. */
  m2 = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;

  /** Adds `value` with multiplicity `weight` (a positive integer: the value occurred that many times). */
  add(value: number, weight = 1): void {
    if (weight <= 0) return;
    this.count += weight;
    const delta = value - this.mean;
    this.mean += (delta * weight) / this.count;
    this.m2 += weight * delta * (value - this.mean);
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
  }

  /** Adds everything `other` saw, as if its values had been added here. */
  merge(other: RunningStats): void {
    if (other.count === 0) return;
    if (this.count === 0) {
      this.count = other.count;
      this.mean = other.mean;
      this.m2 = other.m2;
      this.min = other.min;
      this.max = other.max;
      return;
    }
    const n = this.count + other.count;
    const delta = other.mean - this.mean;
    this.mean += (delta * other.count) / n;
    this.m2 += other.m2 + (delta * delta * this.count * other.count) / n;
    this.count = n;
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
  }

  /** Population standard deviation (0 when empty). */
  get std(): number {
    return this.count > 0 ? Math.sqrt(Math.max(0, this.m2 / this.count)) : 0;
  }

  /** Rebuilds the moments from a persisted LatencyStats (count, mean, std, min, max are exact there). */
  static fromLatencyStats(stats: LatencyStats): RunningStats {
    const s = new RunningStats();
    if (stats.count <= 0) return s;
    s.count = stats.count;
    s.mean = stats.mean;
    s.m2 = stats.std * stats.std * stats.count;
    s.min = stats.min;
    s.max = stats.max;
    return s;
  }
}
