/**
 * runSweep: a series of normal runs at rising load, then the capacity search. The run of
 * each point is injected (`runPoint`), so the sweep logic is tested without the runner and
 * the command wires it to runBenchmark.
 *
 * - concurrency mode: the planned concurrencies in order;
 * - rate mode (as guidellm does): a synchronous run (concurrency 1) gives the lowest useful
 *   rate, a throughput run (closed loop at `throughputConcurrency`) the highest the server
 *   sustains; then `steps` open-loop rates evenly spaced between them (or up to `rateMax`);
 *   with sessions the anchors run that many sessions at once and the rates are new sessions
 *   per second, spaced between the anchors' measured session throughputs (sessions started/s);
 * - after every step, stop early when errors or latency explode (analysis.explosion);
 * - then bisect between the last passing and the first failing load (at most `bisectSteps`
 *   runs) to find the capacity at SLO.
 *
 * @module
 */

import {
  type RunSummary,
  SCHEMA_VERSION,
  type Slo,
  type SweepMode,
  type SweepPointSummary,
  type SweepResult,
} from '../types.js';
import {
  bisectNext,
  capacityAtSlo,
  evenlySpacedRates,
  explosion,
  findKnee,
  pointFromSummary,
  round3,
  sloBracket,
} from './analysis.js';

export interface SweepPlan {
  mode: SweepMode;
  /** Concurrency mode: the loads to run, ascending. */
  concurrencies?: number[];
  /** Rate mode: upper rate; undefined → the measured throughput. */
  rateMax?: number;
  /** Rate mode: number of evenly spaced rates (default 5). */
  steps?: number;
  /** Rate mode: concurrency of the throughput anchor run (default 64). */
  throughputConcurrency?: number;
  /**
   * Multi-turn sessions: loads are sessions at once (concurrency) or new sessions per second
   * (rate); a rate sweep spaces its rates between the anchors' session throughputs.
   */
  sessions?: boolean;
  /** SLO attainment a load must reach to count as within capacity (0..1). */
  minAttainment: number;
  /** Most bisection runs (default 3; 0 = none). */
  bisectSteps?: number;
  /** Stop rising when more than this share of a point's requests failed (default 0.2). */
  maxErrorRate?: number;
  /** Stop rising when mean E2EL exceeds this multiple of the first point's (default 10). */
  latencyFactor?: number;
}

/** One point to run: closed loop at `concurrency` or open loop at `rate`. */
export interface PointRequest {
  phase: SweepPointSummary['phase'];
  concurrency?: number;
  rate?: number;
  /** 1-based order of the run in the sweep, for directory names. */
  ordinal: number;
}

export type RunPoint = (req: PointRequest) => Promise<{ summary: RunSummary; dir: string }>;

export interface SweepIo {
  signal?: AbortSignal;
  /** Called after each point (progress). */
  onPoint?: (point: SweepPointSummary) => void;
}

const DEFAULT_CONCURRENCIES = [1, 2, 4, 8];

/** The concurrencies a concurrency sweep rises through, ascending, each once. */
function planConcurrencies(plan: SweepPlan): number[] {
  return [...new Set(plan.concurrencies ?? DEFAULT_CONCURRENCIES)].sort((a, b) => a - b);
}

/**
 * The most points the plan can run (for "point k of up to N"): its rising loads, a rate
 * sweep's anchor runs, and the bisection budget. Fewer run when the sweep stops early.
 */
export function maxPoints(plan: SweepPlan): number {
  const bisect = plan.bisectSteps ?? 3;
  if (plan.mode === 'concurrency') return planConcurrencies(plan).length + bisect;
  const anchors = plan.rateMax === undefined ? 2 : 1;
  return anchors + (plan.steps ?? 5) + bisect;
}

