/**
 * Messages between the run's main thread and its load workers (`--workers`). The main thread
 * schedules nothing time-critical: it starts the workers, releases them together after their
 * warmup, writes the records they post in batches, and merges their results.
 *
 * One worker's life: `ready` (its connections open) → `start` (the run's t0) → warmup →
 * `warm` → `go` (the measured start, a few ms ahead) → `records`… → `done`. `stop` (Ctrl-C)
 * may come at any time; `pause`/`resume` hold a closed loop while requests.jsonl is backlogged.
 *
 * @module
 */

import type { ConnectionWarmup, LatencyStats, LoadSpec, RequestRecord } from '../../types.js';
import type { PartSpec } from '../../workload/index.js';
import type { BenchmarkConfig } from '../config.js';
import type { LoadResult } from '../load.js';

/** workerData of a load worker. */
export interface LoadWorkerData {
  kind: 'goodput.load-worker';
  /** The run's config, whose workload every worker builds. In memory only, like the config itself. */
  config: BenchmarkConfig;
  /** The load this process runs (the run's, or its shard's): the workers split it (share.ts). */
  load: LoadSpec;
  /** `--shard i/N`: this process sends the shard's items (their global index and schedule). */
  shard?: PartSpec;
  /** Where requests go (may carry what the user put in the URL: never persisted by a worker). */
  baseUrl: string;
  model: string;
  /** 0-based. */
  worker: number;
  workers: number;
  /**
   * Int32Array over it, shared by every worker: [next warmup index, next measured index, next
   * session (closed loop), last measured item taken (exhausted.ts)].
   */
  counters: SharedArrayBuffer;
}

export type ToWorker =
  | { type: 'start'; originNs: bigint }
  /** The measured start; `startAtMs` (--start-at) when the run has one, its skew then recorded. */
  | { type: 'go'; atMs: number; startAtMs?: number }
  | { type: 'stop' }
  | { type: 'pause' }
  | { type: 'resume' };

/** A histogram as it crosses threads: its encoding and exact stats. */
export interface PortableHistogram {
  encoded: string;
  stats: LatencyStats;
}

/** A worker's LoadResult, cloneable. */
export interface WorkerLoadResult extends Omit<LoadResult, 'dispatchLag' | 'clientQueueWait'> {
  dispatchLag: PortableHistogram;
  clientQueueWait: PortableHistogram;
}

export type FromWorker =
  | { type: 'ready'; connectionWarmup: ConnectionWarmup }
  | { type: 'records'; records: RequestRecord[] }
  | { type: 'warm' }
  | { type: 'done'; result: WorkerLoadResult }
  | { type: 'error'; error: { message: string; code?: string; hint?: string } };
