/**
 * The load of a multi-turn run: sessions replayed turn by turn on the run's LoadClock (live or
 * virtual time alike; `runLoad` calls it for its measured phase when the load has sessions).
 *
 * - `--sessions N`: a closed loop over sessions: N sessions at once, each user starts a new
 *   session when the last one ends (with traffic classes, always one of its class: `userClass`).
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
  /** Traffic classes, `--sessions N`: the class of this loop's user u, whose sessions are all of it. */
  userClass?: (user: number) => number;
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
  const done = stopWithRun(o);
  const turns = new SessionTurns(o, done.controller);
  const spec = o.load.sessions ?? {};
  try {
    if (spec.rate !== undefined && o.source.startMs) await arriveOpen(turns, o, o.source.startMs);
    else await userLoops(turns, o, Math.max(1, spec.concurrency ?? o.load.concurrency ?? 1));
  } finally {
    done.release();
  }
  return turns.result();
}

/**
 * The sessions' own stop: aborts with the run's stop or the load workers' exhausted signal, and
 * when the turn limit is reached; it wakes every sleeping session. `release` unhooks it from the
 * run's signals.
 */
function stopWithRun(o: SessionLoopOptions): { controller: AbortController; release(): void } {
  const controller = new AbortController();
  // Every session sleeps on it (think times, slot waits): as many as --sessions.
  setMaxListeners(0, controller.signal);
  const onStop = () => controller.abort();
  if (o.stop.aborted || o.exhausted?.aborted) onStop();
  o.stop.addEventListener('abort', onStop, { once: true });
  o.exhausted?.addEventListener('abort', onStop, { once: true });
  return {
    controller,
    release() {
      o.stop.removeEventListener('abort', onStop);
      o.exhausted?.removeEventListener('abort', onStop);
    },
  };
}

/** `--session-rate`: a new session at each arrival time until the deadline or the stop. */
async function arriveOpen(
  turns: SessionTurns,
  o: SessionLoopOptions,
  startMs: (s: number) => Ms,
): Promise<void> {
  const pending = new Set<Promise<void>>();
  for (let s = 0; !turns.stopped; s++) {
    const start = o.measuredStartMs + startMs(s);
    if (start >= o.deadline) break;
    if (!(await o.clock.sleepUntil(start, turns.signal))) break;
    const p = turns.runSession(o.source.session(s), start, true);
    pending.add(p);
    void p.then(() => pending.delete(p));
  }
  await Promise.all(pending);
}

/** `--sessions N`: N users, each starting a new session as soon as its last one ends. */
async function userLoops(turns: SessionTurns, o: SessionLoopOptions, users: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: users }, async (_, user) => {
      const cls = o.userClass?.(user);
      while (!turns.stopped) await turns.runSession(o.source.session(next++, cls), o.clock.now(), false);
    }),
  );
}

/** The turns of every session of one loop, and the counts they add up to. */
class SessionTurns {
  private sent = 0;
  private lateSends = 0;
  private dropped = 0;
  private sessionsStarted = 0;
  private nextIndex: number;
  /** With --user-rate, the gap between a user's turns. */
  private readonly gapMs: number | undefined;

  constructor(
    private readonly o: SessionLoopOptions,
    private readonly done: AbortController,
  ) {
    this.nextIndex = o.firstIndex;
    const userRate = o.load.sessions?.userRate;
    this.gapMs = userRate !== undefined && userRate > 0 ? 1000 / userRate : undefined;
  }

  get signal(): AbortSignal {
    return this.done.signal;
  }

  get stopped(): boolean {
    return this.done.signal.aborted;
  }

  result(): SessionLoopResult {
    const { sent, lateSends, dropped, sessionsStarted } = this;
    return { sent, lateSends, dropped, sessionsStarted };
  }

  /** Sends a session's turns one after another, each carrying the replies so far. */
  async runSession(script: SessionScript, startMs: Ms, scheduledStart: boolean): Promise<void> {
    const { o } = this;
    const replies: string[] = [];
    for (let t = 0; t < script.turns; t++) {
      const wait = o.backpressure?.();
      if (wait) await o.clock.outside(wait);
      const due = this.dueMs(script, t, startMs);
      // A scheduled turn (a session's arrival, a user-rate turn) has a due time to be late for.
      const scheduled = t === 0 ? scheduledStart : this.gapMs !== undefined;
      if (this.stopped || due >= o.deadline) return;
      if (!(await o.clock.sleepUntil(due, this.signal))) return;
      const waitedForSlot = await o.waitForSlot(this.signal);
      if (this.stopped) {
        if (scheduled && o.stop.aborted) this.dropped++;
        return;
      }
      const index = this.claimTurn(t);
      if (index === undefined) return;
      const item = script.request(t, replies, index, false);
      if (scheduled) this.recordLag(due, waitedForSlot);
      let reply: string | undefined;
      const record = await o.dispatch(item, scheduled ? due : o.clock.now(), (text) => {
        reply = text;
      });
      // A failed or cancelled turn has no reply to carry on with: its session ends.
      if (record.outcome !== 'success' || reply === undefined) return;
      replies.push(reply);
    }
  }

  /** When turn t is due: the session's start, a user-rate gap after it, or a think time after now. */
  private dueMs(script: SessionScript, t: number, startMs: Ms): Ms {
    if (t === 0) return startMs;
    if (this.gapMs !== undefined) return startMs + t * this.gapMs;
    return this.o.clock.now() + script.thinkMs(t);
  }

  /** The record index of the next measured turn, counted as sent; undefined when none is left. */
  private claimTurn(t: number): number | undefined {
    const index = this.o.claim ? this.o.claim() : this.nextIndex++;
    if (index === undefined) {
      this.done.abort();
      return undefined;
    }
    this.sent++;
    if (t === 0) this.sessionsStarted++;
    if (this.sent >= this.o.limit) this.done.abort();
    return index;
  }

  /** A scheduled send's lag behind its due time. */
  private recordLag(due: Ms, waitedForSlot: boolean): void {
    const lag = this.o.clock.now() - due;
    this.o.dispatchLag.record(lag);
    if (!waitedForSlot) this.o.timerLag.record(lag);
    if (lag > this.o.lateToleranceMs) this.lateSends++;
  }
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
    ...(ctx.userClass ? { userClass: ctx.userClass } : {}),
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