/** Runs the sweep; see the module comment. */
export async function runSweep(plan: SweepPlan, runPoint: RunPoint, io: SweepIo = {}): Promise<SweepResult> {
  const points: SweepPointSummary[] = [];
  const summaries = new Map<SweepPointSummary, RunSummary>();
  let ordinal = 0;
  let slo: Slo = {};
  const aborted = () => io.signal?.aborted === true;
  // What a rate sweep's rates are in: requests per second, or sessions started per second.
  const rateOf = (p: SweepPointSummary) => (plan.sessions ? (p.sessionThroughput ?? 0) : p.requestThroughput);

  const run = async (
    phase: SweepPointSummary['phase'],
    mode: SweepMode,
    load: number,
  ): Promise<SweepPointSummary> => {
    const req: PointRequest = { phase, ordinal: ++ordinal };
    if (mode === 'concurrency') req.concurrency = load;
    else req.rate = load;
    const { summary, dir } = await runPoint(req);
    slo = summary.meta.slo;
    const point = pointFromSummary(summary, dir, phase, mode, load, plan.minAttainment);
    points.push(point);
    summaries.set(point, summary);
    io.onPoint?.(point);
    return point;
  };

  const limits = { maxErrorRate: plan.maxErrorRate ?? 0.2, latencyFactor: plan.latencyFactor ?? 10 };
  let stoppedEarly: string | undefined;
  const startedAt = new Date().toISOString();
  let syncPoint: SweepPointSummary | undefined;

  // Rising load.
  let loads: number[];
  if (plan.mode === 'concurrency') {
    loads = planConcurrencies(plan);
  } else {
    syncPoint = await run('synchronous', 'concurrency', 1);
    const low = rateOf(syncPoint);
    let high = plan.rateMax;
    if (high === undefined && !aborted()) {
      const tp = await run('throughput', 'concurrency', plan.throughputConcurrency ?? 64);
      high = rateOf(tp);
    }
    loads = evenlySpacedRates(low, high ?? low, plan.steps ?? 5);
  }
  const mode = plan.mode;
  let first: SweepPointSummary | undefined = mode === 'rate' ? syncPoint : undefined;
  for (const load of loads) {
    if (aborted()) break;
    const p = await run('step', mode, load);
    first ??= p;
    stoppedEarly = explosion(p, first, limits, plan.sessions === true);
    if (stoppedEarly) break;
  }

  // Capacity: bisect between the last passing and the first failing load.
  let budget = plan.bisectSteps ?? 3;
  const stepPoints = () => points.filter((p) => p.mode === mode);
  if (mode === 'rate' && syncPoint?.passes && !sloBracket(stepPoints()).pass && budget > 0 && !aborted()) {
    // Every rate missed: try the synchronous run's rate as an open loop.
    await run('bisect', 'rate', round3(rateOf(syncPoint)));
    budget--;
  }
  while (budget > 0 && !aborted()) {
    const { pass, fail } = sloBracket(stepPoints());
    if (!pass || !fail) break;
    const next = bisectNext(mode, pass.load, fail.load);
    if (next === undefined) break;
    await run('bisect', mode, next);
    budget--;
  }

  const result: SweepResult = {
    schemaVersion: SCHEMA_VERSION,
    kind: 'goodput.sweep',
    mode,
    ...(plan.sessions ? { unit: 'sessions' as const } : {}),
    startedAt,
    slo,
    minAttainment: plan.minAttainment,
    points: stepPoints(),
    interrupted: aborted(),
  };
  const anchors = points.filter((p) => p.mode !== mode);
  if (anchors.length > 0) result.anchors = anchors;
  const knee = findKnee(stepPoints());
  if (knee) result.knee = knee;
  const capacity = capacityAtSlo(stepPoints(), mode);
  if (capacity) result.capacity = capacity;
  if (stoppedEarly) result.stoppedEarly = stoppedEarly;
  const sorted = [...stepPoints()].sort((a, b) => a.load - b.load);
  const focus = sorted.find((p) => !p.passes) ?? sorted.at(-1);
  const findings = focus ? summaries.get(focus)?.diagnosis : undefined;
  if (focus && findings) {
    result.diagnosis = findings;
    result.diagnosisOf = focus.dir;
  }
  return result;
}
