/**
 * An ADR's durations ("for: 5m") in probe rounds: the one reading of a duration with sparse
 * probes, used by watch's rollback rule and by the alerts `goodput emit prometheus-rules` writes.
 *
 * @module
 */

/**
 * How many consecutive windows (rounds) a duration spans at the watch interval: ceil(duration /
 * every), at least 1.
 *
 * @example
 * windowsForDuration(300_000, 60_000); // 5
 * windowsForDuration(90_000, 60_000); // 2
 */
export function windowsForDuration(forMs: number, everyMs: number): number {
  return Math.max(1, Math.ceil(forMs / everyMs - 1e-9));
}
