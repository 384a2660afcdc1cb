/**
 * The load workers of one run (`--workers N`): N worker threads, each with its own event loop
 * and client, running their shares of the load (split.ts). The main thread only starts them,
 * releases them together after warmup, hands the records they post to the run's sinks
 * (requests.jsonl stays one file, written here) and merges their results (merge.ts).
 *
 * From the built package each worker is a thread (entry.js); from the TypeScript sources (as
 * tests run) entry.js is not there, and the workers run on this thread over MessageChannels:
 * the same code and messages, one event loop.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import { GoodputError, type GoodputErrorCode } from '../../errors.js';
import type { ConnectionWarmup, LoadSpec, RequestRecord } from '../../types.js';
import type { PartSpec } from '../../workload/index.js';
import type { BenchmarkConfig } from '../config.js';
import type { LoadResult } from '../load.js';
import type { RunClock } from '../timer.js';
import { mergeConnectionWarmups, mergeLoadResults, workerName } from './merge.js';
import type { FromWorker, LoadWorkerData, ToWorker, WorkerLoadResult } from './protocol.js';
import { runLoadWorker } from './thread.js';

const ENTRY = new URL('./entry.js', import.meta.url);
/** The measured start is set this far ahead of the last worker's warmup, so every worker is waiting for it. */
const GO_AHEAD_MS = 10;

/** One worker as the main thread sees it: a thread, or the in-process stand-in. */
interface WorkerEnd {
  post(m: ToWorker): void;
  on(listener: (m: FromWorker) => void): void;
  /** Called when the worker ends without a result (a crash). */
  onFailure(listener: (e: Error) => void): void;
  end(): Promise<void>;
  /** True when this worker is a thread of its own. */
  readonly thread: boolean;
}

function threadWorker(data: LoadWorkerData): WorkerEnd {
  const worker = new Worker(ENTRY, { workerData: data, name: workerName(data.worker, data.workers) });
  let ended = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    thread: true,
    post: (m) => worker.postMessage(m),
    on: (listener) =>
      worker.on('message', (m: FromWorker) => {
        // Its last word: the thread exits next, and that is no failure.
        if (m.type === 'done' || m.type === 'error') ended = true;
        listener(m);
      }),
    onFailure(listener) {
      worker.on('error', listener);
      worker.once('exit', (code) => {
        if (!ended) listener(new Error(`exited with code ${code}`));
      });
    },
    async end() {
      ended = true;
      // A worker stuck in a loop must not hold the run's exit.
      const timer = setTimeout(() => void worker.terminate(), 2_000);
      timer.unref();
      await exited;
      clearTimeout(timer);
    },
  };
}

function inProcessWorker(data: LoadWorkerData): WorkerEnd {
  const { port1, port2 } = new MessageChannel();
  const done = runLoadWorker(port2, data);
  return {
    thread: false,
    post: (m) => port1.postMessage(m),
    on: (listener) => port1.on('message', listener),
    onFailure: () => undefined,
    async end() {
      await done;
      port1.close();
    },
  };
}

export interface LoadWorkerPool {
  /** Workers started. */
  readonly size: number;
  /** True when they are threads of their own (from the built package). */
  readonly threads: boolean;
  /** Every worker's connection warm-up, as one. */
  readonly connectionWarmup: ConnectionWarmup;
  /**
   * Runs the load on every worker; `clock` is the run's (its t0 is the workers'). Records
   * reach `onRecord` in batches, in the order they arrive. Resolves with the merged result.
   */
  run(opts: {
    clock: RunClock;
    /** `worker`: which worker sent it (0-based). */
    onRecord: (record: RequestRecord, worker: number) => void;
    signal?: AbortSignal;
    /** requests.jsonl: closed loops pause while it is backlogged. */
    writer?: { readonly backlogged: boolean; drained(): Promise<void> };
    /** `--start-at` on the run clock: the measured phase starts then (or as soon as all are warm, if later). */
    startAtMs?: number;
  }): Promise<LoadResult>;
  /** Ends every worker (after run, or instead of it). */
  close(): Promise<void>;
}

function workerError(
  k: number,
  n: number,
  e: { message: string; code?: string; hint?: string },
): GoodputError {
  if (e.code?.startsWith('E_') && e.hint)
    return new GoodputError(e.code as GoodputErrorCode, e.message, e.hint);
  return new GoodputError(
    'E_INTERNAL',
    `load ${workerName(k, n)} failed: ${e.message}`,
    'run again with --workers 1; if it passes, report the failure with the command line',
  );
}

/**
 * Starts `workers` load workers of the run and waits until each has its connections open
 * (or its bounded warm-up gave up). Stopping `signal` stops them.
 */
