/**
 * One way to split a workload: a `Part` (k6's ExecutionSegment is the model), pure, so that
 * every part computes its own share without talking to the others, and the union of the parts
 * is exactly the whole.
 *
 * A part is "every `count`-th position, from `index` on": shard `i/N` of a run is `Part(i, N)`;
 * load worker k of n inside it is `shard.sub(k, n)` (itself a part of the run: worker 1 of 2
 * of shard 1/3 is part 4/6); the users of a closed-loop stage that one process or worker runs
 * are its part of the stage's users.
 *
 * - Items: the part takes the positions ≡ index (mod count), counted separately among warmup
 *   items and among measured items; each keeps its global index, id and (open loop) scheduled
 *   offset, so the parts' arrivals together are the whole arrival schedule.
 * - Integer budgets (closed-loop concurrency, an open loop's --max-concurrency, sessions at
 *   once): the part's share of a total is how many of the positions below it are the part's,
 *   so the shares are as even as can be (the first `total mod count` parts take one more),
 *   they add up to the total, and a sub-part's share of the whole is its share of its part's.
 *
 * @module
 */

import { GoodputError } from '../errors.js';

/** A part's position and stride, as data (what crosses threads and config files). */
export interface PartSpec {
  readonly index: number;
  readonly count: number;
}

/** Part `index` (0-based) of `count`: the positions index, index + count, index + 2·count, … */
export class Part implements PartSpec {
  /** The whole: every position. */
  static readonly whole = new Part(0, 1);

  private constructor(
    readonly index: number,
    readonly count: number,
  ) {}

  /** The part `index` of `count`; `spec` may be a Part already, or its data (a Part loses its class across threads). */
  static of(spec: PartSpec): Part {
    return spec instanceof Part ? spec : new Part(spec.index, spec.count);
  }

  /** Part k of n of this part: its positions k, k + n, … (as a part of the whole). */
  sub(k: number, n: number): Part {
    return n === 1 ? this : new Part(this.index + this.count * k, this.count * n);
  }

  /** How many of the positions 0..total-1 are this part's: its share of `total` items or of a budget. */
  share(total: number): number {
    return total > this.index ? Math.ceil((total - this.index) / this.count) : 0;
  }

  /** The position in the whole of the part's `local`-th position. */
  position(local: number): number {
    return local * this.count + this.index;
  }

  /** Whether position `position` of the whole is this part's. */
  has(position: number): boolean {
    return position % this.count === this.index;
  }

  /**
   * The whole workload's item index of the part's `local`-th item, warmup first: the part's
   * warmup items are its share of the `warmup` warmup items, then its share of the measured ones.
   */
  itemIndex(local: number, warmup: number): number {
    const localWarmup = this.share(warmup);
    return local < localWarmup ? this.position(local) : warmup + this.position(local - localWarmup);
  }

  /** Whether the whole workload's item `index` (warmup included) is this part's. */
  hasItem(index: number, warmup: number): boolean {
    return this.has(index < warmup ? index : index - warmup);
  }
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
  return Part.of({ index, count });
}
