/**
 * The load workers of one run (`--workers N`): N worker threads, each with its own event loop
 * and client, running their shares of the load (share.ts). The main thread only starts them
 * (ends.ts: threads, or from the TypeScript sources the same workers on this thread), releases
 * them together after warmup, hands the records they post to the run's sinks (requests.jsonl
 * stays one file, written here) and merges their results (merge.ts).
 *
 * @module
 */

import { GoodputError, type GoodputErrorCode } from '../../errors.js';
import type { ConnectionWarmup, LoadSpec, RequestRecord } from '../../types.js';
import type { PartSpec } from '../../workload/index.js';
import type { BenchmarkConfig } from '../config.js';
import type { LoadResult } from '../load.js';
import type { RunClock } from '../timer.js';
import { startWorkerEnd, type WorkerEnd, workerThreadsAvailable } from './ends.js';
import { mergeConnectionWarmups, mergeLoadResults, workerName } from './merge.js';
import type { FromWorker, LoadWorkerData, ToWorker, WorkerLoadResult } from './protocol.js';

/** The measured start is set this far ahead of the last worker's warmup, so every worker is waiting for it. */
const GO_AHEAD_MS = 10;

export interface PoolRunOptions {
  clock: RunClock;
  /** `worker`: which worker sent it (0-based). */
  onRecord: (record: RequestRecord, worker: number) => void;
  signal?: AbortSignal;
  /** requests.jsonl: closed loops pause while it is backlogged. */
  writer?: Backlog;
  /** `--start-at` on the run clock: the measured phase starts then (or as soon as all are warm, if later). */
  startAtMs?: number;
}

/** A writer that can fall behind. */
interface Backlog {
  readonly backlogged: boolean;
  drained(): Promise<void>;
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
  run(opts: PoolRunOptions): Promise<LoadResult>;
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

export interface StartWorkersOptions {
  config: BenchmarkConfig;
  /** The load this process runs (the run's, or its shard's); default the config's. */
  load?: LoadSpec;
  shard?: PartSpec;
  baseUrl: string;
  model: string;
  workers: number;
  signal?: AbortSignal;
}

/**
 * Starts `workers` load workers of the run and waits until each has its connections open
 * (or its bounded warm-up gave up). Stopping `signal` stops them.
 */
export async function startLoadWorkers(opts: StartWorkersOptions): Promise<LoadWorkerPool> {
  const workers = spawnWorkers(opts);
  const stopAll = () => workers.broadcast({ type: 'stop' });
  opts.signal?.addEventListener('abort', stopAll, { once: true });
  const close = async () => {
    opts.signal?.removeEventListener('abort', stopAll);
    stopAll();
    await workers.endAll();
  };
  let warmups: ConnectionWarmup[];
  try {
    warmups = await workersReady(workers);
  } catch (e) {
    await close();
    throw e;
  }
  return {
    size: workers.size,
    threads: workers.threads,
    connectionWarmup: mergeConnectionWarmups(warmups),
    close,
    run: (runOpts) => runWorkers(workers, runOpts),
  };
}

/**
 * The started workers: their ends, and for each the handler of its messages and of its crash,
 * set by whoever is waiting on it (the ready wait, then the run).
 */
class Workers {
  readonly size: number;
  private readonly handlers: Array<{ message?: (m: FromWorker) => void; failure?: (e: Error) => void }>;

  constructor(
    private readonly ends: WorkerEnd[],
    readonly threads: boolean,
  ) {
    this.size = ends.length;
    this.handlers = ends.map(() => ({}));
    // Worker k's messages and crash go to its current handlers.
    for (const [k, end] of ends.entries()) {
      end.on((m) => this.handlers[k]?.message?.(m));
      end.onFailure((e) => this.handlers[k]?.failure?.(e));
    }
  }

