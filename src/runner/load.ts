/**
 * The load generator: sends WorkItems through a sender in a closed loop (N workers, each
 * sends its next request as soon as its previous one ends) or an open loop (each request at
 * its scheduled time, whatever the latency), after the warmup requests.
 *
 * Stop rules: `requests` (count of measured requests) and `durationMs`. At the duration
 * deadline, or when the caller's signal aborts (Ctrl-C), nothing more is sent and the
 * requests still in flight are aborted: the client records them as INTERRUPTED, and the
 * result says `interrupted`. Aborting (rather than waiting) keeps a run's length exactly
 * what was asked, which CI gates and watch probes rely on; the INTERRUPTED records stay in
 * requests.jsonl, so nothing measured is lost.
 *
 * Honesty about the load itself: in the open loop every send's lag behind its schedule is
 * measured, sends later than LATE_SEND_TOLERANCE_MS are counted, requests that were due but
 * never sent (stopped while waiting for a --max-concurrency slot) are counted as dropped,
 * and an event-loop delay monitor tells whether the client was the bottleneck. So does the
 * client's own queue: the time from handing a request to the sender to its first byte on a
 * socket, less the time its connection took to be accepted (a pool capped below the load by
 * `--connections pooled:N`, a starved event loop at thousands of streams). A server that is slow
 * to accept or to answer a connection is the server's doing, never the client's: the run's
 * connection figures (summary.load.connections) say so.
 *
 * @module
 */

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { LatencyHistogram, StartWindowTally } from '../metrics/index.js';
import type {
  GcPauses,
  LoadClock,
  LoadSpec,
  Ms,
  RequestRecord,
  StageLoad,
  StartWindow,
  WorkItem,
} from '../types.js';
import { type AgentSource, Part, type SessionSource, StageTally } from '../workload/index.js';
import { type StopReason, StopRules } from './constraints.js';
import { Dispatcher, type SendFn } from './dispatcher.js';
import { watchGcPauses } from './gc-pauses.js';
import {
  CLIENT_BOUND_DISPATCH_LAG_MS,
  CLIENT_BOUND_LOOP_DELAY_MS,
  CLIENT_BOUND_QUEUE_WAIT_MS,
  DEFAULT_LOAD_WIDTH,
} from './load-limits.js';
import { agentLoop } from './strategies/agents.js';
import { closedLoop } from './strategies/closed.js';
import { openLoop, openLoopWarmup } from './strategies/open.js';
import { sessionLoop } from './strategies/sessions.js';
import { stagedUsers } from './strategies/stages.js';
import type { LoadContext, Strategy } from './strategies/types.js';

export type { StopReason } from './constraints.js';
export type { SendFn } from './dispatcher.js';
export * from './load-limits.js';

/**
 * Other load runners sharing this load (`--workers`: the worker transport's threads): one item
 * counter, one measured start, one "last item taken" flag.
 */
export interface LoadPeers {
  /** The next warmup or measured item index from the shared counter; undefined when none is left. */
  claim(phase: 'warmup' | 'measured'): number | undefined;
  /** Awaited between the warmup and the measured phase (the workers start measuring together). */
  beforeMeasured(): Promise<void>;
  /** Aborts when another worker took the run's last measured item (sessions stop waiting to send more). */
  exhausted?: AbortSignal;
}

export interface RunLoadOptions {
  load: LoadSpec;
  /**
   * The i-th item, warmup first (WorkItem.warmup); open-loop items carry scheduledMs offsets
   * from the measured start. `cls`: as a request of that traffic class (`userClass`).
   */
  workItem(index: number, cls?: number): WorkItem;
  send: SendFn;
  /** Live time: a RunClock. Virtual time: the engine's VirtualClock (the same loop, simulated time). */
  clock: LoadClock;
  /** Every record, warmup included, as it completes. */
  onRecord(record: RequestRecord): void;
  /** Aborting it stops the load and interrupts what is in flight (Ctrl-C). */
  signal?: AbortSignal;
  /** Awaited by closed-loop users between sends when the record sink is backlogged. */
  backpressure?: () => Promise<void> | undefined;
  /**
   * Clock time at which the measured phase starts (`--start-at`, the instant shared by every
   * shard): after the warmup, the load waits for it; its lateness is `startSkewMs`.
   */
  startAtMs?: Ms;
  /** Multi-turn sessions (load.sessions): the measured phase replays these (strategies/sessions.ts). */
  sessions?: SessionSource;
  /** Agent runs (workload.agents): the measured phase runs them (strategies/agents.ts). */
  agents?: AgentSource;
  /**
   * Closed-loop stages split over load workers or shards: this loop runs its part of the run's
   * stage users (user u sends while the target is above u), so the parts together follow the
   * stages. Default: every user (`Part.whole`).
   */
  stageUsers?: Part;
  /**
   * Traffic classes in a closed loop (Workload.userClass): the class of the run's user at a
   * position; this loop's user u is the run's `stageUsers.position(u)`.
   */
  userClass?: (position: number) => number;
  /** Load workers sharing this load; default: this loop alone. */
  peers?: LoadPeers;
}

