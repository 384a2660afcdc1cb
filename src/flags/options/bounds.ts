/**
 * The bounds of a numeric option in words, and the problem with a value outside them: values
 * that cannot be meant (port 99999, a timeout of 0, a 100-million-token prompt) would
 * otherwise fail deep inside a run, as a crash or a hang. The parser and the config file
 * both check through here, so they refuse the same values with the same words.
 *
 * @module
 */

import type { Bounds } from './table.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** A value as the flag is written: a plain number, or (durations) with its unit. */
function show(value: number, ms: boolean): string {
  if (!ms) return String(value);
  if (value >= DAY_MS && value % DAY_MS === 0) return `${value / DAY_MS}d (${value} ms)`;
  if (value >= HOUR_MS && value % HOUR_MS === 0) return `${value / HOUR_MS}h`;
  if (value >= 1000 && value % 1000 === 0) return `${value / 1000}s`;
  return `${value}ms`;
}

/** The accepted range in words, e.g. "at least 1 and at most 65535"; `ms` shows values as durations. */
export function describeBounds(bounds: Bounds, ms = false): string {
  if (bounds.says !== undefined) return bounds.says;
  const parts: string[] = [];
  if (bounds.min !== undefined) parts.push(`at least ${show(bounds.min, ms)}`);
  if (bounds.above !== undefined) parts.push(`> ${show(bounds.above, ms)}`);
  if (bounds.max !== undefined) parts.push(`at most ${show(bounds.max, ms)}`);
  if (bounds.below !== undefined) parts.push(`< ${show(bounds.below, ms)}`);
  return parts.join(' and ');
}

/** Whether a value is within the bounds (infinity is left to the option's type). */
export function withinBounds(bounds: Bounds, value: number): boolean {
  if (!Number.isFinite(value)) return true;
  return !(
    (bounds.min !== undefined && value < bounds.min) ||
    (bounds.above !== undefined && value <= bounds.above) ||
    (bounds.max !== undefined && value > bounds.max) ||
    (bounds.below !== undefined && value >= bounds.below)
  );
}

/**
 * What is wrong with a flag's value, or undefined when it is within its bounds.
 *
 * @example
 * boundsProblem('port', { min: 0, max: 65_535 }, 99999); // "--port must be at least 0 and at most 65535, got 99999"
 * boundsProblem('port', { min: 0, max: 65_535 }, 8000);  // undefined
 */
export function boundsProblem(flag: string, bounds: Bounds, value: number, ms = false): string | undefined {
  if (withinBounds(bounds, value)) return undefined;
  return `--${flag} must be ${describeBounds(bounds, ms)}, got ${show(value, ms)}`;
}

/** A TCP port (0 picks a free one). */
export const PORT_BOUNDS = { min: 0, max: 65_535, why: 'a TCP port (0 picks a free one)' } as const;
