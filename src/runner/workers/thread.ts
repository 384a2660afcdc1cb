/**
 * One load worker (`--workers`): its share of the run's load (share.ts) on its own event loop
 * with its own client (undici pool), on a clock whose t0 is the main thread's. Records go to
 * the main thread in batches; the result goes back once the load ends. Runs on a worker
 * thread (entry.ts) or, from the TypeScript sources, in the main thread over a MessageChannel.
 *
 * @module
 */

import type { MessagePort } from 'node:worker_threads';
import type { Client } from '../../client/index.js';
import type { RequestRecord } from '../../types.js';
import { Part } from '../../workload/index.js';
import { createRunClient, planConnections, warmConnections } from '../live-client.js';
import { runLoad } from '../load.js';
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

/** Waits for one message type, or for the stop. */
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

/** Runs worker `data.worker`'s share of the load, talking to the main thread over `port`. */
export async function runLoadWorker(port: MessagePort, data: LoadWorkerData): Promise<void> {
  const post = (m: FromWorker) => port.postMessage(m);
  const { config, worker: k, workers: n } = data;
  const whole = data.load;
  // This worker's part of its process's load, and of the run (a shard's sub-part).
  const worker = Part.whole.sub(k, n);
  const load = workerLoad(whole, worker);
  const counters = new Int32Array(data.counters);
  const stop = new AbortController();
  const messages = inbox(port, stop);
  let client: Client | undefined;
  let batch: RequestRecord[] = [];
  const flush = () => {
    if (batch.length === 0) return;
    post({ type: 'records', records: batch });
    batch = [];
  };
  let flusher: NodeJS.Timeout | undefined;
  let exhausted: ReturnType<typeof watchExhausted> | undefined;
  try {
    const { workload, tokenizer } = await buildRunWorkload(config, stop.signal);
    // A shard's items keep their global index and place in the one schedule, and a trace its
    // own times: the workers then take every N-th of them as scheduled.
    const shard = data.shard;
    const source = shard ? { item: shardItem(workload, config.load.warmup, shard) } : workload;
    const workItem =
      shard || workload.spec.kind === 'trace'
        ? shareWorkItem(source, whole, config.seed, worker, 'round-robin')
        : shareWorkItem(source, whole, config.seed, worker);
    // Sessions stay whole on this worker: the shard's, then this worker's share of them.
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
    const clock = new RunClock();
    client = createRunClient(config, data, load, tokenizer, clock);
    const plan = planConnections(load, config.sampling.maxTokens);
    const connectionWarmup = await warmConnections(client, plan, load, stop.signal);
    post({ type: 'ready', connectionWarmup });
    const start = await messages.next('start');
    if (start) clock.startAt(start.originNs);
    flusher = setInterval(flush, FLUSH_MS);
    const warmup = whole.warmup;
    const limit = whole.requests === undefined ? Number.POSITIVE_INFINITY : warmup + whole.requests;
    let startAtMs: number | undefined;
    if (sessions) exhausted = watchExhausted(counters);
    const result = await runLoad({
      load,
      workItem,
      send: (item, opts) => client!.send(item, opts),
      clock,
      signal: stop.signal,
      onRecord: (record) => {
        batch.push(record);
        if (batch.length >= BATCH) flush();
      },
      backpressure: messages.paused,
      ...(sessions ? { sessions } : {}),
      stageUsers: (shard ? Part.of(shard) : Part.whole).sub(k, n),
      peers: {
        claim: (phase) => {
          if (phase === 'warmup') {
            const i = Atomics.add(counters, 0, 1);
            return i < warmup ? i : undefined;
          }
          const i = warmup + Atomics.add(counters, 1, 1);
          if (i >= limit - 1) raiseExhausted(counters);
          return i < limit ? i : undefined;
        },
        beforeMeasured: async () => {
          post({ type: 'warm' });
          const go = await messages.next('go');
          if (go) await clock.sleepUntil(go.atMs, stop.signal);
          startAtMs = go?.startAtMs;
        },
        ...(exhausted ? { exhausted: exhausted.signal } : {}),
      },
    });
    clearInterval(flusher);
    flush();
    // The skew from --start-at: this worker's measured start, behind the shared instant.
    if (startAtMs !== undefined) result.startSkewMs = result.measuredStartMs - startAtMs;
    post({ type: 'done', result: portableLoadResult(result) });
  } catch (e) {
    clearInterval(flusher);
    flush();
    const err = e as Error & { code?: string; hint?: string };
    post({ type: 'error', error: { message: err.message, code: err.code, hint: err.hint } });
  } finally {
    exhausted?.close();
    await client?.close().catch(() => undefined);
    port.close();
  }
}
