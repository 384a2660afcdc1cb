/**
 * A fixed-size uniform sample of a stream (Vitter's algorithm R), so that whatever is kept per
 * request for later analysis (diagnosis observations) stays bounded however long the run:
 * memory must not grow with the number of requests.
 *
 * @module
 */

/** Keeps at most `capacity` items, each item of the stream equally likely to be kept. */
export class Reservoir<T> {
  readonly items: T[] = [];
  private seen = 0;

  /** `random` returns uniform numbers in [0, 1) (a seeded stream, for reproducible samples). */
  constructor(
    readonly capacity: number,
    private readonly random: () => number,
  ) {}

  /** Items offered so far (kept or not). */
  get offered(): number {
    return this.seen;
  }

  /** Items kept so far. */
  get size(): number {
    return Math.min(this.seen, this.capacity);
  }

  /** Offers an item; `make` is called only when the item is kept. */
  offer(make: () => T): void {
    const slot = this.slot();
    if (slot >= 0) this.items[slot] = make();
  }

  /**
   * Offers the next item of the stream without holding it: the slot to keep it in (0 ≤ slot <
   * capacity, replacing what the slot held), or −1 when it is not kept. For callers that store
   * the items themselves (`items` stays empty then).
   */
  slot(): number {
    this.seen++;
    if (this.seen <= this.capacity) return this.seen - 1;
    const j = Math.floor(this.random() * this.seen);
    return j < this.capacity ? j : -1;
  }
}
