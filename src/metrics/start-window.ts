/**
 * The start window of an open loop's measured phase (summary.load.startWindow): the dispatch
 * lag of the sends scheduled in its first second beside that of the rest, tallied by the
 * runner at each send, and merged for a run of several load threads or generators. Pure but
 * for the tally's histograms.
 *
 * Merge rule: the sends add up; a p99 cannot be rebuilt from the parts' p99s, so the largest
 * stands for it (an upper bound, as for GC pauses: metrics/gc-pauses.ts). Parts without one
 * (virtual time, a closed loop, an older summary) add nothing; when none has one, there is none.
 *
 * @module
 */

import type { StartWindow } from '../types.js';
import { LatencyHistogram } from './histogram.js';

/** The window: the measured phase's first second. */
export const START_WINDOW_MS = 1000;

/** Tallies each send's lag into the window or after it. */
export class StartWindowTally {
  private readonly first = new LatencyHistogram();
  private readonly later = new LatencyHistogram();

  /** A send scheduled `offsetMs` after the measured start, `lagMs` behind its schedule. */
  add(offsetMs: number, lagMs: number): void {
    (offsetMs < START_WINDOW_MS ? this.first : this.later).record(lagMs);
  }

  /** The tally, or undefined when nothing was sent. */
  result(): StartWindow | undefined {
    if (this.first.count === 0 && this.later.count === 0) return undefined;
    return {
      ms: START_WINDOW_MS,
      sends: this.first.count,
      p99Ms: this.first.count > 0 ? this.first.percentile(99) : 0,
      laterSends: this.later.count,
      laterP99Ms: this.later.count > 0 ? this.later.percentile(99) : 0,
    };
  }
}

/**
 * The parts' windows as one; see the module comment for the rule.
 *
 * @example
 * mergeStartWindows([
 *   { ms: 1000, sends: 1000, p99Ms: 6, laterSends: 9000, laterP99Ms: 2 },
 *   { ms: 1000, sends: 1000, p99Ms: 4, laterSends: 9000, laterP99Ms: 3 },
 * ]);
 * // → { ms: 1000, sends: 2000, p99Ms: 6, laterSends: 18000, laterP99Ms: 3 }
 */
export function mergeStartWindows(parts: ReadonlyArray<StartWindow | undefined>): StartWindow | undefined {
  const measured = parts.filter((w): w is StartWindow => w !== undefined);
  if (measured.length === 0) return undefined;
  return {
    ms: measured[0]!.ms,
    sends: measured.reduce((a, w) => a + w.sends, 0),
    p99Ms: Math.max(...measured.map((w) => w.p99Ms)),
    laterSends: measured.reduce((a, w) => a + w.laterSends, 0),
    laterP99Ms: Math.max(...measured.map((w) => w.laterP99Ms)),
  };
}
