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

import { setMaxListeners } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { LatencyHistogram } from '../metrics/index.js';
import type { LoadClock, LoadSpec, Ms, RequestRecord, StageLoad, WorkItem } from '../types.js';
import { nextActiveMs, Part, type SessionSource, StageTally, stageWindows } from '../workload/index.js';
import { runSessionLoop } from './sessions.js';

/** An open-loop send later than this behind its schedule counts as late. */
export const LATE_SEND_TOLERANCE_MS = 10;
/** Event-loop delay p99 above this means the client itself limited the load. */
export const CLIENT_BOUND_LOOP_DELAY_MS = 50;
/** Open-loop timer lag p99 (waits for a concurrency slot excluded) above this means the same. */
export const CLIENT_BOUND_DISPATCH_LAG_MS = 10;
/** Client queue wait p99 (handed to the sender → written to a socket, connect excluded) above this means the same. */
export const CLIENT_BOUND_QUEUE_WAIT_MS = 250;

/** Live open loop: the longest stretch of sends in one event-loop turn before I/O gets its turn. */
export const MAX_SEND_TURN_MS = 1;

/** How wide a load without a concurrency runs where it needs one (open-loop warmup, connection warm-up). */
export const DEFAULT_LOAD_WIDTH = 64;

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Sends one request and resolves with its record; must not throw (a failure is a record). */
export type SendFn = (
  item: WorkItem,
  opts: { scheduledMs: Ms; signal: AbortSignal; onReply?: (text: string) => void },
) => Promise<RequestRecord>;

export interface RunLoadOptions {
  load: LoadSpec;
  /** The i-th item, warmup first (WorkItem.warmup); open-loop items carry scheduledMs offsets from the measured start. */
  workItem(index: number): WorkItem;
  send: SendFn;
  /** Live time: a RunClock. Virtual time: the engine's VirtualClock (the same loop, simulated time). */
  clock: LoadClock;
  /** Every record, warmup included, as it completes. */
  onRecord(record: RequestRecord): void;
  /** Aborting it stops the load and interrupts what is in flight (Ctrl-C). */
  signal?: AbortSignal;
  /** Awaited by closed-loop workers between sends when the record sink is backlogged. */
  backpressure?: () => Promise<void> | undefined;
  /**
   * Clock time at which the measured phase starts (`--start-at`, the instant shared by every
   * shard): after the warmup, the load waits for it; its lateness is `startSkewMs`.
   */
  startAtMs?: Ms;
  /** Multi-turn sessions (load.sessions): the measured phase replays these (runner/sessions.ts). */
  sessions?: SessionSource;
  /**
   * The next warmup or closed-loop item index, from a counter shared with other load workers
   * (`--workers`); undefined when none is left. Default: this loop's own counter.
   */
  claim?: (phase: 'warmup' | 'measured') => number | undefined;
  /** Awaited between the warmup and the measured phase (load workers start measuring together). */
  beforeMeasured?: () => Promise<void>;
  /**
   * Closed-loop stages split over load workers or shards: this loop runs its part of the run's
   * stage users (user u sends while the target is above u), so the parts together follow the
   * stages. Default: every user (`Part.whole`).
   */
  stageUsers?: Part;
  /** Aborts when another load worker took the run's last measured item (sessions stop waiting to send more). */
  exhausted?: AbortSignal;
}

export type StopReason = 'requests' | 'duration' | 'signal';

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

/** A record for a sender that threw (a bug: the client must not throw), so the run keeps going. */
function failedRecord(item: WorkItem, scheduledMs: Ms, now: Ms, err: unknown): RequestRecord {
  const record: RequestRecord = {
    id: item.id,
    index: item.index,
    warmup: item.warmup,
    outcome: 'error',
    error: { code: 'UNKNOWN', message: err instanceof Error ? err.message : String(err) },
    attempts: 1,
    scheduledMs,
    sentMs: now,
    firstSentMs: now,
    endMs: now,
    chunkMs: [],
    chunkChars: [],
    promptTokens: item.promptTokens,
    outputTokens: 0,
    outputTokensSource: 'counted',
    maxTokens: item.maxTokens,
  };
  if (item.sessionId !== undefined) record.sessionId = item.sessionId;
  if (item.turn !== undefined) record.turn = item.turn;
  return record;
}

