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

  /** Offers an item; `make` is called only when the item is kept. */
  offer(make: () => T): void {
    this.seen++;
    if (this.items.length < this.capacity) {
      this.items.push(make());
      return;
    }
    const j = Math.floor(this.random() * this.seen);
    if (j < this.capacity) this.items[j] = make();
  }
}
