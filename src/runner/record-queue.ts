/**
 * Records held back while a send is due. Handing a finished request's record to the sinks
 * (requests.jsonl, the accumulator's histograms, the diagnosis sample, progress, the caller's
 * own sink) costs tens of microseconds, and the first measured records cost milliseconds
 * (fresh histograms growing, cold code): done as each response ends, that work sat in front of
 * the next send. While the open loop paces, a record is handed on at once only if the next send
 * is far enough away; otherwise it waits, in order, for a gap between sends (the loop calls
 * `deliverUntil` before it sleeps). A small cap keeps the held records few when the loop is
 * behind.
 *
 * @module
 */

import type { Ms, RequestRecord } from '../types.js';

/** A record is handed on at once only if the next send is at least this far away (ms). */
export const RECORD_GAP_MS = 0.2;
/**
 * At most this many records wait; beyond it the oldest is handed on whatever is due. Small on
 * purpose: a record that waits long enough to live through a young-generation collection is
 * copied, then promoted, and a loop behind schedule (no gap at all) held a thousand of them;
 * the scavenges that copied them grew from a few milliseconds to 20–50 ms, which put the loop
 * further behind.
 */
export const MAX_HELD_RECORDS = 32;

export class RecordQueue {
  private held: RequestRecord[] = [];
  private head = 0;
  /** The next send's instant while held (records wait when it is near); undefined: hand on at once. */
  private nextSendMs: Ms | undefined;

  constructor(
    private readonly deliver: (record: RequestRecord) => void,
    private readonly now: () => Ms,
    private readonly maxHeld = MAX_HELD_RECORDS,
  ) {}

  /** Records waiting now. */
  get size(): number {
    return this.held.length - this.head;
  }

  /** A finished request's record: handed on now, or held until a gap between sends. */
  push(record: RequestRecord): void {
    if (this.nextSendMs === undefined || (this.size === 0 && this.roomBefore(this.nextSendMs))) {
      this.deliver(record);
      return;
    }
    this.held.push(record);
    if (this.size > this.maxHeld) this.deliverOne();
  }

  /**
   * The next send is due at `atMs`: hands on held records while there is room before it, then
   * holds what arrives until the next call (or `release`).
   */
  deliverUntil(atMs: Ms): void {
    this.nextSendMs = atMs;
    while (this.size > 0 && this.roomBefore(atMs)) this.deliverOne();
  }

  /** Stops holding: every held record is handed on now, and later ones as they come. */
  release(): void {
    this.nextSendMs = undefined;
    while (this.size > 0) this.deliverOne();
  }

  private roomBefore(atMs: Ms): boolean {
    return this.now() <= atMs - RECORD_GAP_MS;
  }

  private deliverOne(): void {
    const record = this.held[this.head]!;
    this.held[this.head++] = undefined as unknown as RequestRecord;
    if (this.head === this.held.length) {
      this.held.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.held.length) {
      this.held = this.held.slice(this.head);
      this.head = 0;
    }
    this.deliver(record);
  }
}
