/**
 * Real-time driver: runs the engine's steps back to back on the wall clock, so that step
 * times actually elapse and any client measures them. Steps follow an ideal timeline
 * (each starts when the previous one should have ended), so timer jitter does not accumulate.
 *
 * @module
 */

import type { Engine, StepPlan } from './scheduler.js';

/** Drives an Engine in real time; `now()` is the engine's clock (ms). */
export class LiveDriver {
  readonly engine: Engine;
  readonly now: () => number;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private busy = false;
  private closed = false;
  private idealEnd = 0;

  constructor(engine: Engine, now: () => number = () => performance.now()) {
    this.engine = engine;
    this.now = now;
  }

  /** Start stepping if idle (call after adding a request). Arrivals in the same tick share the first step. */
  wake(): void {
    if (this.busy || this.closed) return;
    this.busy = true;
    this.timer = setImmediate(() => this.step(this.now()));
  }

  /** Stop stepping; in-flight steps are dropped. */
  close(): void {
    this.closed = true;
    if (this.timer) {
      clearTimeout(this.timer as NodeJS.Timeout);
      clearImmediate(this.timer as NodeJS.Immediate);
    }
  }

  private step(startMs: number): void {
    if (this.closed) return;
    const plan = this.engine.plan(startMs);
    if (!plan) {
      this.busy = false;
      return;
    }
    this.idealEnd = startMs + plan.durationMs;
    const delay = this.idealEnd - this.now();
    if (delay >= 1) this.timer = setTimeout(() => this.finish(plan), delay);
    else this.timer = setImmediate(() => this.finish(plan));
  }

  private finish(plan: StepPlan): void {
    if (this.closed) return;
    const end = this.idealEnd;
    this.engine.commit(plan, end);
    // Late by more than a few ms (a blocked event loop): restart the timeline from now.
    const now = this.now();
    this.step(now - end > 5 ? now : end);
  }
}
