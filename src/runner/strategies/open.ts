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
  const { load, clock, stopped, measuredStartMs, deadline, limit } = ctx;
  const cap = load.maxConcurrency ?? Number.POSITIVE_INFINITY;
  // Requests in flight, counted rather than kept (no promise per request beyond its own).
  let open = 0;
  let drained: (() => void) | undefined;
  const ended = () => {
    if (--open === 0) drained?.();
  };
  let sent = 0;
  let dropped = 0;
  let lateSends = 0;
  const due = (from: number) => countDue(ctx, from, Math.min(clock.now(), deadline));
  // Sends due together leave in one turn of the event loop, but a turn that has sent for
  // MAX_SEND_TURN_MS gives way to I/O and timers (responses, the deadline): a backlog of
  // due sends must not starve the reads and open a connection per request.
  let turnStartMs = clock.now();
  for (let i = load.warmup; i < limit && !stopped.aborted; i++) {
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
    open++;
    void ctx.dispatch({ ...item, scheduledMs }, scheduledMs).then(ended);
    // Counted once the request is on its way: the histograms' work is not in front of the send.
    ctx.dispatchLag.record(lag);
    if (!waitedForSlot) ctx.timerLag.record(lag);
    if (lag > LATE_SEND_TOLERANCE_MS) lateSends++;
    sent++;
  }
  // Nothing more to send: the records of the requests still in flight go on as they end.
  ctx.records.release();
  if (open > 0) await new Promise<void>((resolve) => (drained = resolve));
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
