/**
 * Precise waits for the open loop: setTimeout for the bulk of the wait (timers fire late by
 * a millisecond or more), then setImmediate turns for the last stretch, so that sends leave
 * within a fraction of a millisecond of their scheduled time without burning a core.
 *
 * @module
 */

import type { LoadClock, Ms } from '../types.js';

/** How much of the wait is left to setImmediate turns instead of setTimeout. */
const SPIN_WINDOW_MS = 1.5;

const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Resolves at `targetMs` on the clock (or at once if it has passed), or early when the
 * signal aborts. Returns false when woken by the signal.
 */
export async function sleepUntil(clock: { now(): Ms }, targetMs: Ms, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  const coarse = targetMs - clock.now() - SPIN_WINDOW_MS;
  if (coarse > 0) {
    const woke = await new Promise<boolean>((resolve) => {
      const onAbort = () => {
        clearTimeout(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      }, coarse);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    if (!woke) return false;
  }
  while (clock.now() < targetMs) {
    if (signal?.aborted) return false;
    await immediate();
  }
  return !signal?.aborted;
}

/** The wall clock of a live run, whose zero can be moved: the run's t0 is set after connections are opened. */
export class RunClock implements LoadClock {
  readonly realTime = true;
  private origin = performance.now();

  now(): Ms {
    return performance.now() - this.origin;
  }

  sleepUntil(targetMs: Ms, signal?: AbortSignal): Promise<boolean> {
    return sleepUntil(this, targetMs, signal);
  }

  at(targetMs: Ms, fn: () => void): () => void {
    const timer = setTimeout(fn, Math.max(0, targetMs - this.now()));
    return () => clearTimeout(timer);
  }

  outside<T>(p: Promise<T>): Promise<T> {
    return p;
  }

  run<T>(work: Promise<T>): Promise<T> {
    return work;
  }

  /** Makes "now" the run's t0. */
  reset(): void {
    this.origin = performance.now();
  }

  /**
   * The run's t0 on the process-wide monotonic clock (ns), the same in every thread: a load
   * worker's clock set from it (`startAt`) reads the same times as this one.
   */
  originNs(): bigint {
    return process.hrtime.bigint() - BigInt(Math.round(this.now() * 1e6));
  }

  /** Takes t0 from another thread's clock (`originNs`). */
  startAt(originNs: bigint): void {
    this.origin = performance.now() - Number(process.hrtime.bigint() - originNs) / 1e6;
  }
}
