/**
 * The open loop (`--rate R`, a trace replay, stages of rate): each request at its scheduled
 * time whatever the latency, capped by `--max-concurrency` (a due request waits for a slot).
 * Every send's lag behind its schedule is measured; requests that were due but never sent
 * (stopped while waiting for a slot) are counted as dropped. In live time, the records of
 * requests that end while a send is due wait for the gap after it (record-queue.ts): the
 * sinks' work never sits in front of a send.
 *
 * @module
 */

import type { Ms } from '../../types.js';
import { LATE_SEND_TOLERANCE_MS, MAX_SEND_TURN_MS } from '../load-limits.js';
import type { LoadContext, StrategyResult } from './types.js';

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function openLoop(ctx: LoadContext): Promise<StrategyResult> {
  const open = new OpenRequests();
  const counted = await sendOnSchedule(ctx, ctx.load.warmup, open);
  // Nothing more to send: the records of the requests still in flight go on as they end.
  ctx.records.release();
  await open.drained();
  return counted;
}

/**
 * The warmup of an open loop at a steady rate (its items carry WarmupArrivals' negative
 * offsets): sent on their schedule by the same code as the measured sends, up to the measured
 * start (`ctx.deadline`), and left in flight, so the measured phase begins in the load's steady
 * state. Their lags go to `ctx`'s histograms, which the caller discards. Resolves with the
 * count sent.
 */
export async function openLoopWarmup(ctx: LoadContext): Promise<number> {
  return (await sendOnSchedule(ctx, 0, new OpenRequests())).sent;
}

/** Requests of one loop in flight, counted rather than kept (no promise per request beyond its own). */
class OpenRequests {
  private count = 0;
  private onDrained: (() => void) | undefined;
  readonly ended = (): void => {
    if (--this.count === 0) this.onDrained?.();
  };

  started(): void {
    this.count++;
  }

  /** Resolves when none is in flight. */
  drained(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise<void>((resolve) => (this.onDrained = resolve));
  }
}

/** Sends items `from` … `ctx.limit` at their scheduled times, until the deadline or a stop. */
async function sendOnSchedule(ctx: LoadContext, from: number, open: OpenRequests): Promise<StrategyResult> {
  const { load, clock, stopped, measuredStartMs, deadline, limit } = ctx;
  const cap = load.maxConcurrency ?? Number.POSITIVE_INFINITY;
  let sent = 0;
  let dropped = 0;
  let lateSends = 0;
  const due = (i: number) => countDue(ctx, i, Math.min(clock.now(), deadline));
  // Sends due together leave in one turn of the event loop, but a turn that has sent for
  // MAX_SEND_TURN_MS gives way to I/O and timers (responses, the deadline): a backlog of
  // due sends must not starve the reads and open a connection per request.
  let turnStartMs = clock.now();
  for (let i = from; i < limit && !stopped.aborted; i++) {
    const item = ctx.workItem(i);
    const scheduledMs = measuredStartMs + (item.scheduledMs ?? 0);
    if (scheduledMs >= deadline) break;
    if (clock.realTime && clock.now() - turnStartMs > MAX_SEND_TURN_MS) {
      await yieldTurn();
      turnStartMs = clock.now();
      if (stopped.aborted) {
        dropped += due(i);
        break;
      }
    }
    // The records that ended since the last send go to the sinks in the gap before this one.
    if (clock.realTime) ctx.records.deliverUntil(scheduledMs);
    const waits = scheduledMs > clock.now();
    if (!(await clock.sleepUntil(scheduledMs, stopped))) break;
    if (waits) turnStartMs = clock.now();
    let waitedForSlot = false;
    while (ctx.inFlight() >= cap && !stopped.aborted) {
      waitedForSlot = true;
      await ctx.slotFreed();
    }
    if (stopped.aborted) {
      dropped += due(i);
      break;
    }
    const lag = clock.now() - scheduledMs;
    open.started();
    void ctx.dispatch({ ...item, scheduledMs }, scheduledMs).then(open.ended);
    // Counted once the request is on its way: the histograms' work is not in front of the send.
    ctx.dispatchLag.record(lag);
    if (!waitedForSlot) ctx.timerLag.record(lag);
    ctx.startWindow?.add(scheduledMs - measuredStartMs, lag);
    if (lag > LATE_SEND_TOLERANCE_MS) lateSends++;
    sent++;
  }
  return { sent, dropped, lateSends };
}

/** Items from `from` on whose schedule fell before `untilMs` (and before the limit): due but never sent. */
function countDue(ctx: LoadContext, from: number, untilMs: Ms): number {
  let n = 0;
  for (let i = from; i < ctx.limit; i++) {
    if (ctx.measuredStartMs + (ctx.workItem(i).scheduledMs ?? 0) > untilMs) break;
    n++;
  }
  return n;
}
