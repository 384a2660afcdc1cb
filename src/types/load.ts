/** What the load generator did (RunSummary.load): honesty about the load, stages, shards. @module */

import type { LatencyStats } from './summary.js';

/** What the connection warm-up did (summary.load.connectionWarmup). */
export interface ConnectionWarmup {
  /** Connections asked for. */
  requested: number;
  /** Warm-up requests the server answered: connections open and kept for the load. */
  ok: number;
  /** How long the warm-up took (ms). */
  ms: number;
  /**
   * Why fewer than `requested` connections were warmed: the server did not answer within the
   * budget, the run was stopped (Ctrl-C), or the requests failed. Absent when all were.
   */
  reason?: 'budget' | 'aborted' | 'errors';
}

/**
 * How the client used connections and what the server did with them (summary.load.connections).
 * A server with a bounded pool of HTTP threads (llama.cpp, many Python servers and gateways)
 * serves only so many connections at once, each until it closes: requests written to the others
 * wait for a connection, not for the engine.
 */
export interface ConnectionUse {
  /** `pooled`: kept alive and reused; `per-request`: a new connection per request, closed after it. */
  mode: 'pooled' | 'per-request';
  /** Most connections the client could hold at once; absent: as many as the load needed. */
  limit?: number;
  /** Connections asked for before the clock, and why that many (in words). */
  warmed: number;
  sizing: string;
  /** Most connections open at once. */
  peakOpen: number;
  /** Most open connections the server had answered on, at once: how many it served together. */
  peakServed: number;
  /** Connections whose first request waited more than CONNECTION_WAIT_MS for the server's first byte, or never got one. */
  waited: number;
  /** The longest such wait (ms). */
  longestWaitMs: number;
  /** The server served fewer connections at once than the load asked for: requests waited for a connection. */
  serverLimited: boolean;
  /**
   * This process's open-file limit (`ulimit -n`), when it held the pool below what the load asked
   * for (or an open loop's pool reached it): `limit` is then the connections it left room for,
   * and the requests beyond waited in the client (the `open-files-limit` caveat).
   */
  openFilesLimit?: number;
}

/**
 * Open loops, live: the dispatch lag of the sends scheduled in the measured phase's first
 * `ms` beside that of the sends after them, taken by the runner as it hands each request to
 * the client (as its client-bound check is; `LoadHonesty.dispatchLag` ends later, as undici
 * begins to write the request). A fresh process compiles its hot path over its first seconds
 * of load; a first second that lags several times the rest says the client was still warming
 * up when the measured phase began (the client-warming-up caveat).
 */
export interface StartWindow {
  /** The window, from the measured start (ms). */
  ms: number;
  /** Sends scheduled in it, and their dispatch-lag p99 (ms). */
  sends: number;
  p99Ms: number;
  /** Sends scheduled after it, and theirs. */
  laterSends: number;
  laterP99Ms: number;
}

/** Garbage-collection pauses of the load thread(s) during the measured load (live runs; ms). */
export interface GcPauses {
  count: number;
  /** All pauses added up. */
  totalMs: number;
  p99Ms: number;
  maxMs: number;
  /**
   * The node option that started the process's heap larger than V8's default
   * (`--initial-old-space-size=64`, as the `goodput` command starts node, or
   * `--initial-heap-size=N`), when it had one: without it a fresh process pauses for GC about
   * three times as long in its first run, and the gc-pauses caveat names the flag.
   */
  heapFlag?: string;
  /**
   * The node option that turned V8's allocation-site pretenuring off
   * (`--no-allocation-site-pretenuring`, as the `goodput` command starts node), when the process
   * had it: without it most fresh runs pause for GC 3–4 times as long, and the gc-pauses caveat
   * names the flag.
   */
  pretenuringFlag?: string;
}

export interface LoadHonesty {
  /** sent − scheduled for open-loop requests (ms). */
  dispatchLag: LatencyStats;
  /** Open-loop requests sent more than the lag tolerance after their scheduled time. */
  lateSends: number;
  /** Requests the runner could not send at all (stop rule hit, cap reached). */
  dropped: number;
  /** True when the load generator itself was the bottleneck (lag, CPU): numbers may understate the server. */
  clientBound: boolean;
  /** Why the client counts as the bottleneck (event-loop delay, send lag, client queue wait), when it does. */
  clientBoundReason?: string;
  /** Highest number of requests in flight at once. */
  peakInFlight: number;
  /**
   * Live runs: the client's GC pauses while the load ran (each stops every read: chunks that
   * arrive during one are stamped late by up to its length). With `--workers`, the workers' added up
   * (the longest of any one, the p99 of the worst).
   */
  gcPauses?: GcPauses;
  /** Live open loops: the measured phase's first second against the rest (a client still warming up). */
  startWindow?: StartWindow;
  /** HdrHistogram of dispatchLag (microseconds, compressed base64), so that merged runs keep exact percentiles. */
  dispatchLagHistogram?: string;
  /** Live runs: the bounded connection warm-up before the clock started. */
  connectionWarmup?: ConnectionWarmup;
  /** Live runs on one load thread: how connections were used and whether the server limited them. */
  connections?: ConnectionUse;
  /** `--start-at`: the measured load's actual start − the instant asked (ms; late is positive). */
  startSkewMs?: number;
  /**
   * `--shard`: the first measured send and the last measured end, ms after the measured start
   * (the shared instant), so that a merge of the shards spans the whole run as one run would.
   */
  shardWindow?: { firstSendMs: number; lastEndMs: number };
  /** Runs with `--stages`: the load each stage asked for and the load it achieved. */
  stages?: StageLoad[];
}

/** One shard of a merged sharded run: what it achieved and how far from the shared instant it started. */
export interface ShardOutcome {
  index: number;
  runId: string;
  /** Measured requests it sent, and their rate over its own duration. */
  attempted: number;
  requestsPerS: number;
  outputTokensPerS: number;
  startSkewMs?: number;
}

/** One stage of a shaped load, as asked and as achieved. */
export interface StageLoad {
  /** Start of the stage in ms after the start of the measured phase. */
  startMs: number;
  durationMs: number;
  of: 'rate' | 'concurrency';
  /** The target at the stage's start and end (linear in between). */
  from: number;
  to: number;
  /** The target's mean over the stage: (from + to) / 2. */
  targetMean: number;
  /** Measured requests sent during the stage. */
  sent: number;
  /** sent / stage duration, per second. */
  achievedRate: number;
  /** Time-weighted mean of the requests in flight during the stage (the part of it that ran). */
  meanInFlight: number;
  /** Part of the stage the run covered, ms (less than durationMs when the run was stopped). */
  coveredMs: number;
}
