/**
 * The load of a multi-turn run: sessions replayed turn by turn on the run's LoadClock (live or
 * virtual time alike; `runLoad` calls it for its measured phase when the load has sessions).
 *
 * - `--sessions N`: a closed loop over sessions: N sessions at once, each user starts a new
 *   session when the last one ends.
 * - `--session-rate R`: an open loop over sessions: new sessions arrive R per second
 *   (gamma gaps, --burstiness), however many are running.
 * - Within a session, turn t+1 is sent a think time after the reply to turn t arrived; with
 *   `--user-rate U` instead, a user's turns are due 1/U s apart from its first (AIPerf's
 *   user-centric rate): a reply still streaming at the due time delays the turn, and the
 *   delay counts as dispatch lag (a late send beyond the tolerance).
 * - `--max-concurrency` caps requests in flight, not sessions: a due turn waits for a slot.
 * - Each turn carries the whole conversation, the server's replies as received included
 *   (`onReply`): a turn that failed or was cancelled ends its session, since there is no reply
 *   to carry on with.
 * - `--requests` counts turns: when that many are sent no session sends another turn;
 *   `--duration` stops everything as in the single-turn loops.
 *
 * @module
 */

import { setMaxListeners } from 'node:events';
import type { LatencyHistogram } from '../../metrics/index.js';
import type { LoadClock, LoadSpec, Ms, RequestRecord, WorkItem } from '../../types.js';
import type { SessionScript, SessionSource } from '../../workload/index.js';
import { LATE_SEND_TOLERANCE_MS } from '../load-limits.js';
import type { LoadContext, StrategyResult } from './types.js';

export interface SessionLoopOptions {
  load: LoadSpec;
  source: SessionSource;
  clock: LoadClock;
  /** Aborts when the run stops sending (deadline, Ctrl-C, a failed write). */
  stop: AbortSignal;
  measuredStartMs: Ms;
  deadline: Ms;
  /** Index of the first measured request (the warmup count). */
  firstIndex: number;
  /** Measured turns to send at most (Infinity: until the deadline). */
  limit: number;
  /**
   * The next measured turn's record index, from a counter shared with other load workers
   * (`--workers`); undefined when the run's turns are all taken. Default: firstIndex, firstIndex + 1, …
   */
  claim?: () => number | undefined;
  /** Aborts when another load worker took the run's last turn: sessions stop waiting to send more. */
  exhausted?: AbortSignal;
  /** Waits for a free --max-concurrency slot, or until `until` aborts; resolves true when it had to wait. */
  waitForSlot(until: AbortSignal): Promise<boolean>;
  /** Sends one request; resolves with its record once it has been handed to the sinks. */
  dispatch(item: WorkItem, scheduledMs: Ms, onReply: (text: string) => void): Promise<RequestRecord>;
  /** Awaited between turns while the record sink is backlogged. */
  backpressure?: () => Promise<void> | undefined;
  /** Lag of every scheduled send (a session's arrival, a user-rate turn). */
  dispatchLag: LatencyHistogram;
  /** The same, only for sends that did not wait for a slot (the client's own timer lag). */
  timerLag: LatencyHistogram;
  lateToleranceMs: number;
}

export interface SessionLoopResult {
  sent: number;
  lateSends: number;
  dropped: number;
  /** Sessions that sent at least one turn. */
  sessionsStarted: number;
}

