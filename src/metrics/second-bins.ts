/**
 * Per-second totals (tokens arrived, requests active) with a bounded number of live seconds,
 * for vLLM's `max_output_tokens_per_s` and `max_concurrent_requests`.
 *
 * Records reach the accumulator when they end, so a request can still add to a second that
 * is minutes old. The bins keep the most recent `maxBins` seconds exact; when there are more,
 * the oldest half is folded into a settled peak and forgotten. A record that adds to a second
 * already folded (one that lasted longer than about maxBins / 2 seconds) starts a fresh bin
 * for it, so the peak can only be understated, and only for such very long requests.
 *
 * @module
 */

/** Default number of live seconds kept (about 68 minutes). */
export const DEFAULT_MAX_SECOND_BINS = 4096;

/** Sums per whole second of the run clock, in memory bounded by maxBins. */
export class SecondBins {
  private readonly bins = new Map<number, number>();
  private settledPeak = 0;

  constructor(private readonly maxBins = DEFAULT_MAX_SECOND_BINS) {}

  /** Adds `amount` to the second containing `ms` (run clock). */
  addAt(ms: number, amount: number): void {
    this.add(Math.floor(ms / 1000), amount);
  }

  /** Adds 1 to every second from the one containing `fromMs` to the one containing `toMs`. */
  addSpan(fromMs: number, toMs: number): void {
    const last = Math.floor(toMs / 1000);
    const first = Math.max(Math.floor(fromMs / 1000), last - this.maxBins + 1);
    for (let s = first; s <= last; s++) this.add(s, 1);
  }

  private add(second: number, amount: number): void {
    this.bins.set(second, (this.bins.get(second) ?? 0) + amount);
    if (this.bins.size > this.maxBins) this.settleOldestHalf();
  }

  private settleOldestHalf(): void {
    const seconds = [...this.bins.keys()].sort((a, b) => a - b);
    const cut = Math.floor(seconds.length / 2);
    for (let i = 0; i < cut; i++) {
      const second = seconds[i] as number;
      this.settledPeak = Math.max(this.settledPeak, this.bins.get(second) ?? 0);
      this.bins.delete(second);
    }
  }

  /** Number of seconds currently held (never more than maxBins). */
  get size(): number {
    return this.bins.size;
  }

  /** The largest per-second total seen (0 when nothing was added). */
  peak(): number {
    let peak = this.settledPeak;
    for (const v of this.bins.values()) if (v > peak) peak = v;
    return peak;
  }
}
