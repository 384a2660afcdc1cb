/**
 * Helpers shared by the readers of other tools' results (pure): what a reader returns, numbers
 * and objects read defensively, exact unit conversion, latency statistics put under their
 * catalogue ids.
 *
 * @module
 */

import type { ImportedSamples } from '../types.js';
import { type LatencyStatKey, latencyMetricOf } from './catalogue.js';

/** What one benchmark of a source gives, before it is stamped with its source. */
export interface ImportedFigures {
  figures: Record<string, number>;
  notes: string[];
  context: Array<[string, string]>;
  model?: string;
  date?: string;
  /** A benchmark's name within a file holding several (a guidellm strategy). */
  label?: string;
  samples?: ImportedSamples;
}

/** A finite number, else undefined (null, a string, NaN and a missing key are not figures). */
export function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** A plain object, else undefined. */
export function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

/** The time units the tools write, as a multiplier to milliseconds or a divisor from them. */
const TIME_UNITS: Record<string, { times: number } | { over: number }> = {
  ms: { times: 1 },
  s: { times: 1000 },
  sec: { times: 1000 },
  second: { times: 1000 },
  seconds: { times: 1000 },
  us: { over: 1000 },
  ns: { over: 1_000_000 },
};

/**
 * A time in the unit a source states, in milliseconds (×1000 for seconds, ÷10⁶ for
 * nanoseconds: one exact operation); undefined for a unit not known.
 */
export function toMs(value: number, unit: string): number | undefined {
  const u = TIME_UNITS[unit.trim().toLowerCase()];
  if (u === undefined) return undefined;
  return 'times' in u ? value * u.times : value / u.over;
}

/** Puts a latency's statistics under their catalogue ids (`ttft_p99`, …), skipping what is not a number. */
export function putLatency(
  figures: Record<string, number>,
  latency: string,
  stats: Partial<Record<LatencyStatKey, unknown>>,
): void {
  for (const [stat, value] of Object.entries(stats)) {
    const v = finite(value);
    const def = latencyMetricOf(latency, stat);
    if (v !== undefined && def) figures[def.id] = v;
  }
}