/** Runs the sessions until the turn limit, the deadline or the stop; see the module comment. */
export async function runSessionLoop(o: SessionLoopOptions): Promise<SessionLoopResult> {
  const { clock, load, source } = o;
  const spec = load.sessions ?? {};
  // Wakes every sleeping session when the turn limit is reached, as the run's stop does.
  const done = new AbortController();
  // Every session sleeps on it (think times, slot waits): as many as --sessions.
  setMaxListeners(0, done.signal);
  const onStop = () => done.abort();
  if (o.stop.aborted || o.exhausted?.aborted) onStop();
  o.stop.addEventListener('abort', onStop, { once: true });
  o.exhausted?.addEventListener('abort', onStop, { once: true });
  const gapMs = spec.userRate !== undefined && spec.userRate > 0 ? 1000 / spec.userRate : undefined;
  let nextIndex = o.firstIndex;
  let sent = 0;
  let lateSends = 0;
  let dropped = 0;
  let sessionsStarted = 0;

  async function runSession(script: SessionScript, startMs: Ms, scheduledStart: boolean): Promise<void> {
    const replies: string[] = [];
    for (let t = 0; t < script.turns; t++) {
      const wait = o.backpressure?.();
      if (wait) await clock.outside(wait);
      const due =
        t === 0 ? startMs : gapMs !== undefined ? startMs + t * gapMs : clock.now() + script.thinkMs(t);
      const scheduled = t === 0 ? scheduledStart : gapMs !== undefined;
      if (done.signal.aborted || due >= o.deadline) return;
      if (!(await clock.sleepUntil(due, done.signal))) return;
      const waitedForSlot = await o.waitForSlot(done.signal);
      if (done.signal.aborted) {
        if (scheduled && o.stop.aborted) dropped++;
        return;
      }
      const index = o.claim ? o.claim() : nextIndex++;
      if (index === undefined) {
        done.abort();
        return;
      }
      sent++;
      if (t === 0) sessionsStarted++;
      if (sent >= o.limit) done.abort();
      const item = script.request(t, replies, index, false);
      if (scheduled) {
        const lag = clock.now() - due;
        o.dispatchLag.record(lag);
        if (!waitedForSlot) o.timerLag.record(lag);
        if (lag > o.lateToleranceMs) lateSends++;
      }
      let reply: string | undefined;
      const record = await o.dispatch(item, scheduled ? due : clock.now(), (text) => {
        reply = text;
      });
      if (record.outcome !== 'success' || reply === undefined) return;
      replies.push(reply);
    }
  }

  try {
    if (spec.rate !== undefined && source.startMs) {
      const startMs = source.startMs;
      const pending = new Set<Promise<void>>();
      for (let s = 0; !done.signal.aborted; s++) {
        const start = o.measuredStartMs + startMs(s);
        if (start >= o.deadline) break;
        if (!(await clock.sleepUntil(start, done.signal))) break;
        const p = runSession(source.session(s), start, true);
        pending.add(p);
        void p.then(() => pending.delete(p));
      }
      await Promise.all(pending);
    } else {
      let next = 0;
      const users = Math.max(1, spec.concurrency ?? load.concurrency ?? 1);
      await Promise.all(
        Array.from({ length: users }, async () => {
          while (!done.signal.aborted) await runSession(source.session(next++), clock.now(), false);
        }),
      );
    }
  } finally {
    o.stop.removeEventListener('abort', onStop);
    o.exhausted?.removeEventListener('abort', onStop);
  }
  return { sent, lateSends, dropped, sessionsStarted };
}

/** Multi-turn sessions as a load shape: the session loop on the run's context (see the module comment). */
export async function sessionLoop(ctx: LoadContext): Promise<StrategyResult> {
  const { load } = ctx;
  const cap = load.maxConcurrency ?? Number.POSITIVE_INFINITY;
  const r = await runSessionLoop({
    load,
    source: ctx.sessions!,
    clock: ctx.clock,
    stop: ctx.stopped,
    measuredStartMs: ctx.measuredStartMs,
    deadline: ctx.deadline,
    firstIndex: load.warmup,
    limit: ctx.limit - load.warmup,
    claim: ctx.claim,
    ...(ctx.exhausted ? { exhausted: ctx.exhausted } : {}),
    async waitForSlot(until) {
      let waited = false;
      while (ctx.inFlight() >= cap && !until.aborted) {
        waited = true;
        await ctx.slotFreedOr(until);
      }
      return waited;
    },
    dispatch: ctx.dispatch,
    ...(ctx.backpressure ? { backpressure: ctx.backpressure } : {}),
    dispatchLag: ctx.dispatchLag,
    timerLag: ctx.timerLag,
    lateToleranceMs: LATE_SEND_TOLERANCE_MS,
  });
  return { sent: r.sent, dropped: r.dropped, lateSends: r.lateSends };
}
