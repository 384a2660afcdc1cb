/**
 * The bounds of numeric flags: values outside them cannot be meant (port 99999, a timeout of
 * 0, a 100-million-token prompt) and would otherwise fail deep inside a run, as a crash or a
 * hang. One table, checked where flag values are converted, so every command refuses the same
 * values with the same words.
 *
 * @module
 */

/** The accepted range of one flag (inclusive); `duration` flags are in milliseconds. */
export interface FlagLimit {
  min?: number;
  max?: number;
  /** How to show a value: a plain number, or a duration (ms). */
  unit?: 'ms';
  /** Why the bound is there, for the hint. */
  why?: string;
}

import { MAX_TOKENS } from '../util/index.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The longest prompt or output the simulator and the prompt builder are asked to make. */
export const MAX_FLAG_TOKENS = MAX_TOKENS;
/** The most requests in flight one load generator is asked to hold. */
export const MAX_FLAG_CONCURRENCY = 100_000;

/** Bounds by flag name (without the dashes). Flags not named here are not bounded beyond their type. */
export const FLAG_LIMITS: Readonly<Record<string, FlagLimit>> = {
  port: { min: 0, max: 65_535, why: 'a TCP port (0 picks a free one)' },
  'metrics-port': { min: 0, max: 65_535, why: 'a TCP port (0 picks a free one)' },
  timeout: { min: 1, max: DAY_MS, unit: 'ms', why: 'a request needs some time, and a day is plenty' },
  'ttft-timeout': { min: 0, max: DAY_MS, unit: 'ms', why: '0 turns it off' },
  'scrape-interval': { min: 10, max: HOUR_MS, unit: 'ms' },
  duration: { max: 30 * DAY_MS, unit: 'ms' },
  every: { max: 30 * DAY_MS, unit: 'ms' },
  'prompt-tokens': { max: MAX_FLAG_TOKENS, why: 'longer than any model context' },
  'system-prompt-tokens': { max: MAX_FLAG_TOKENS, why: 'longer than any model context' },
  'max-tokens': { max: MAX_FLAG_TOKENS, why: 'longer than any model context' },
  'turn-tokens': { min: 1, max: MAX_FLAG_TOKENS, why: 'longer than any model context' },
  bins: { min: 1, max: 10_000, why: 'more bins than a terminal or a chart can show' },
  concurrency: { min: 1, max: MAX_FLAG_CONCURRENCY, why: 'more than one process can hold open' },
  'max-concurrency': { min: 1, max: MAX_FLAG_CONCURRENCY, why: 'more than one process can hold open' },
  rate: { max: 1_000_000, why: 'requests per second' },
  requests: { min: 1, max: 1_000_000_000 },
  warmup: { max: 1_000_000 },
  'max-retries': { max: 100 },
  'top-p': { min: 0, max: 1 },
  'cancel-after-ms': { min: 0, max: DAY_MS },
};

function show(value: number, limit: FlagLimit): string {
  if (limit.unit !== 'ms') return String(value);
  if (value >= DAY_MS && value % DAY_MS === 0) return `${value / DAY_MS}d (${value} ms)`;
  if (value >= HOUR_MS && value % HOUR_MS === 0) return `${value / HOUR_MS}h`;
  if (value >= 1000 && value % 1000 === 0) return `${value / 1000}s`;
  return `${value}ms`;
}

/** The accepted range in words, e.g. "at least 1 and at most 65535". */
export function describeLimit(limit: FlagLimit): string {
  const parts: string[] = [];
  if (limit.min !== undefined) parts.push(`at least ${show(limit.min, limit)}`);
  if (limit.max !== undefined) parts.push(`at most ${show(limit.max, limit)}`);
  return parts.join(' and ');
}

/**
 * What is wrong with a flag's value, or undefined when it is within its bounds (or the flag
 * has none).
 *
 * @example
 * flagLimitProblem('port', 99999); // "--port must be at least 0 and at most 65535, got 99999"
 * flagLimitProblem('port', 8000);  // undefined
 */
export function flagLimitProblem(name: string, value: number): string | undefined {
  const limit = FLAG_LIMITS[name];
  if (limit === undefined || !Number.isFinite(value)) return undefined;
  const low = limit.min !== undefined && value < limit.min;
  const high = limit.max !== undefined && value > limit.max;
  if (!low && !high) return undefined;
  return `--${name} must be ${describeLimit(limit)}, got ${show(value, limit)}`;
}