export interface LoadResult {
  /** In-flight requests were aborted (deadline or signal) or the signal stopped the run. */
  interrupted: boolean;
  stopReason: StopReason;
  /** Run-clock time when the measured phase began (after warmup). */
  measuredStartMs: Ms;
  /** Run-clock time when the last measured request ended. */
  measuredEndMs: Ms;
  /** Measured requests handed to the sender. */
  sent: number;
  warmupSent: number;
  /** Open loop: due but never sent. */
  dropped: number;
  /** Open loop: sent more than LATE_SEND_TOLERANCE_MS behind schedule. */
  lateSends: number;
  peakInFlight: number;
  /** Open loop: sent − scheduled of every measured send. Empty in the closed loop. */
  dispatchLag: LatencyHistogram;
  /** Event-loop delay during the measured phase (ms). */
  eventLoopDelay: { p50: number; p99: number; max: number };
  /** Live time: GC pauses of this thread during the measured phase. */
  gcPauses?: GcPauses;
  /** Live open loops: the measured phase's first second against the rest. */
  startWindow?: StartWindow;
  /** Measured requests: first send − the moment the runner handed them to the sender (ms). */
  clientQueueWait: LatencyHistogram;
  clientBound: boolean;
  /** Why the client counts as the bottleneck, in words (set when clientBound). */
  clientBoundReason?: string;
  /** With startAtMs: measuredStartMs − startAtMs (late is positive; early only when the wait was cut short). */
  startSkewMs?: number;
  /** With load.stages: what each stage asked for and achieved. */
  stages?: StageLoad[];
}

/** The load shape of the measured phase: sessions, stages of concurrency, the closed or the open loop. */
export function strategyFor(
  load: LoadSpec,
  sessions: SessionSource | undefined,
  agents?: AgentSource,
): Strategy {
  if (agents !== undefined) return agentLoop;
  if (load.sessions !== undefined && sessions !== undefined) return sessionLoop;
  if (load.mode === 'closed') return load.stages && load.stagesOf !== 'rate' ? stagedUsers : closedLoop;
  return openLoop;
}

/**
 * Whether the measured phase waits on the clock (a rate, a trace, stages, think times,
 * agents, a shared start): all but the plain closed loop, which only sends as records end.
 */
export function waitsOnClock(
  load: LoadSpec,
  sessions: SessionSource | undefined,
  agents: AgentSource | undefined,
  startAtMs: number | undefined,
): boolean {
  return startAtMs !== undefined || strategyFor(load, sessions, agents) !== closedLoop;
}

