/**
 * The stop rules of a load, apart from its shape: the caller's signal (Ctrl-C, a failed
 * write), `--duration` (a deadline on the load's clock) and `--requests` (the item limit the
 * strategies read). At the deadline or on the signal nothing more is sent and the requests in
 * flight are aborted: the client records them as INTERRUPTED and the result says so.
 *
 * @module
 */

import { setMaxListeners } from 'node:events';
import type { LoadClock, LoadSpec, Ms } from '../types.js';

export type StopReason = 'requests' | 'duration' | 'signal';

export class StopRules {
  /** Every request in flight listens on this one signal: thousands at high concurrency. */
  private readonly inFlightAbort = new AbortController();
  /** Every closed-loop user, stage user and session sleeps on this one: tens to thousands. */
  private readonly stopSending = new AbortController();
  reason: StopReason = 'requests';
  interrupted = false;
  private cancelDeadline: (() => void) | undefined;
  private readonly onSignal = () => {
    this.interrupted = true;
    this.stop('signal', true);
  };

  /** `inFlight`: requests in flight now; `onStop`: wakes whatever waits for a slot. */
  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly inFlight: () => number,
    private readonly onStop: () => void,
  ) {
    setMaxListeners(0, this.inFlightAbort.signal);
    setMaxListeners(0, this.stopSending.signal);
    if (signal?.aborted) this.onSignal();
    signal?.addEventListener('abort', this.onSignal, { once: true });
  }

  /** Aborts when nothing more may be sent. */
  get stopped(): AbortSignal {
    return this.stopSending.signal;
  }

  /** What every request in flight is sent with: aborts at the deadline or on the signal. */
  get requests(): AbortSignal {
    return this.inFlightAbort.signal;
  }

  /** Stops sending; `abortInFlight` interrupts what is in flight too. */
  stop(reason: StopReason, abortInFlight: boolean): void {
    if (this.stopSending.signal.aborted) return;
    this.reason = reason;
    this.stopSending.abort();
    if (abortInFlight) {
      if (this.inFlight() > 0) this.interrupted = true;
      this.inFlightAbort.abort(new Error(reason === 'signal' ? 'run stopped' : 'duration reached'));
    }
    this.onStop();
  }

  /** `--duration` from the measured start: the deadline (Infinity without one), armed on the clock. */
  deadline(load: LoadSpec, clock: LoadClock, measuredStartMs: Ms): Ms {
    if (load.durationMs === undefined) return Number.POSITIVE_INFINITY;
    const deadline = measuredStartMs + load.durationMs;
    this.cancelDeadline = clock.at(deadline, () => this.stop('duration', true));
    return deadline;
  }

  /** `--requests`: the item index past the last measured one (Infinity without it). */
  static limit(load: LoadSpec): number {
    return load.requests === undefined ? Number.POSITIVE_INFINITY : load.warmup + load.requests;
  }

  /** The load ended by itself: its items ran out (unless a rule stopped it first). */
  finished(): void {
    if (!this.stopSending.signal.aborted) this.reason = 'requests';
  }

  /** Stops listening: the deadline and the signal. */
  dispose(): void {
    this.cancelDeadline?.();
    this.signal?.removeEventListener('abort', this.onSignal);
  }
}
