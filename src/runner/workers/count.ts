/**
 * `--workers`: how many load workers a run asks for, and how many have something to do.
 *
 * @module
 */

import { GoodputError } from '../../errors.js';
import type { LoadSpec } from '../../types.js';

/** The largest worker count accepted (far above any machine's core count worth splitting over). */
export const MAX_WORKERS = 256;

/**
 * `--workers` as given (a whole number or `auto`) → a worker count. `auto` is the cores of
 * this machine minus one (one is left to the main thread and the rest of the system), at least 1.
 */
export function resolveWorkerCount(flag: string | number | undefined, cores: number): number {
  if (flag === undefined) return 1;
  if (flag === 'auto') return Math.max(1, cores - 1);
  const n = typeof flag === 'number' ? flag : /^\d+$/.test(flag.trim()) ? Number(flag.trim()) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_WORKERS) {
    throw new GoodputError(
      'E_USAGE',
      `--workers must be a whole number from 1 to ${MAX_WORKERS}, or auto, got '${flag}'`,
      `pass e.g. --workers 2, or --workers auto (this machine: ${Math.max(1, cores - 1)})`,
    );
  }
  return n;
}

/**
 * Workers that have something to do: no more than the closed loop's concurrency, the open
 * loop's cap on requests in flight, or the measured request count.
 */
export function effectiveWorkers(load: LoadSpec, requested: number): number {
  let n = requested;
  if (load.mode === 'closed') n = Math.min(n, Math.max(1, load.concurrency ?? 1));
  if (load.mode === 'open' && load.maxConcurrency !== undefined) n = Math.min(n, load.maxConcurrency);
  if (load.requests !== undefined) n = Math.min(n, load.requests);
  return Math.max(1, n);
}
