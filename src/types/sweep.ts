/**
 * sweep.json: what `goodput sweep` keeps of each point and what it concludes (knee, capacity
 * at SLO). Each point's figures are the catalogue metrics named in SWEEP_POINT_FIGURES.
 *
 * @module
 */

import type { SCHEMA_VERSION } from './request.js';
import type { Slo } from './run.js';
import type { Finding, RunCaveat } from './summary.js';

export type SweepMode = 'concurrency' | 'rate';

/** What a sweep keeps of each point's summary. */
export interface SweepPointSummary {
  /** step: a planned load; synchronous / throughput: guidellm's anchors of a rate sweep; bisect: the capacity search. */
  phase: 'step' | 'synchronous' | 'throughput' | 'bisect';
  /** Closed loop: concurrency; open loop: requests per second (sessions: sessions at once, new sessions per second; see SweepResult.unit). */
  mode: SweepMode;
  load: number;
  /** The point's result directory. */
  dir: string;
  runId: string;
  completed: number;
  failed: number;
  errorRate: number;
  requestThroughput: number;
  outputThroughput: number;
  meanTtftMs: number;
  p99TtftMs: number;
  meanTpotMs: number;
  /** Absent in sweeps written before it was kept. */
  p99TpotMs?: number;
  /** Median per-user output tokens/s (absent in older sweeps, or when no request decoded). */
  p50UserTps?: number;
  /** Multi-turn sessions: sessions started per second (absent for single-turn loads). */
  sessionThroughput?: number;
  meanE2elMs: number;
  p99E2elMs: number;
  attainment: number;
  requestGoodput: number;
  /** attainment ≥ the sweep's minimum attainment. */
  passes: boolean;
  /** The point's run caveats (client-bound, connections short…); absent when it has none (and in older sweeps). */
  caveats?: RunCaveat[];
}

export interface Knee {
  load: number;
  mode: SweepMode;
  requestThroughput: number;
  meanE2elMs: number;
  method: 'kneedle: max of normalised throughput minus normalised mean E2EL';
  /** Caveat ids of the point it was read from (absent: none). */
  caveats?: string[];
}

export interface Capacity {
  mode: SweepMode;
  /** Highest load meeting the SLO attainment target. */
  load: number;
  attainment: number;
  /** Lowest load seen to miss it (undefined: none missed, capacity is at least `load`). */
  firstFailingLoad?: number;
  /** True when the search narrowed the gap to its resolution. */
  resolved: boolean;
  /** Caveat ids of the points it was read from, the last passing and the first failing one (absent: none). */
  caveats?: string[];
}

/** sweep.json */
export interface SweepResult {
  schemaVersion: typeof SCHEMA_VERSION;
  kind: 'goodput.sweep';
  mode: SweepMode;
  /**
   * What the loads count: absent, requests; 'sessions', multi-turn sessions (a concurrency
   * sweep's loads are sessions at once, a rate sweep's new sessions per second).
   */
  unit?: 'sessions';
  /**
   * A trace replay: the trace, and for a rate sweep its mean request rate at time scale 1
   * (each rate point scales the trace's times by meanRate ÷ its rate; concurrency points replay it closed loop).
   */
  trace?: { path: string; meanRate?: number };
  startedAt: string;
  slo: Slo;
  minAttainment: number;
  /** The points of the sweep's own mode (steps and bisection), in the order run. */
  points: SweepPointSummary[];
  /** Rate sweep: the closed-loop anchor runs (synchronous, throughput) the rates were spaced between. */
  anchors?: SweepPointSummary[];
  knee?: Knee;
  capacity?: Capacity;
  /** Why the sweep stopped rising before its last planned load. */
  stoppedEarly?: string;
  /** Findings of the first point that missed the SLO (else the highest load). */
  diagnosis?: Finding[];
  /** The point whose findings are in `diagnosis`. */
  diagnosisOf?: string;
  interrupted: boolean;
}

/**
 * The figures of a sweep point and the catalogue metric each one is (read through the
 * catalogue when the point is taken, so a sweep judges exactly what gate and compare show).
 */
export const SWEEP_POINT_FIGURES = [
  ['errorRate', 'error_rate'],
  ['requestThroughput', 'request_throughput'],
  ['outputThroughput', 'output_throughput'],
  ['meanTtftMs', 'ttft_mean'],
  ['p99TtftMs', 'ttft_p99'],
  ['meanTpotMs', 'tpot_mean'],
  ['p99TpotMs', 'tpot_p99'],
  ['meanE2elMs', 'e2el_mean'],
  ['p99E2elMs', 'e2el_p99'],
  ['attainment', 'attainment'],
  ['requestGoodput', 'request_goodput'],
  ['p50UserTps', 'user_tps_p50'],
  ['sessionThroughput', 'session_throughput'],
] as const satisfies ReadonlyArray<readonly [keyof SweepPointSummary, string]>;
