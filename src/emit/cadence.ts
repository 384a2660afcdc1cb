/**
 * The probe cadence of `goodput watch` (`--every`, `--jitter`) and the windows that follow from
 * it, so that an ADR's "X for 5 minutes" means the same in an alert as in watch's rollback rule.
 *
 * watch's exporter holds each round's figures in gauges until the next round, so a breach is a
 * step that lasts as long as the bad rounds do. "for D" is N = ceil(D / every) consecutive bad
 * rounds (`windowsForDuration`, as watch's rollback rule counts them). An alert's `for:` is (N − ½) × every: N bad rounds hold
 * the gauge bad for N gaps between round ends, N − 1 bad rounds for N − 1 gaps, and the half
 * interval between the two absorbs the jitter (a gap of k rounds varies by ±2 × jitter × every,
 * as round starts move by ±jitter × every without accumulating), the scrape and the evaluation:
 * with jitter 0.1 that leaves 0.3 × every for scrape_interval + 2 × evaluation_interval.
 *
 * @module
 */

import { windowsForDuration } from '../adr/index.js';

export interface Cadence {
  /** Time between round starts (watch --every), ms. */
  everyMs: number;
  /** Fraction of every by which a round start moves either way (watch --jitter). */
  jitter: number;
}

/** watch's defaults: --every 5m --jitter 0.1. */
export const DEFAULT_CADENCE: Cadence = { everyMs: 300_000, jitter: 0.1 };

/** Rounds without a valid one after which the probes count as stopped. */
export const STALE_ROUNDS = 3;

/** Consecutive rounds that make a duration (ms) at this cadence. */
export function roundsFor(forMs: number, c: Cadence): number {
  return windowsForDuration(forMs, c.everyMs);
}

/** The alert `for:` (ms) of N consecutive bad rounds: (N − ½) × every. */
export function alertForMs(rounds: number, c: Cadence): number {
  return Math.round((rounds - 0.5) * c.everyMs);
}

/** No valid round for this long (ms): the probes have stopped. */
export function staleAfterMs(c: Cadence): number {
  return STALE_ROUNDS * c.everyMs;
}

/**
 * A range (ms) that holds at least one round end wherever it is placed: two intervals plus the
 * largest shift of a round by jitter. Dashboard ranges use it, so every step has data.
 */
export function roundRangeMs(c: Cadence): number {
  return Math.ceil((2 + 2 * c.jitter) * c.everyMs);
}

/** A Prometheus duration, e.g. 270000 → "4m30s", 2500 → "2s500ms". */
export function promDuration(ms: number): string {
  const units: Array<[string, number]> = [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ];
  let rest = Math.round(ms);
  if (rest <= 0) return '0s';
  let out = '';
  for (const [u, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${u}`;
    rest -= n * size;
  }
  return out;
}
