/**
 * One load worker (`--workers`): its share of the run's load (share.ts) on its own event loop
 * with its own client (undici pool), on a clock whose t0 is the main thread's. Records go to
 * the main thread in batches; the result goes back once the load ends. Runs on a worker
 * thread (entry.ts) or, from the TypeScript sources, in the main thread over a MessageChannel.
 *
 * @module
 */

import type { MessagePort } from 'node:worker_threads';
import { type Client, readLocalLimits } from '../../client/index.js';
import type { LoadSpec, RequestRecord, WorkItem } from '../../types.js';
import { Part, type SessionSource, type Workload } from '../../workload/index.js';
import { createRunClient, filesCapOf, planConnections, warmConnections } from '../live-client.js';
import { type LoadPeers, runLoad } from '../load.js';
import { buildRunWorkload } from '../run-workload.js';
import { shardItem, shardSessions } from '../sharding/shard.js';
import { RunClock } from '../timer.js';
import { raiseExhausted, watchExhausted } from './exhausted.js';
import { portableLoadResult } from './merge.js';
import type { FromWorker, LoadWorkerData, ToWorker } from './protocol.js';
import { shareSessions, shareWorkItem, workerLoad } from './share.js';

/** Records are posted when this many are waiting, or every FLUSH_MS. */
const BATCH = 256;
const FLUSH_MS = 50;

/** Messages from the main thread: waits for one message type, or for the stop. */
function inbox(port: MessagePort, stop: AbortController) {
  const waiting = new Map<ToWorker['type'], (m: ToWorker) => void>();
  const arrived = new Map<ToWorker['type'], ToWorker>();
  let paused: { promise: Promise<void>; resolve: () => void } | undefined;
  port.on('message', (m: ToWorker) => {
    if (m.type === 'stop') {
      stop.abort();
      for (const wake of waiting.values()) wake(m);
      paused?.resolve();
    } else if (m.type === 'pause') {
      if (!paused) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => {
          resolve = r;
        });
        paused = { promise, resolve };
      }
    } else if (m.type === 'resume') {
      paused?.resolve();
      paused = undefined;
    } else {
      const wake = waiting.get(m.type);
      if (wake) wake(m);
      else arrived.set(m.type, m);
    }
  });
  return {
    /** The message, or undefined when the worker was stopped first. */
    next<T extends ToWorker['type']>(type: T): Promise<Extract<ToWorker, { type: T }> | undefined> {
      const got = arrived.get(type);
      if (got) return Promise.resolve(got as Extract<ToWorker, { type: T }>);
      if (stop.signal.aborted) return Promise.resolve(undefined);
      return new Promise((resolve) =>
        waiting.set(type, (m) => {
          waiting.delete(type);
          resolve(m.type === type ? (m as Extract<ToWorker, { type: T }>) : undefined);
        }),
      );
    },
    paused: () => paused?.promise,
  };
}

type Inbox = ReturnType<typeof inbox>;

/** Runs worker `data.worker`'s share of the load, talking to the main thread over `port`. */
export async function runLoadWorker(port: MessagePort, data: LoadWorkerData): Promise<void> {
  const post = (m: FromWorker) => port.postMessage(m);
  const { config, worker: k, workers: n } = data;
  // This worker's part of its process's load, and of the run (a shard's sub-part).
  const worker = Part.whole.sub(k, n);
  const load = workerLoad(data.load, worker);
  const counters = new Int32Array(data.counters);
  const stop = new AbortController();
  const messages = inbox(port, stop);
  const records = new RecordBatches(post);
  let client: Client | undefined;
  let exhausted: ReturnType<typeof watchExhausted> | undefined;
  try {
    const { workload, tokenizer } = await buildRunWorkload(config, stop.signal);
    const { workItem, sessions } = workerShare(workload, data, worker, counters);
    const clock = new RunClock();
    // This worker's share of the room the process's open-file limit leaves (no --url: the embedded engine).
    const files = filesCapOf(readLocalLimits(), config.url === undefined, n);
    const plan = planConnections(load, config.sampling.maxTokens, files);
    client = createRunClient(config, data, load, tokenizer, clock, plan);
    const connectionWarmup = await warmConnections(client, plan, load, stop.signal);
    post({ type: 'ready', connectionWarmup });
    const start = await messages.next('start');
    if (start) clock.startAt(start.originNs);
    records.start();
    if (sessions) exhausted = watchExhausted(counters);
    const release = measuredRelease(post, messages, clock, stop.signal);
    const result = await runLoad({
      load,
      workItem,
      send: (item, opts) => client!.send(item, opts),
      clock,
      signal: stop.signal,
      onRecord: (record) => records.push(record),
      backpressure: messages.paused,
      ...(sessions ? { sessions } : {}),
      stageUsers: (data.shard ? Part.of(data.shard) : Part.whole).sub(k, n),
      ...(workload.userClass ? { userClass: workload.userClass } : {}),
      peers: {
        claim: sharedClaim(counters, data.load),
        beforeMeasured: release.wait,
        ...(exhausted ? { exhausted: exhausted.signal } : {}),
      },
    });
    records.stop();
    // The skew from --start-at: this worker's measured start, behind the shared instant.
    const startAtMs = release.startAtMs();
    if (startAtMs !== undefined) result.startSkewMs = result.measuredStartMs - startAtMs;
    post({ type: 'done', result: portableLoadResult(result) });
  } catch (e) {
    records.stop();
    const err = e as Error & { code?: string; hint?: string };
    post({ type: 'error', error: { message: err.message, code: err.code, hint: err.hint } });
  } finally {
    exhausted?.close();
    await client?.close().catch(() => undefined);
    port.close();
  }
}