/** Runs warmup then the measured load; resolves when every request sent has a record. */
export async function runLoad(opts: RunLoadOptions): Promise<LoadResult> {
  const { load, clock } = opts;
  // Stages: tallied on the measured phase's clock (from the measured start).
  const tally = load.stages ? new StageTally(load.stages, load.stagesOf ?? 'concurrency') : undefined;
  let rules: StopRules | undefined;
  const dispatcher = new Dispatcher(opts.send, clock, () => rules!.requests, opts.onRecord, tally);
  const stop = new StopRules(
    opts.signal,
    () => dispatcher.inFlight,
    () => dispatcher.wakeAll(),
  );
  rules = stop;
  const strategy = strategyFor(load, opts.sessions, opts.agents);
  const { warmupSent, measuredStartMs } = await warmUp(opts, stop, dispatcher, strategy);
  // Virtual time has no event loop to lag behind: the client cannot be the bottleneck there.
  const loopDelay = clock.realTime ? monitorEventLoopDelay({ resolution: 10 }) : undefined;
  loopDelay?.enable();
  const gc = clock.realTime ? watchGcPauses() : undefined;
  dispatcher.startMeasured(measuredStartMs);
  const ctx = loadContext(
    opts,
    stop,
    dispatcher,
    measuredStartMs,
    stop.deadline(load, clock, measuredStartMs),
    StopRules.limit(load),
  );
  // A client still warming up shows in the first second's lag (live open loops).
  if (clock.realTime && strategy === openLoop) ctx.startWindow = new StartWindowTally();
  let counted: Awaited<ReturnType<Strategy>>;
  try {
    counted = await strategy(ctx);
    // A paced warmup's requests still in flight (the deadline has aborted them if it came).
    await dispatcher.idle();
    stop.finished();
  } finally {
    dispatcher.records.release();
    stop.dispose();
    loopDelay?.disable();
  }
  const gcPauses = await gc?.stop();
  const startWindow = ctx.startWindow?.result();
  const eventLoopDelay = loopDelay
    ? { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 }
    : { p50: 0, p99: 0, max: 0 };
  // A simulated clock has no client to be bound by.
  const clientBoundReason = clock.realTime
    ? clientBoundBecause(eventLoopDelay.p99, ctx.timerLag, dispatcher.clientQueueWait)
    : undefined;
  return {
    interrupted: stop.interrupted,
    stopReason: stop.reason,
    measuredStartMs,
    measuredEndMs: dispatcher.measuredEndMs,
    sent: counted.sent,
    warmupSent,
    dropped: counted.dropped,
    lateSends: counted.lateSends,
    peakInFlight: dispatcher.peakInFlight,
    dispatchLag: ctx.dispatchLag,
    eventLoopDelay,
    ...(gcPauses ? { gcPauses } : {}),
    ...(startWindow ? { startWindow } : {}),
    clientQueueWait: dispatcher.clientQueueWait,
    clientBound: clientBoundReason !== undefined,
    ...(clientBoundReason !== undefined ? { clientBoundReason } : {}),
    ...(opts.startAtMs !== undefined ? { startSkewMs: measuredStartMs - opts.startAtMs } : {}),
    ...(tally ? { stages: tally.finish(clock.now() - measuredStartMs) } : {}),
  };
}

/**
 * The warmup, and the measured start it leads to. An open loop at a steady rate sends its
 * warmup on the load's own schedule and runs into the measured phase (pacedWarmupLead); every
 * other load runs a closed warmup to its end, then waits for its peers and a shared start.
 */
async function warmUp(
  opts: RunLoadOptions,
  stop: StopRules,
  dispatcher: Dispatcher,
  strategy: Strategy,
): Promise<{ warmupSent: number; measuredStartMs: Ms }> {
  const { load, clock, peers } = opts;
  const leadMs = pacedWarmupLead(opts, strategy);
  if (leadMs !== undefined) {
    // The measured start is the warmup's next arrival; the requests it left in flight still are.
    const plannedMs = clock.now() + leadMs;
    const warmup = loadContext(opts, stop, dispatcher, plannedMs, plannedMs, load.warmup);
    const warmupSent = await openLoopWarmup(warmup);
    // A warmup that fell behind its schedule (a cold client, a slow server) has sent its last
    // item late: the measured load starts from there, not owing the warmup's backlog.
    return { warmupSent, measuredStartMs: Math.max(plannedMs, clock.now()) };
  }
  const warmupSent = await runWarmup(opts, stop, dispatcher);
  if (peers && !stop.stopped.aborted) await peers.beforeMeasured();
  // A shared start instant: every shard's measured load begins together, after its own warmup.
  if (opts.startAtMs !== undefined) await clock.sleepUntil(opts.startAtMs, stop.stopped);
  return { warmupSent, measuredStartMs: clock.now() };
}

/**
 * Warmup: a closed loop over the warmup items, excluded from the summary by WorkItem.warmup.
 * An open loop has no concurrency: its warmup runs as wide as its connection warm-up, not
 * all at once (a thousand warmup requests opened a thousand connections).
 */