export async function startLoadWorkers(opts: {
  config: BenchmarkConfig;
  /** The load this process runs (the run's, or its shard's); default the config's. */
  load?: LoadSpec;
  shard?: PartSpec;
  baseUrl: string;
  model: string;
  workers: number;
  signal?: AbortSignal;
}): Promise<LoadWorkerPool> {
  const n = opts.workers;
  const counters = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT);
  // GOODPUT_WORKER_THREADS=0 runs the same workers on this thread (to tell a threading
  // problem from a split one; the workers bench compares the two).
  const useThreads = existsSync(fileURLToPath(ENTRY)) && process.env.GOODPUT_WORKER_THREADS !== '0';
  const ends: WorkerEnd[] = [];
  const listeners: Array<(m: FromWorker) => void> = [];
  const failures: Array<(e: Error) => void> = [];
  for (let k = 0; k < n; k++) {
    const data: LoadWorkerData = {
      kind: 'goodput.load-worker',
      config: opts.config,
      load: opts.load ?? opts.config.load,
      ...(opts.shard ? { shard: opts.shard } : {}),
      baseUrl: opts.baseUrl,
      model: opts.model,
      worker: k,
      workers: n,
      counters,
    };
    const end = useThreads ? threadWorker(data) : inProcessWorker(data);
    end.on((m) => listeners[k]?.(m));
    end.onFailure((e) => failures[k]?.(e));
    ends.push(end);
  }
  const stopAll = () => {
    for (const end of ends) end.post({ type: 'stop' });
  };
  opts.signal?.addEventListener('abort', stopAll, { once: true });
  const close = async () => {
    opts.signal?.removeEventListener('abort', stopAll);
    stopAll();
    await Promise.all(ends.map((e) => e.end().catch(() => undefined)));
  };

  let warmups: ConnectionWarmup[];
  try {
    warmups = await Promise.all(
      ends.map(
        (_, k) =>
          new Promise<ConnectionWarmup>((resolve, reject) => {
            listeners[k] = (m) => {
              if (m.type === 'ready') resolve(m.connectionWarmup);
              else if (m.type === 'error') reject(workerError(k, n, m.error));
            };
            failures[k] = (e) => reject(workerError(k, n, e));
          }),
      ),
    );
  } catch (e) {
    await close();
    throw e;
  }

  return {
    size: n,
    threads: useThreads,
    connectionWarmup: mergeConnectionWarmups(warmups),
    close,
    run({ clock, onRecord, signal, writer, startAtMs }) {
      return new Promise<LoadResult>((resolve, reject) => {
        const results: Array<WorkerLoadResult | undefined> = new Array(n);
        const isWarm: boolean[] = new Array(n).fill(false);
        let warm = 0;
        let finished = 0;
        let paused = false;
        const broadcast = (m: ToWorker) => {
          for (const end of ends) end.post(m);
        };
        const onAbort = () => broadcast({ type: 'stop' });
        signal?.addEventListener('abort', onAbort, { once: true });
        let failed = false;
        const fail = (e: Error) => {
          if (failed) return;
          failed = true;
          signal?.removeEventListener('abort', onAbort);
          broadcast({ type: 'stop' });
          reject(e);
        };
        // The barrier: every worker warm (or already done, when stopped) → the measured start.
        const arrived = (k: number) => {
          if (isWarm[k]) return;
          isWarm[k] = true;
          if (++warm < n) return;
          const soonest = clock.now() + GO_AHEAD_MS;
          if (startAtMs === undefined) broadcast({ type: 'go', atMs: soonest });
          else broadcast({ type: 'go', atMs: Math.max(startAtMs, soonest), startAtMs });
        };
        ends.forEach((_, k) => {
          listeners[k] = (m) => {
            if (m.type === 'records') {
              for (const record of m.records) onRecord(record, k);
              if (writer?.backlogged && !paused) {
                paused = true;
                broadcast({ type: 'pause' });
                void writer.drained().then(() => {
                  paused = false;
                  broadcast({ type: 'resume' });
                });
              }
            } else if (m.type === 'warm') arrived(k);
            else if (m.type === 'done') {
              results[k] = m.result;
              // Stopped before its warmup ended: it never says warm, and the others must not wait for it.
              arrived(k);
              if (++finished === n) {
                signal?.removeEventListener('abort', onAbort);
                resolve(mergeLoadResults(results as WorkerLoadResult[]));
              }
            } else if (m.type === 'error') fail(workerError(k, n, m.error));
          };
          failures[k] = (e) => fail(workerError(k, n, e));
        });
        if (signal?.aborted) onAbort();
        broadcast({ type: 'start', originNs: clock.originNs() });
      });
    },
  };
}