/** Runs warmup then the measured load; resolves when every request sent has a record. */
export async function runLoad(opts: RunLoadOptions): Promise<LoadResult> {
  const { load, clock } = opts;
  const inFlightAbort = new AbortController();
  // Every request in flight listens on this one signal: thousands at high concurrency.
  setMaxListeners(0, inFlightAbort.signal);
  const stopSending = new AbortController();
  // Every closed-loop worker, stage user and session sleeps on this one: tens to thousands.
  setMaxListeners(0, stopSending.signal);
  let stopReason: StopReason = 'requests';
  let interrupted = false;
  let inFlight = 0;
  let peakInFlight = 0;
  let measuredEndMs = 0;
  const slotWaiters: Array<() => void> = [];

  const stop = (reason: StopReason, abortInFlight: boolean): void => {
    if (stopSending.signal.aborted) return;
    stopReason = reason;
    stopSending.abort();
    if (abortInFlight) {
      if (inFlight > 0) interrupted = true;
      inFlightAbort.abort(new Error(reason === 'signal' ? 'run stopped' : 'duration reached'));
    }
    for (const wake of slotWaiters.splice(0)) wake();
  };
  const onSignal = () => {
    interrupted = true;
    stop('signal', true);
  };
  if (opts.signal?.aborted) onSignal();
  opts.signal?.addEventListener('abort', onSignal, { once: true });

  const clientQueueWait = new LatencyHistogram();
  // Stages: tallied on the measured phase's clock (set below, before the first measured send).
  const tally = load.stages ? new StageTally(load.stages, load.stagesOf ?? 'concurrency') : undefined;
  let stageZero = 0;
  const dispatch = async (
    item: WorkItem,
    scheduledMs: Ms,
    onReply?: (text: string) => void,
  ): Promise<RequestRecord> => {
    if (!item.warmup) tally?.sent(clock.now() - stageZero);
    inFlight++;
    if (!item.warmup && inFlight > peakInFlight) peakInFlight = inFlight;
    const handedMs = clock.now();
    let record: RequestRecord;
    try {
      const sendOpts = { scheduledMs, signal: inFlightAbort.signal };
      record = await opts.send(item, onReply ? { ...sendOpts, onReply } : sendOpts);
    } catch (e) {
      record = failedRecord(item, scheduledMs, clock.now(), e);
    }
    inFlight--;
    if (!item.warmup) tally?.ended(clock.now() - stageZero);
    // The client's own wait: a connect the server was slow to accept is the server's.
    if (!item.warmup) {
      const connect = record.attempts === 1 ? (record.connectMs ?? 0) : 0;
      clientQueueWait.record(Math.max(0, (record.firstSentMs ?? record.sentMs) - handedMs - connect));
    }
    if (!item.warmup && record.endMs > measuredEndMs) measuredEndMs = record.endMs;
    slotWaiters.shift()?.();
    opts.onRecord(record);
    return record;
  };

  // Warmup: a closed loop over the warmup items, excluded from the summary by WorkItem.warmup.
  // An open loop has no concurrency: its warmup runs as wide as its connection warm-up, not
  // all at once (a thousand warmup requests opened a thousand connections).
  let warmupSent = 0;
  if (load.warmup > 0) {
    const width = Math.max(
      1,
      Math.min(load.warmup, load.concurrency ?? load.maxConcurrency ?? DEFAULT_LOAD_WIDTH),
    );
    let next = 0;
    const claim = opts.claim ? () => opts.claim!('warmup') : () => (next < load.warmup ? next++ : undefined);
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (!stopSending.signal.aborted) {
          const i = claim();
          if (i === undefined) break;
          warmupSent++;
          await dispatch(opts.workItem(i), clock.now());
        }
      }),
    );
  }
  if (opts.beforeMeasured && !stopSending.signal.aborted) await opts.beforeMeasured();

  // A shared start instant: every shard's measured load begins together, after its own warmup.
  if (opts.startAtMs !== undefined) await clock.sleepUntil(opts.startAtMs, stopSending.signal);
  // Virtual time has no event loop to lag behind: the client cannot be the bottleneck there.
  const loopDelay = clock.realTime ? monitorEventLoopDelay({ resolution: 10 }) : undefined;
  loopDelay?.enable();
  const measuredStartMs = clock.now();
  stageZero = measuredStartMs;
  measuredEndMs = measuredStartMs;
  const deadline =
    load.durationMs === undefined ? Number.POSITIVE_INFINITY : measuredStartMs + load.durationMs;
  const cancelDeadline =
    load.durationMs === undefined ? undefined : clock.at(deadline, () => stop('duration', true));
  const limit = load.requests === undefined ? Number.POSITIVE_INFINITY : load.warmup + load.requests;
  const dispatchLag = new LatencyHistogram();
  const timerLag = new LatencyHistogram();
  let sent = 0;
  let dropped = 0;
  let lateSends = 0;

  try {
    if (load.sessions !== undefined && opts.sessions !== undefined) {
      const cap = load.maxConcurrency ?? Number.POSITIVE_INFINITY;
      const r = await runSessionLoop({
        load,
        source: opts.sessions,
        clock,
        stop: stopSending.signal,
        measuredStartMs,
        deadline,
        firstIndex: load.warmup,
        limit: limit - load.warmup,
        ...(opts.claim ? { claim: () => opts.claim!('measured') } : {}),
        ...(opts.exhausted ? { exhausted: opts.exhausted } : {}),
        async waitForSlot(until) {
          let waited = false;
          while (inFlight >= cap && !until.aborted) {
            waited = true;
            await new Promise<void>((resolve) => {
              const wake = () => {
                until.removeEventListener('abort', wake);
                resolve();
              };
              slotWaiters.push(wake);
              until.addEventListener('abort', wake, { once: true });
            });
          }
          return waited;
        },
        dispatch,
        ...(opts.backpressure ? { backpressure: opts.backpressure } : {}),
        dispatchLag,
        timerLag,
        lateToleranceMs: LATE_SEND_TOLERANCE_MS,
      });
      sent = r.sent;
      lateSends = r.lateSends;
      dropped = r.dropped;
    } else if (load.mode === 'closed') {
      let next = load.warmup;
      const claim = opts.claim ? () => opts.claim!('measured') : () => (next < limit ? next++ : undefined);
      // Concurrency stages: as many workers as the highest target; worker w sends while the target is > w.
      const shape = load.stages && load.stagesOf !== 'rate' ? stageWindows(load.stages) : undefined;
      const users = opts.stageUsers ?? Part.whole;
      const workers = shape
        ? users.share(Math.max(1, ...shape.map((w) => Math.ceil(w.to))))
        : Math.max(1, load.concurrency ?? 1);
      await Promise.all(
        Array.from({ length: workers }, async (_, worker) => {
          while (!stopSending.signal.aborted) {
            if (shape) {
              const user = users.position(worker);
              const at = nextActiveMs(shape, user, clock.now() - measuredStartMs);
              if (!Number.isFinite(at)) break;
              if (!(await clock.sleepUntil(measuredStartMs + at, stopSending.signal))) break;
            }
            const wait = opts.backpressure?.();
            if (wait) await clock.outside(wait);
            // Re-check the stop rules: other workers went on while this one waited.
            if (stopSending.signal.aborted) break;
            const i = claim();
            if (i === undefined) break;
            sent++;
            await dispatch(opts.workItem(i), clock.now());
          }
        }),
      );
    } else {
      const cap = load.maxConcurrency ?? Number.POSITIVE_INFINITY;
      const pending = new Set<Promise<void>>();
      // Sends due together leave in one turn of the event loop, but a turn that has sent for
      // MAX_SEND_TURN_MS gives way to I/O and timers (responses, the deadline): a backlog of
      // due sends must not starve the reads and open a connection per request.
      let turnStartMs = clock.now();
      for (let i = load.warmup; i < limit && !stopSending.signal.aborted; i++) {
        const item = opts.workItem(i);
        const scheduledMs = measuredStartMs + (item.scheduledMs ?? 0);
        if (scheduledMs >= deadline) break;
        if (clock.realTime && clock.now() - turnStartMs > MAX_SEND_TURN_MS) {
          await yieldTurn();
          turnStartMs = clock.now();
          if (stopSending.signal.aborted) {
            dropped += countDue(opts, i, limit, measuredStartMs, Math.min(clock.now(), deadline));
            break;
          }
        }
        const waits = scheduledMs > clock.now();
        if (!(await clock.sleepUntil(scheduledMs, stopSending.signal))) break;
        if (waits) turnStartMs = clock.now();
        let waitedForSlot = false;
        while (inFlight >= cap && !stopSending.signal.aborted) {
          waitedForSlot = true;
          await new Promise<void>((resolve) => slotWaiters.push(resolve));
        }
        if (stopSending.signal.aborted) {
          dropped += countDue(opts, i, limit, measuredStartMs, Math.min(clock.now(), deadline));
          break;
        }
        const lag = clock.now() - scheduledMs;
        dispatchLag.record(lag);
        if (!waitedForSlot) timerLag.record(lag);
        if (lag > LATE_SEND_TOLERANCE_MS) lateSends++;
        sent++;
        const p = dispatch({ ...item, scheduledMs }, scheduledMs).then(() => undefined);
        pending.add(p);
        void p.then(() => pending.delete(p));
      }
      await Promise.all(pending);
    }
    if (!stopSending.signal.aborted) stopReason = 'requests';
  } finally {
    cancelDeadline?.();
    opts.signal?.removeEventListener('abort', onSignal);
    loopDelay?.disable();
  }

  const eventLoopDelay = loopDelay
    ? { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 }
    : { p50: 0, p99: 0, max: 0 };
  // A simulated clock has no client to be bound by.
  const clientBoundReason = clock.realTime
    ? clientBoundBecause(eventLoopDelay.p99, timerLag, clientQueueWait)
    : undefined;
  const clientBound = clientBoundReason !== undefined;
  return {
    interrupted,
    stopReason,
    measuredStartMs,
    measuredEndMs,
    sent,
    warmupSent,
    dropped,
    lateSends,
    peakInFlight,
    dispatchLag,
    eventLoopDelay,
    clientQueueWait,
    clientBound,
    ...(clientBoundReason !== undefined ? { clientBoundReason } : {}),
    ...(opts.startAtMs !== undefined ? { startSkewMs: measuredStartMs - opts.startAtMs } : {}),
    ...(tally ? { stages: tally.finish(clock.now() - measuredStartMs) } : {}),
  };
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

/** Items from `from` on whose schedule fell before `untilMs` (and before the limit): due but never sent. */
function countDue(opts: RunLoadOptions, from: number, limit: number, startMs: Ms, untilMs: Ms): number {
  let n = 0;
  for (let i = from; i < limit; i++) {
    if (startMs + (opts.workItem(i).scheduledMs ?? 0) > untilMs) break;
    n++;
  }
  return n;
}