/**
 * This worker's items and sessions. A shard's items keep their global index and place in the
 * one schedule, and a trace its own times: the workers then take every N-th of them as
 * scheduled. Sessions stay whole on one worker: the shard's, then this worker's share of them,
 * the next one taken from the workers' shared session counter.
 */
function workerShare(
  workload: Workload,
  data: LoadWorkerData,
  worker: Part,
  counters: Int32Array,
): { workItem: (i: number, cls?: number) => WorkItem; sessions: SessionSource | undefined } {
  const { config, shard, load: whole } = data;
  const source = shard ? { item: shardItem(workload, config.load.warmup, shard) } : workload;
  const workItem =
    shard || workload.spec.kind === 'trace'
      ? shareWorkItem(source, whole, config.seed, worker, 'round-robin')
      : shareWorkItem(source, whole, config.seed, worker);
  const base =
    workload.sessions && shard
      ? shardSessions(workload.sessions, config.load.warmup, shard)
      : workload.sessions;
  const sessions =
    base &&
    shareSessions(
      base,
      whole,
      config.seed,
      worker,
      () => Atomics.add(counters, 2, 1),
      shard ? 'round-robin' : undefined,
    );
  return { workItem, sessions };
}

/**
 * The next warmup or measured index from the counters every worker shares (protocol.ts);
 * taking the run's last measured one tells the others (exhausted.ts).
 */
function sharedClaim(counters: Int32Array, whole: LoadSpec): LoadPeers['claim'] {
  const warmup = whole.warmup;
  const limit = whole.requests === undefined ? Number.POSITIVE_INFINITY : warmup + whole.requests;
  return (phase) => {
    if (phase === 'warmup') {
      const i = Atomics.add(counters, 0, 1);
      return i < warmup ? i : undefined;
    }
    const i = warmup + Atomics.add(counters, 1, 1);
    if (i >= limit - 1) raiseExhausted(counters);
    return i < limit ? i : undefined;
  };
}

/**
 * The wait between warmup and the measured phase: says `warm`, then sleeps until the measured
 * start the main thread sends once every worker is warm; `startAtMs` is the run's --start-at.
 */
function measuredRelease(
  post: (m: FromWorker) => void,
  messages: Inbox,
  clock: RunClock,
  stop: AbortSignal,
): { wait(): Promise<void>; startAtMs(): number | undefined } {
  let startAtMs: number | undefined;
  return {
    async wait() {
      post({ type: 'warm' });
      const go = await messages.next('go');
      if (go) await clock.sleepUntil(go.atMs, stop);
      startAtMs = go?.startAtMs;
    },
    startAtMs: () => startAtMs,
  };
}

/** The worker's records on their way to the main thread: posted BATCH at a time, or every FLUSH_MS. */
class RecordBatches {
  private batch: RequestRecord[] = [];
  private flusher: NodeJS.Timeout | undefined;

  constructor(private readonly post: (m: FromWorker) => void) {}

  start(): void {
    this.flusher = setInterval(() => this.flush(), FLUSH_MS);
  }

  push(record: RequestRecord): void {
    this.batch.push(record);
    if (this.batch.length >= BATCH) this.flush();
  }

  /** Stops the timer and posts what is waiting. */
  stop(): void {
    clearInterval(this.flusher);
    this.flush();
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    this.post({ type: 'records', records: this.batch });
    this.batch = [];
  }
}
