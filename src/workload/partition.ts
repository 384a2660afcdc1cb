/**
 * Deterministic partitions of one workload into N parts (shards on several machines, or
 * worker threads in one process), pure so that every part computes its own share without
 * talking to the others, and the union of the parts is exactly the whole workload.
 *
 * - Requests: part `index` of `count` takes the items whose position is ≡ index (mod count),
 *   counted separately among warmup items and among measured items; each keeps its global
 *   index, id and (open loop) scheduled offset, so the parts' arrivals together are the
 *   whole arrival schedule.
 * - Integer budgets (closed-loop concurrency, an open loop's --max-concurrency): split as
 *   evenly as possible, the first `total mod count` parts taking one more.
 *
 * @module
 */

import { GoodputError } from '../errors.js';

/** Part `index` (0-based) of `count`. */
export interface Part {
  index: number;
  count: number;
}

/** Items among the first `total` (positions 0..total-1) that belong to the part. */
export function partShare(total: number, part: Part): number {
  return total > part.index ? Math.ceil((total - part.index) / part.count) : 0;
}

/** The position in the whole of the part's `local`-th item. */
export function partPosition(local: number, part: Part): number {
  return local * part.count + part.index;
}

/** The part's share of an integer budget: ⌊total / count⌋, plus one for the first total mod count parts. */
export function splitBudget(total: number, part: Part): number {
  return Math.floor(total / part.count) + (part.index < total % part.count ? 1 : 0);
}

/**
 * The whole workload's item index of the part's `local`-th item, warmup first: the part's
 * warmup items are its share of the `warmup` warmup items, then its share of the measured ones.
 */
export function partItemIndex(local: number, warmup: number, part: Part): number {
  const localWarmup = partShare(warmup, part);
  return local < localWarmup ? partPosition(local, part) : warmup + partPosition(local - localWarmup, part);
}

/** Largest number of parts `--shard` accepts. */
export const MAX_PARTS = 10_000;

/** `--shard i/N` (i from 0 to N−1) → the part, or a usage error naming the fix. */
export function parseShard(text: string): Part {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || !(count >= 1 && count <= MAX_PARTS) || !(index < count)) {
    throw new GoodputError(
      'E_USAGE',
      `--shard expects i/N with 0 ≤ i < N ≤ ${MAX_PARTS}, got '${text}'`,
      'shards count from 0: --shard 0/3, --shard 1/3 and --shard 2/3 together run the whole workload',
    );
  }
  return { index, count };
}
