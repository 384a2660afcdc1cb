/**
 * The configuration of one sweep point, from the sweep's base configuration: pure, so the
 * rules are table-tested.
 *
 * - Single-turn requests: a concurrency point is a closed loop of that many workers, a rate
 *   point an open loop at that many requests per second (`--max-concurrency` caps it).
 * - Multi-turn sessions (`--sessions` or `--session-rate` given to the sweep): a concurrency
 *   point runs that many sessions at once (as `goodput run --sessions N` does), a rate point
 *   starts that many new sessions per second (`--session-rate R`); `--max-concurrency` caps
 *   the requests in flight of both, as in a run.
 * - A trace (`--trace`): every point replays the same requests of the trace (all of them, or
 *   the first `--requests`), with their prompt and output lengths. A rate point scales the
 *   trace's times so its mean rate is the point's (time scale = the trace's mean rate ÷ the
 *   point's rate); a concurrency point (a rate sweep's anchors too) replays them closed loop.
 *   A rate sweep's anchors replay only the trace's first requests (as many as a plain run at
 *   their concurrency sends, unless `--requests`): they measure the rates, a long trace would
 *   take hours at concurrency 1.
 *
 * @module
 */

import type { BenchmarkConfig } from '../runner/index.js';
import type { LoadSpec } from '../types.js';
import type { PointRequest } from './run.js';

/** What the sweep knows of its base load beyond the LoadSpec. */
export interface SweepBase {
  /** `--requests` was given: every point sends that many (turns, with sessions). */
  requestsGiven: boolean;
  /** The user's `--max-concurrency`: a cap on requests in flight. */
  maxConcurrency?: number;
  /** Multi-turn sessions: the most turns a session has (sizes the default request count). */
  sessionTurns?: number;
  /** A trace replay; a rate sweep's with the trace's mean request rate at time scale 1 (requests/s). */
  trace?: { meanRate?: number };
}

/** The load of one point: the base load with the point's concurrency or rate (see module doc). */
export function pointLoad(base: LoadSpec, req: PointRequest, sweep: SweepBase): LoadSpec {
  const load: LoadSpec = { ...base };
  delete load.concurrency;
  delete load.rate;
  delete load.burstiness;
  delete load.maxConcurrency;
  const closed = req.concurrency !== undefined;
  if (closed) {
    load.mode = 'closed';
    load.concurrency = req.concurrency;
  } else {
    load.mode = 'open';
    load.burstiness = base.burstiness ?? 1;
  }
  if (sweep.maxConcurrency !== undefined && (!closed || sweep.sessionTurns !== undefined))
    load.maxConcurrency = sweep.maxConcurrency;
  if (sweep.sessionTurns !== undefined) {
    const sessions = { ...base.sessions };
    delete sessions.concurrency;
    delete sessions.rate;
    if (closed) sessions.concurrency = req.concurrency!;
    else sessions.rate = req.rate!;
    load.sessions = sessions;
  } else {
    delete load.sessions;
    if (!closed && sweep.trace === undefined) load.rate = req.rate;
  }
  if (sweep.trace !== undefined) {
    // Every request of the trace (or --requests of them): the runner counts them. A rate
    // sweep's anchors only measure the rates its points are spaced by: they replay the trace's
    // first requests, as many as a plain run at their concurrency sends, not all of a long trace.
    if (!sweep.requestsGiven) {
      delete load.requests;
      if (req.phase === 'synchronous' || req.phase === 'throughput')
        load.requests = Math.max(40, req.concurrency! * 8);
    }
  } else if (!sweep.requestsGiven && base.durationMs === undefined) {
    // About ten seconds' worth, at least 40 requests (session turns), as a plain run would.
    const turns = sweep.sessionTurns ?? 1;
    const perLoad = sweep.sessionTurns !== undefined ? 2 * turns : 8;
    load.requests = closed
      ? Math.max(40, req.concurrency! * perLoad)
      : Math.max(40, Math.ceil((req.rate ?? 1) * 10 * turns));
  }
  return load;
}

/** The whole configuration of one point, less its output folder and labels. */
export function pointConfig(base: BenchmarkConfig, req: PointRequest, sweep: SweepBase): BenchmarkConfig {
  const config: BenchmarkConfig = { ...base, load: pointLoad(base.load, req, sweep) };
  const trace = base.workload.trace;
  if (trace !== undefined && sweep.trace !== undefined) {
    const replay = { ...trace };
    if (req.rate !== undefined) {
      const meanRate = sweep.trace.meanRate;
      if (meanRate === undefined) throw new Error('a rate point of a trace needs the trace mean rate');
      replay.timeScale = meanRate / req.rate;
      delete replay.closedLoop;
    } else {
      replay.timeScale = 1;
      replay.closedLoop = true;
    }
    config.workload = { ...base.workload, trace: replay };
  }
  return config;
}

/** The point's directory name: its order, then c4 / r2.5, or s4 / sr0.5 for sessions. */
export function pointName(req: PointRequest, sessions: boolean): string {
  const load =
    req.concurrency !== undefined
      ? `${sessions ? 's' : 'c'}${req.concurrency}`
      : `${sessions ? 'sr' : 'r'}${req.rate}`;
  return `${String(req.ordinal).padStart(2, '0')}-${load}`;
}

/**
 * The mean request rate (per second) of the first `count` entries of a trace at time scale 1:
 * the mean gap between sends, (count − 1) ÷ span; undefined when they have no span.
 */
export function traceMeanRate(offsetMs: ArrayLike<number>, count: number): number | undefined {
  const n = Math.min(count, offsetMs.length);
  if (n < 2) return undefined;
  const spanMs = offsetMs[n - 1]! - offsetMs[0]!;
  return spanMs > 0 ? ((n - 1) * 1000) / spanMs : undefined;
}