  /** Worker k's messages go to `message` from now on, its crash (as a GoodputError) to `failure`. */
  listen(k: number, message: (m: FromWorker) => void, failure: (e: GoodputError) => void): void {
    this.handlers[k] = { message, failure: (e) => failure(workerError(k, this.size, e)) };
  }

  broadcast(m: ToWorker): void {
    for (const end of this.ends) end.post(m);
  }

  async endAll(): Promise<void> {
    await Promise.all(this.ends.map((e) => e.end().catch(() => undefined)));
  }
}

/** One worker per share of the load, all counting on one shared set of counters (protocol.ts). */
function spawnWorkers(opts: StartWorkersOptions): Workers {
  const n = opts.workers;
  const counters = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT);
  const threads = workerThreadsAvailable();
  const ends: WorkerEnd[] = [];
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
    ends.push(startWorkerEnd(data, threads));
  }
  return new Workers(ends, threads);
}

/** Every worker's connection warm-up, once all are ready; the first worker's error or crash rejects. */
function workersReady(workers: Workers): Promise<ConnectionWarmup[]> {
  return Promise.all(
    Array.from(
      { length: workers.size },
      (_, k) =>
        new Promise<ConnectionWarmup>((resolve, reject) => {
          workers.listen(
            k,
            (m) => {
              if (m.type === 'ready') resolve(m.connectionWarmup);
              else if (m.type === 'error') reject(workerError(k, workers.size, m.error));
            },
            reject,
          );
        }),
    ),
  );
}

/**
 * One run of the load on every worker: starts them on the run's clock, releases them together
 * after warmup, passes their records on and merges their results. The first worker error stops
 * the others and rejects.
 */
function runWorkers(workers: Workers, opts: PoolRunOptions): Promise<LoadResult> {
  const { clock, onRecord, signal, writer, startAtMs } = opts;
  const n = workers.size;
  return new Promise<LoadResult>((resolve, reject) => {
    const results: Array<WorkerLoadResult | undefined> = new Array(n);
    let finished = 0;
    const broadcast = (m: ToWorker) => workers.broadcast(m);
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
    const arrived = measuredStartBarrier(n, clock, startAtMs, broadcast);
    const checkBacklog = pauseWhileBacklogged(writer, broadcast);
    for (let k = 0; k < n; k++) {
      workers.listen(
        k,
        (m) => {
          if (m.type === 'records') {
            for (const record of m.records) onRecord(record, k);
            checkBacklog();
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
        },
        fail,
      );
    }
    if (signal?.aborted) onAbort();
    broadcast({ type: 'start', originNs: clock.originNs() });
  });
}

/**
 * The barrier between warmup and the measured phase: once every worker is warm (or already
 * done, when stopped), all are told the measured start, GO_AHEAD_MS ahead (or `--start-at`, if
 * later). Returns the call for worker k's arrival.
 */
function measuredStartBarrier(
  n: number,
  clock: RunClock,
  startAtMs: number | undefined,
  broadcast: (m: ToWorker) => void,
): (k: number) => void {
  const isWarm: boolean[] = new Array(n).fill(false);
  let warm = 0;
  return (k) => {
    if (isWarm[k]) return;
    isWarm[k] = true;
    if (++warm < n) return;
    const soonest = clock.now() + GO_AHEAD_MS;
    if (startAtMs === undefined) broadcast({ type: 'go', atMs: soonest });
    else broadcast({ type: 'go', atMs: Math.max(startAtMs, soonest), startAtMs });
  };
}

/**
 * Backpressure from requests.jsonl: the workers pause while the writer is backlogged and resume
 * when it drained. Returns the check to make after records were handed on.
 */
function pauseWhileBacklogged(writer: Backlog | undefined, broadcast: (m: ToWorker) => void): () => void {
  let paused = false;
  return () => {
    if (!writer?.backlogged || paused) return;
    paused = true;
    broadcast({ type: 'pause' });
    void writer.drained().then(() => {
      paused = false;
      broadcast({ type: 'resume' });
    });
  };
}
