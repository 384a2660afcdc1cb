/**
 * How requests reach the target: one interface, three implementations beside each other.
 *
 * - `live.ts`: a client over sockets on this thread, its connections opened before the clock.
 * - `workers.ts`: load workers (`--workers N`), each with its own client and event loop.
 * - `virtual.ts`: the embedded engine in-process on its simulated clock (`--time virtual`).
 *
 * A transport is opened before the clock starts (connections warm, workers ready), runs one
 * plan with its records flowing to the run's sinks, and is closed whatever happened.
 *
 * @module
 */

import type { ConnectionUse, ConnectionWarmup, LoadClock, ServerSummary } from '../../types.js';
import type { LoadResult } from '../load.js';
import type { RecordSinkFn } from '../pipeline.js';
import type { LoadPlan } from '../plan.js';

/** Where a run's records go while it runs, and what stops it. */
export interface RunSinks {
  /** Called in order with every record (warmup included). */
  records: ReadonlyArray<RecordSinkFn | undefined>;
  /** requests.jsonl: closed loops wait while it is backlogged. */
  writer: { readonly backlogged: boolean; drained(): Promise<void> };
  /** Stops the load (Ctrl-C, a failed write). */
  signal: AbortSignal;
  /** `--start-at` on the transport's clock: the measured phase starts then. */
  startAtMs?: number;
}

/** What a transport measured besides the load's own result. */
export interface TransportResult {
  load: LoadResult;
  /** Live: how far the connection warm-up got. */
  connectionWarmup?: ConnectionWarmup;
  /** Live, one thread: how the client's connections served the run, given its peak in flight. */
  connections?: (peakInFlight: number) => ConnectionUse;
  /** Virtual: the engine's own counters, in place of scraped server metrics. */
  server?: ServerSummary;
}

export interface Transport {
  /** The run's clock: the load's, and the server-metrics recorders'. */
  readonly clock: LoadClock;
  /** Runs the plan's load; resolves when every request sent has a record. */
  run(plan: LoadPlan, sinks: RunSinks): Promise<TransportResult>;
  /** Ends the client, the workers or the engine (after run, or instead of it). */
  close(): Promise<void>;
}
