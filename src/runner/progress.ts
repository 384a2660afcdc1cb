/**
 * Progress of a run on stderr, in one of three forms:
 * - `bar`: a one-line bar redrawn on a timer (4 times a second, so a stalled server shows as a
 *   clock that keeps running with no new requests), with rate and ETA; the default on a terminal;
 * - `lines`: a plain line every 10 s, for pipes and CI logs (the default when stderr is not a
 *   terminal), so a long run is visibly alive;
 * - `none`.
 * Counts come from the records as they land; the line itself is a pure function of them.
 *
 * @module
 */

import type { RequestRecord } from '../types.js';

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export type ProgressMode = 'bar' | 'lines' | 'none';

const WIDTH = 24;
export const BAR_REDRAW_MS = 250;
export const LINE_EVERY_MS = 10_000;

/** What the progress line shows; everything counts measured requests (warmup excluded). */
export interface ProgressState {
  elapsedMs: number;
  done: number;
  failed: number;
  outputTokens: number;
  /** Expected measured requests (count-bound runs). */
  total?: number;
  /** Expected duration (time-bound runs). */
  durationMs?: number;
}

/** Fraction done (0..1): by requests, by time, whichever is further. */
export function progressFraction(s: ProgressState): number {
  let f = 0;
  if (s.total !== undefined && s.total > 0) f = s.done / s.total;
  if (s.durationMs !== undefined && s.durationMs > 0) f = Math.max(f, s.elapsedMs / s.durationMs);
  return Math.min(1, Math.max(0, f));
}

/** Seconds left, when a rate or a deadline says; undefined before anything is known. */
export function etaSeconds(s: ProgressState): number | undefined {
  const left: number[] = [];
  if (s.durationMs !== undefined && s.durationMs > 0)
    left.push(Math.max(0, s.durationMs - s.elapsedMs) / 1000);
  if (s.total !== undefined && s.done > 0 && s.elapsedMs > 0) {
    const perS = s.done / (s.elapsedMs / 1000);
    left.push(Math.max(0, s.total - s.done) / perS);
  }
  return left.length === 0 ? undefined : Math.min(...left);
}

function fmtSeconds(s: number): string {
  if (s < 60) return `${s.toFixed(0)}s`;
  const m = Math.floor(s / 60);
  return `${m}m${String(Math.round(s - m * 60)).padStart(2, '0')}s`;
}

/** The counts and rates of a progress line: `412/1000 req  ok 410  failed 2  34.3 req/s  1250 tok/s  ETA 18s`. */
export function progressText(s: ProgressState): string {
  const secs = s.elapsedMs / 1000;
  const count = s.total !== undefined ? `${s.done}/${s.total}` : `${s.done}`;
  const reqRate = secs > 0 ? s.done / secs : 0;
  const tokRate = secs > 0 ? s.outputTokens / secs : 0;
  const eta = etaSeconds(s);
  return [
    `${count} req`,
    `${secs.toFixed(1)}s`,
    `ok ${s.done - s.failed}`,
    `failed ${s.failed}`,
    `${reqRate.toFixed(1)} req/s`,
    `${tokRate.toFixed(0)} tok/s`,
    ...(eta !== undefined ? [`ETA ${fmtSeconds(eta)}`] : []),
  ].join('  ');
}

/** The bar form: `[####----] 412/1000 req  …`. */
export function barLine(s: ProgressState): string {
  const filled = Math.round(progressFraction(s) * WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${progressText(s)}`;
}

/** The lines form: `progress: 40% 412/1000 req  …`. */
export function plainLine(s: ProgressState): string {
  return `progress: ${Math.round(progressFraction(s) * 100)}% ${progressText(s)}\n`;
}

/** The mode asked for, or by default a bar on a terminal and lines elsewhere. */
export function progressMode(
  asked: ProgressMode | undefined,
  stream: ProgressStream | undefined,
): ProgressMode {
  if (!stream) return 'none';
  return asked ?? (stream.isTTY === true ? 'bar' : 'lines');
}

/** Tracks measured records and draws them on a timer; `stop()` clears the bar. */
export class Progress {
  private done = 0;
  private failed = 0;
  private outputTokens = 0;
  private readonly startedAt: number;
  private drawn = false;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly stream: ProgressStream,
    private readonly mode: Exclude<ProgressMode, 'none'>,
    private readonly total: number | undefined,
    private readonly durationMs: number | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.startedAt = now();
  }

  /** Starts redrawing (bar) or printing (lines, every `lineEveryMs`) on a timer that never keeps the process alive. */
  start(lineEveryMs = LINE_EVERY_MS): this {
    const every = this.mode === 'bar' ? BAR_REDRAW_MS : lineEveryMs;
    this.timer = setInterval(() => this.draw(), every);
    this.timer.unref?.();
    return this;
  }

  add(record: RequestRecord): void {
    if (record.warmup) return;
    this.done++;
    if (record.outcome !== 'success') this.failed++;
    this.outputTokens += record.outputTokens;
  }

  state(): ProgressState {
    const s: ProgressState = {
      elapsedMs: this.now() - this.startedAt,
      done: this.done,
      failed: this.failed,
      outputTokens: this.outputTokens,
    };
    if (this.total !== undefined) s.total = this.total;
    if (this.durationMs !== undefined) s.durationMs = this.durationMs;
    return s;
  }

  /** Draws once now (the timer calls this). */
  draw(): void {
    if (this.mode === 'bar') {
      this.stream.write(`\r${barLine(this.state())}\x1b[K`);
      this.drawn = true;
    } else {
      this.stream.write(plainLine(this.state()));
    }
  }

  /** Stops the timer and clears the bar so that what follows starts on a clean line. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}