async function runWarmup(opts: RunLoadOptions, stop: StopRules, dispatcher: Dispatcher): Promise<number> {
  const { load, clock, peers } = opts;
  let warmupSent = 0;
  if (load.warmup <= 0) return 0;
  const width = Math.max(
    1,
    Math.min(load.warmup, load.concurrency ?? load.maxConcurrency ?? DEFAULT_LOAD_WIDTH),
  );
  let next = 0;
  const claim = peers ? () => peers.claim('warmup') : () => (next < load.warmup ? next++ : undefined);
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (!stop.stopped.aborted) {
        const i = claim();
        if (i === undefined) break;
        warmupSent++;
        await dispatcher.dispatch(opts.workItem(i), clock.now());
      }
    }),
  );
  return warmupSent;
}

/**
 * How long before the measured start a paced warmup begins (ms), or undefined when the warmup
 * is a closed loop. Paced: an open loop at a steady rate whose warmup items are scheduled
 * (workload WarmupArrivals), run by this load alone (other workers and shards share their
 * measured start after a warmup of their own: theirs stays closed).
 */
function pacedWarmupLead(opts: RunLoadOptions, strategy: Strategy): Ms | undefined {
  if (opts.load.warmup <= 0 || strategy !== openLoop || opts.peers || opts.startAtMs !== undefined)
    return undefined;
  const first = opts.workItem(0).scheduledMs;
  return first === undefined ? undefined : -first;
}

/**
 * What a strategy runs on, from the measured start: the measured phase (the stop rules armed
 * from it; `limit` past its last item), or a paced warmup (its deadline the measured start,
 * its limit the warmup's end).
 */
function loadContext(
  opts: RunLoadOptions,
  stop: StopRules,
  dispatcher: Dispatcher,
  measuredStartMs: Ms,
  deadline: Ms,
  limit: number,
): LoadContext {
  const { load, clock, peers } = opts;
  let next = load.warmup;
  return {
    load,
    clock,
    stopped: stop.stopped,
    measuredStartMs,
    deadline,
    limit,
    workItem: (i, cls) => opts.workItem(i, cls),
    claim: peers ? () => peers.claim('measured') : () => (next < limit ? next++ : undefined),
    dispatch: dispatcher.dispatch,
    records: dispatcher.records,
    inFlight: () => dispatcher.inFlight,
    slotFreed: () => dispatcher.slotFreed(),
    slotFreedOr: (until) => dispatcher.slotFreedOr(until),
    ...(opts.backpressure ? { backpressure: opts.backpressure } : {}),
    dispatchLag: new LatencyHistogram(),
    timerLag: new LatencyHistogram(),
    stageUsers: opts.stageUsers ?? Part.whole,
    ...(opts.userClass ? { userClass: localUserClass(opts.userClass, opts.stageUsers ?? Part.whole) } : {}),
    sessions: opts.sessions,
    ...(opts.agents ? { agents: opts.agents } : {}),
    exhausted: peers?.exhausted,
  };
}

/** This loop's user u's class: the class of the run's user at u's position. */
function localUserClass(userClass: (position: number) => number, users: Part): (user: number) => number {
  return (user) => userClass(users.position(user));
}

/** Why the load generator itself limited the load (every sign found, joined), or undefined. */
export function clientBoundBecause(
  loopDelayP99: number,
  timerLag: LatencyHistogram,
  queueWait: LatencyHistogram,
): string | undefined {
  const why: string[] = [];
  if (loopDelayP99 > CLIENT_BOUND_LOOP_DELAY_MS) {
    why.push(`event-loop delay p99 ${loopDelayP99.toFixed(1)} ms > ${CLIENT_BOUND_LOOP_DELAY_MS} ms`);
  }
  const lag = timerLag.count > 0 ? timerLag.percentile(99) : 0;
  if (lag > CLIENT_BOUND_DISPATCH_LAG_MS) {
    why.push(`open-loop send lag p99 ${lag.toFixed(1)} ms > ${CLIENT_BOUND_DISPATCH_LAG_MS} ms`);
  }
  const wait = queueWait.count > 0 ? queueWait.percentile(99) : 0;
  if (wait > CLIENT_BOUND_QUEUE_WAIT_MS) {
    why.push(
      `client queue wait p99 ${wait.toFixed(0)} ms > ${CLIENT_BOUND_QUEUE_WAIT_MS} ms (requests waited inside the client for one of its connections before being sent)`,
    );
  }
  return why.length > 0 ? why.join('; ') : undefined;
}
