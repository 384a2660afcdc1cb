/**
 * Precise waits for the open loop: the pacer thread (pacer.ts) sleeps through the bulk of a
 * wait without a busy core and wakes the event loop a tenth of a millisecond early; setImmediate
 * turns then cover the last stretch, so a send leaves within microseconds of its instant even
 * when the sleeping thread wakes late. Until the pacer is online, setTimeout (which fires a
 * millisecond or more late) covers the bulk instead.
 *
 * @module
 */

import type { LoadClock, Ms } from '../types.js';
import { monotonicMs, Pacer } from './pacer.js';

let pacer: Pacer | undefined;

/** This thread's pacer (each load worker has its own), started on first use. */
function threadPacer(): Pacer {
  pacer ??= new Pacer();
  return pacer;
}

/**
 * The last stretch of a wait is turned over in the event loop (setImmediate) rather than
 * slept: a sleeping thread wakes tens of microseconds late on an idle machine, while the turns
 * keep polling I/O and cost one Immediate each. But turning the loop over is a busy core: at
 * 2,000 sends/s, Poisson, a window of w ms spins 1 − e^(−2w) of the time (63 % for 0.5 ms),
 * and on a machine shared with the server under test a busy thread is the one the kernel
 * preempts, for milliseconds. Measured on 2 loaded cores (the pacing alone, no I/O): a 0.5 ms
 * window used 26–56 % of a core with a lag p99 of 11–22 ms; 0.1 ms used 13–17 % (setTimeout
 * alone 5–8 %) with a p99 of 7.5–15 ms, and kept the p50 at 0.02–0.04 ms (setTimeout: 0.7 ms).
 * With the pacer the sleep ends within this of the instant…
 */
const PACER_SPIN_WINDOW_MS = 0.1;

/** …with setTimeout (before the pacer runs), which fires a millisecond or more late, within this. */
const SPIN_WINDOW_MS = 1.5;

/**
 * Checks the clock once per event-loop turn (setImmediate, so I/O is polled in between) until
 * `targetMs`. One promise per wait and no allocation per turn beyond the Immediate: at high
 * rates the loop is in this window most of the time, and a promise per turn fed the garbage
 * collector whose pauses made sends late.
 */
function spinUntil(clock: { now(): Ms }, targetMs: Ms, signal?: AbortSignal): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const check = () => {
      if (signal?.aborted) resolve(false);
      else if (clock.now() >= targetMs) resolve(true);
      else setImmediate(check);
    };
    setImmediate(check);
  });
}

/**
 * Resolves at `targetMs` on the clock (or at once if it has passed), or early when the
 * signal aborts. Returns false when woken by the signal.
 */
export async function sleepUntil(clock: { now(): Ms }, targetMs: Ms, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  const pacer = threadPacer();
  const paced = pacer.ready;
  const coarse = targetMs - clock.now() - (paced ? PACER_SPIN_WINDOW_MS : SPIN_WINDOW_MS);
  if (coarse > 0) {
    const woke = paced
      ? await pacer.wake(monotonicMs() + coarse, signal)
      : await new Promise<boolean>((resolve) => {
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
  if (clock.now() < targetMs) return spinUntil(clock, targetMs, signal);
  return !signal?.aborted;
}

/** The wall clock of a live run, whose zero can be moved: the run's t0 is set after connections are opened. */
export class RunClock implements LoadClock {
  readonly realTime = true;
  private origin = performance.now();

  /**
   * `bootPacer` false: a load that never waits on the clock (a plain closed loop) leaves the
   * pacer thread unstarted, sparing its isolate (about 8 MB of RSS); a wait still starts it.
   */
  constructor(opts: { bootPacer?: boolean } = {}) {
    // A run's clock is made before its connections open: the pacer boots meanwhile.
    if (opts.bootPacer !== false) threadPacer().prepare();
  }

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
