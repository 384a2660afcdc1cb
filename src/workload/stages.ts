/**
 * Load shapes over time (k6-style stages, `--stages 30s:10,2m:50,30s:0`): the target (a rate
 * or a concurrency) moves linearly from the previous stage's target (0 before the first) to
 * the stage's own over the stage's duration; a `0s:N` stage jumps to N at once. Pure math:
 *
 * - `StagedArrivals`: open-loop send times whose rate follows the stages (an inhomogeneous
 *   gamma process by time rescaling: unit-mean gamma gaps, shape = burstiness, mapped through
 *   the inverse of the expected-arrivals curve Λ(t), piecewise quadratic).
 * - `nextActiveMs`: when closed-loop worker w may send (worker w runs while the concurrency
 *   target is at least w + 1).
 * - `StageTally`: what each stage achieved (sends, rate, time-weighted requests in flight).
 *
 * @module
 */

import type { LoadStage, StageLoad } from '../types.js';
import { ArrivalSchedule } from './arrivals.js';
import type { Rng } from './rng.js';

export interface StageWindow {
  startMs: number;
  endMs: number;
  from: number;
  to: number;
}

/** The stages as windows on the measured phase's clock (ms), each with its start and end targets. */
export function stageWindows(stages: readonly LoadStage[]): StageWindow[] {
  let t = 0;
  let from = 0;
  return stages.map((s) => {
    const w = { startMs: t, endMs: t + s.durationMs, from, to: s.target };
    t = w.endMs;
    from = s.target;
    return w;
  });
}

/** The target at `tMs` (after the last stage: its target; a 0-length stage is a jump). */
export function targetAt(windows: readonly StageWindow[], tMs: number): number {
  for (const w of windows) {
    if (tMs < w.endMs)
      return w.endMs === w.startMs
        ? w.to
        : w.from + ((w.to - w.from) * (tMs - w.startMs)) / (w.endMs - w.startMs);
  }
  return windows.length > 0 ? windows[windows.length - 1]!.to : 0;
}

/**
 * The first time ≥ fromMs at which closed-loop worker `worker` (0-based) may send: the
 * concurrency target is at least worker + 1. Infinity when that never happens again before
 * the stages end.
 */
export function nextActiveMs(windows: readonly StageWindow[], worker: number, fromMs: number): number {
  const need = worker + 1;
  for (const w of windows) {
    if (w.endMs <= fromMs && w.endMs !== w.startMs) continue;
    if (w.endMs === w.startMs) {
      if (w.endMs >= fromMs && w.to >= need) return Math.max(fromMs, w.startMs);
      continue;
    }
    const start = Math.max(fromMs, w.startMs);
    const atStart = w.from + ((w.to - w.from) * (start - w.startMs)) / (w.endMs - w.startMs);
    if (atStart >= need - 1e-9) return start;
    if (w.to > w.from && w.to >= need) {
      return w.startMs + ((need - w.from) * (w.endMs - w.startMs)) / (w.to - w.from);
    }
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * Open-loop send offsets (ms from the start of the measured phase) whose rate follows the
 * stages; Infinity for arrivals after the last stage. Random access like ArrivalSchedule.
 */
export class StagedArrivals {
  private readonly windows: StageWindow[];
  /** Expected arrivals before each window's start. */
  private readonly before: number[];
  private readonly unit: ArrivalSchedule;
  private readonly total: number;

  constructor(stages: readonly LoadStage[], burstiness: number, rng: Rng) {
    this.windows = stageWindows(stages);
    this.before = [];
    let area = 0;
    for (const w of this.windows) {
      this.before.push(area);
      area += (((w.from + w.to) / 2) * (w.endMs - w.startMs)) / 1000;
    }
    this.total = area;
    // Mean gap 1 ms at 1000/s: offsets in units of expected arrivals.
    this.unit = new ArrivalSchedule(1000, burstiness, rng);
  }

  /** Send offset of the k-th arrival (k ≥ 0). */
  offsetAt(k: number): number {
    // One gap first, so a ramp from 0 does not send at once.
    const u = this.unit.offsetAt(k + 1);
    if (u > this.total) return Number.POSITIVE_INFINITY;
    for (let i = this.windows.length - 1; i >= 0; i--) {
      if (u < this.before[i]!) continue;
      const w = this.windows[i]!;
      const d = w.endMs - w.startMs;
      if (d === 0) continue;
      // Solve (from·τ + (to − from)·τ²/(2d)) / 1000 = u − before for τ in [0, d].
      const c = (u - this.before[i]!) * 1000;
      const a = (w.to - w.from) / (2 * d);
      const b = w.from;
      const root = Math.sqrt(Math.max(0, b * b + 4 * a * c));
      const tau = b + root > 0 ? (2 * c) / (b + root) : 0;
      return w.startMs + Math.min(d, Math.max(0, tau));
    }
    return 0;
  }
}

/** Tallies what each stage achieved, as the load runs (memory: a few numbers per stage). */
export class StageTally {
  private readonly windows: StageWindow[];
  private readonly sentIn: number[];
  private readonly area: number[];
  private lastMs = 0;
  private inFlight = 0;

  constructor(
    stages: readonly LoadStage[],
    private readonly of: 'rate' | 'concurrency',
  ) {
    this.windows = stageWindows(stages);
    this.sentIn = this.windows.map(() => 0);
    this.area = this.windows.map(() => 0);
  }

  private stageOf(tMs: number): number {
    for (let i = 0; i < this.windows.length; i++) if (tMs < this.windows[i]!.endMs) return i;
    return -1;
  }

  /** Adds inFlight × time from the last change to `tMs`, split over the stages it spans. */
  private advance(tMs: number): void {
    if (tMs <= this.lastMs) return;
    if (this.inFlight > 0) {
      for (let i = 0; i < this.windows.length; i++) {
        const w = this.windows[i]!;
        const overlap = Math.min(tMs, w.endMs) - Math.max(this.lastMs, w.startMs);
        if (overlap > 0) this.area[i]! += overlap * this.inFlight;
      }
    }
    this.lastMs = tMs;
  }

  /** A measured request was sent at `tMs` (measured-phase clock). */
  sent(tMs: number): void {
    this.advance(tMs);
    this.inFlight++;
    const i = this.stageOf(tMs);
    if (i >= 0) this.sentIn[i]!++;
  }

  /** A measured request ended at `tMs`. */
  ended(tMs: number): void {
    this.advance(tMs);
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  /** The stages' loads, the run having ended at `endMs`. */
  finish(endMs: number): StageLoad[] {
    this.advance(endMs);
    return this.windows.map((w, i) => {
      const durationMs = w.endMs - w.startMs;
      const coveredMs = Math.max(0, Math.min(endMs, w.endMs) - w.startMs);
      return {
        startMs: w.startMs,
        durationMs,
        of: this.of,
        from: w.from,
        to: w.to,
        targetMean: (w.from + w.to) / 2,
        sent: this.sentIn[i]!,
        achievedRate: durationMs > 0 ? (this.sentIn[i]! * 1000) / durationMs : 0,
        meanInFlight: coveredMs > 0 ? this.area[i]! / coveredMs : 0,
        coveredMs,
      };
    });
  }
}
