/**
 * A one-line progress bar on stderr, redrawn at most ten times a second, only when stderr
 * is a terminal (pipes and CI logs get nothing). Counts come from the records as they land.
 *
 * @module
 */

import type { RequestRecord } from '../types.js';

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

const WIDTH = 24;
const REDRAW_MS = 100;

/** Tracks measured records and draws `[####----] 40/80 req  12.3s  ok 38  err 2`. */
export class ProgressBar {
  private done = 0;
  private errors = 0;
  private lastDraw = 0;
  private readonly startedAt = performance.now();
  private drawn = false;

  constructor(
    private readonly stream: ProgressStream,
    /** Expected measured requests (count-bound runs). */
    private readonly total: number | undefined,
    /** Expected duration (time-bound runs). */
    private readonly durationMs: number | undefined,
  ) {}

  /** True when the stream is a terminal, so a bar is worth drawing. */
  static wanted(stream: ProgressStream | undefined): stream is ProgressStream {
    return stream?.isTTY === true;
  }

  add(record: RequestRecord): void {
    if (record.warmup) return;
    this.done++;
    if (record.outcome !== 'success') this.errors++;
    const now = performance.now();
    if (now - this.lastDraw >= REDRAW_MS) {
      this.lastDraw = now;
      this.draw(now);
    }
  }

  /** The line as it would be drawn now (no terminal codes). */
  line(now = performance.now()): string {
    const elapsedMs = now - this.startedAt;
    let fraction = 0;
    if (this.total !== undefined && this.total > 0) fraction = this.done / this.total;
    if (this.durationMs !== undefined && this.durationMs > 0) {
      fraction = Math.max(fraction, elapsedMs / this.durationMs);
    }
    fraction = Math.min(1, fraction);
    const filled = Math.round(fraction * WIDTH);
    const count = this.total !== undefined ? `${this.done}/${this.total}` : `${this.done}`;
    const ok = this.done - this.errors;
    return `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${count} req  ${(elapsedMs / 1000).toFixed(1)}s  ok ${ok}  failed ${this.errors}`;
  }

  private draw(now: number): void {
    this.stream.write(`\r${this.line(now)}\x1b[K`);
    this.drawn = true;
  }

  /** Clears the bar so that what follows starts on a clean line. */
  finish(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
  }
}
