/**
 * One LoadResult and one connection warm-up from the load workers' own (pure). Counts add up,
 * histograms merge exactly, the achieved load per stage adds up, a stop or an interruption anywhere is the run's, and a worker
 * whose event loop lagged makes the whole run client-bound, named in the reason.
 *
 * @module
 */

import { LatencyHistogram, mergeGcPauses, mergeStageLoads, mergeStartWindows } from '../../metrics/index.js';
import type { ConnectionWarmup } from '../../types.js';
import type { LoadResult, StopReason } from '../load.js';
import type { PortableHistogram, WorkerLoadResult } from './protocol.js';

export function toPortable(h: LatencyHistogram): PortableHistogram {
  return { encoded: h.encode(), stats: h.stats() };
}

function fromPortable(p: PortableHistogram): LatencyHistogram {
  return p.stats.count === 0 ? new LatencyHistogram() : LatencyHistogram.decode(p.encoded, p.stats);
}

/** A worker's result as it crosses threads. */
export function portableLoadResult(r: LoadResult): WorkerLoadResult {
  return { ...r, dispatchLag: toPortable(r.dispatchLag), clientQueueWait: toPortable(r.clientQueueWait) };
}

/** "worker 2 of 4" (1-based, as people count). */
export function workerName(k: number, n: number): string {
  return `worker ${k + 1} of ${n}`;
}

const STOP_PRIORITY: StopReason[] = ['signal', 'duration', 'requests'];

/**
 * The run's LoadResult from its workers' (index = worker). peakInFlight is the sum of the
 * workers' peaks: exact in the closed loop (each worker's peak is its share of the
 * concurrency), an upper bound in the open loop (the workers' peaks need not coincide).
 */
export function mergeLoadResults(parts: readonly WorkerLoadResult[]): LoadResult {
  const dispatchLag = new LatencyHistogram();
  const clientQueueWait = new LatencyHistogram();
  const reasons: string[] = [];
  let stopReason: StopReason = 'requests';
  const sum = (f: (r: WorkerLoadResult) => number) => parts.reduce((a, r) => a + f(r), 0);
  parts.forEach((r, k) => {
    dispatchLag.merge(fromPortable(r.dispatchLag));
    clientQueueWait.merge(fromPortable(r.clientQueueWait));
    if (STOP_PRIORITY.indexOf(r.stopReason) < STOP_PRIORITY.indexOf(stopReason)) stopReason = r.stopReason;
    if (r.clientBound)
      reasons.push(`${workerName(k, parts.length)}: ${r.clientBoundReason ?? 'client-bound'}`);
  });
  const merged: LoadResult = {
    interrupted: parts.some((r) => r.interrupted),
    stopReason,
    measuredStartMs: Math.min(...parts.map((r) => r.measuredStartMs)),
    measuredEndMs: Math.max(...parts.map((r) => r.measuredEndMs)),
    sent: sum((r) => r.sent),
    warmupSent: sum((r) => r.warmupSent),
    dropped: sum((r) => r.dropped),
    lateSends: sum((r) => r.lateSends),
    peakInFlight: sum((r) => r.peakInFlight),
    dispatchLag,
    eventLoopDelay: {
      p50: Math.max(...parts.map((r) => r.eventLoopDelay.p50)),
      p99: Math.max(...parts.map((r) => r.eventLoopDelay.p99)),
      max: Math.max(...parts.map((r) => r.eventLoopDelay.max)),
    },
    clientQueueWait,
    clientBound: reasons.length > 0,
  };
  if (reasons.length > 0) merged.clientBoundReason = reasons.join('; ');
  // GC pauses: each worker thread pauses alone; the count and the time add up (mergeGcPauses).
  const gcPauses = mergeGcPauses(parts.map((r) => r.gcPauses));
  if (gcPauses) merged.gcPauses = gcPauses;
  const startWindow = mergeStartWindows(parts.map((r) => r.startWindow));
  if (startWindow) merged.startWindow = startWindow;
  // --start-at: the run started when its last worker did.
  const skews = parts.flatMap((r) => (r.startSkewMs === undefined ? [] : [r.startSkewMs]));
  if (skews.length > 0) merged.startSkewMs = Math.max(...skews);
  // --stages: every worker tallied its own share against the run's targets.
  const stages = mergeStageLoads(parts.map((r) => r.stages));
  if (stages) merged.stages = stages;
  return merged;
}

/** The workers' connection warm-ups as one: connections add up, the longest time, the first shortfall's reason. */
export function mergeConnectionWarmups(parts: readonly ConnectionWarmup[]): ConnectionWarmup {
  const merged: ConnectionWarmup = {
    requested: parts.reduce((a, w) => a + w.requested, 0),
    ok: parts.reduce((a, w) => a + w.ok, 0),
    ms: Math.max(0, ...parts.map((w) => w.ms)),
  };
  const reason = parts.find((w) => w.reason !== undefined)?.reason;
  if (reason !== undefined) merged.reason = reason;
  return merged;
}
