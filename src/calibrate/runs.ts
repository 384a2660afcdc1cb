/**
 * The runs a calibration fits: each measured run folder (summary.json + requests.jsonl) read
 * back as the requests to replay on the simulated engine (prompt and output tokens, and the
 * load: closed loop at its concurrency, or open loop at its send times) and the figures to
 * match (TTFT and TPOT, mean and median, by compare's one per-request definition).
 *
 * @module
 */

import { basename } from 'node:path';
import { quantileSorted, samplesFromRecords } from '../compare/index.js';
import { GoodputError } from '../errors.js';
import { collect, readRecords, readSummary } from '../results/index.js';
import type { RequestRecord } from '../types.js';

/** One request to replay. */
export interface CalibrationRequest {
  promptTokens: number;
  outputTokens: number;
  /** Open loop: when it was sent, ms after the run's first send (0 in closed loop). */
  arrivalMs: number;
}

/** TTFT and TPOT of a run, ms: what the fit matches and what held-out errors are reported on. */
export interface RunFigures {
  meanTtftMs: number;
  p50TtftMs: number;
  meanTpotMs: number;
  p50TpotMs: number;
}

export interface CalibrationRun {
  /** Display name (the folder's name). */
  name: string;
  dir: string;
  /** Closed loop: requests in flight; absent: open loop at the recorded send times. */
  concurrency?: number;
  /** Shared system prompt tokens of every request (prefix-cache hits on the real server). */
  sharedPrefixTokens?: number;
  requests: CalibrationRequest[];
  measured: RunFigures;
}

const mean = (v: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]!;
  return v.length > 0 ? s / v.length : Number.NaN;
};

/** A run's figures from its records (measured, successful requests; TPOT of those with ≥ 2 tokens). */
export function runFigures(records: Iterable<RequestRecord>): RunFigures {
  const s = samplesFromRecords(records);
  return {
    meanTtftMs: mean(s.ttft),
    p50TtftMs: quantileSorted(s.ttft, 0.5),
    meanTpotMs: mean(s.tpot),
    p50TpotMs: quantileSorted(s.tpot, 0.5),
  };
}

function refuse(dir: string, why: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', `${dir}: ${why}`, hint);
}

/** Requests of a run that the fit replays and matches, by default (each fit replays every run dozens of times). */
export const DEFAULT_MAX_REQUESTS = 200;

/**
 * Reads one measured run for calibration; refuses the loads a replay cannot reproduce. Only the
 * first `maxRequests` measured requests (by index) are replayed, and the figures to match are
 * theirs, so that a long run costs no more to fit than a short one.
 */
export async function readCalibrationRun(
  dir: string,
  maxRequests = DEFAULT_MAX_REQUESTS,
): Promise<CalibrationRun> {
  const summary = await readSummary(dir);
  const { load, workload } = summary.meta;
  const other = 'calibrate with runs of one closed-loop concurrency or one open-loop rate';
  if (load.sessions || workload.sessions)
    throw refuse(dir, 'a multi-turn session run cannot be replayed request by request', other);
  if (load.stages) throw refuse(dir, 'a staged run (--stages) changes its load over time', other);
  if (load.mode === 'open' && load.maxConcurrency !== undefined)
    throw refuse(dir, 'an open-loop run capped by --max-concurrency cannot be replayed', other);
  const records = (await collect(readRecords(dir))).filter((r) => !r.warmup);
  const done = records
    .filter((r) => r.outcome === 'success')
    .sort((a, b) => a.index - b.index)
    .slice(0, maxRequests);
  const measured = runFigures(done);
  if (done.length < 2 || !Number.isFinite(measured.meanTtftMs) || !Number.isFinite(measured.meanTpotMs))
    throw refuse(
      dir,
      `${done.length} successful request(s) with a first token and TPOT: too few to fit`,
      'use runs of at least a few requests of 2 or more output tokens each',
    );
  const t0 = Math.min(...done.map((r) => r.sentMs));
  const run: CalibrationRun = {
    name: basename(dir),
    dir,
    requests: done.map((r) => ({
      promptTokens: r.serverPromptTokens ?? r.promptTokens,
      outputTokens: r.outputTokens,
      arrivalMs: load.mode === 'open' ? r.sentMs - t0 : 0,
    })),
    measured,
  };
  if (load.mode === 'closed') run.concurrency = load.concurrency ?? 1;
  if (workload.systemPromptTokens) run.sharedPrefixTokens = workload.systemPromptTokens;
  return run;
}

/** Reads every run, in order; names made unique (a/run, b/run → run, run#2). */
export async function readCalibrationRuns(
  dirs: readonly string[],
  maxRequests = DEFAULT_MAX_REQUESTS,
): Promise<CalibrationRun[]> {
  const runs: CalibrationRun[] = [];
  const seen = new Map<string, number>();
  for (const dir of dirs) {
    const run = await readCalibrationRun(dir, maxRequests);
    const n = (seen.get(run.name) ?? 0) + 1;
    seen.set(run.name, n);
    if (n > 1) run.name = `${run.name}#${n}`;
    runs.push(run);
  }
  return runs;
}
