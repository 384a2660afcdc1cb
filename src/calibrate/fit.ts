/**
 * The fit: the simulated engine's step-time coefficients (effective FLOP/s of prefill,
 * effective bytes/s of weight and KV reads, the fixed cost of a step and the cost per sequence
 * in it) chosen by least squares so that measured runs, replayed on the engine, show the TTFT
 * and TPOT they showed on the real server. Residuals are log ratios (simulated ÷ measured) of
 * each run's mean TTFT and mean TPOT; parameters are fitted in log space (all positive), with a
 * weak pull towards the starting profile so that directions the runs do not inform stay put.
 * Held-out runs (leave-one-out, or a named split) give the error to expect on runs not fitted.
 *
 * @module
 */

import type { EngineOptions, SimProfile } from '../sim/index.js';
import { type LeastSquaresResult, levenbergMarquardt } from './least-squares.js';
import { replayRun } from './replay.js';
import type { CalibrationRun, RunFigures } from './runs.js';

/** The fitted coefficients, as a profile carries them. */
export interface StepCoefficients {
  flopsPerS: number;
  bytesPerS: number;
  stepOverheadMs: number;
  perSeqOverheadUs: number;
}

/** Relative error (simulated − measured) ÷ measured of each figure. */
export type FigureErrors = RunFigures;

export interface RunCheck {
  run: string;
  measured: RunFigures;
  simulated: RunFigures;
  error: FigureErrors;
}

export interface FitResult {
  profile: SimProfile;
  coefficients: StepCoefficients;
  /** The training runs replayed on the fitted profile. */
  training: RunCheck[];
  solver: Pick<LeastSquaresResult, 'iterations' | 'evaluations' | 'converged' | 'cost'>;
}

export interface FitOptions {
  /** The measured server's engine flags (max-num-seqs, max-num-batched-tokens, …). */
  engine?: EngineOptions;
  /** Most solver iterations [30]. */
  maxIterations?: number;
}

/** Suffix of a fitted profile's id. */
export const CALIBRATED = '+calibrated';

/** Weight of the pull towards the starting profile, per log unit of each parameter. */
const PRIOR_WEIGHT = 1e-3;
/** Floor of the overheads in the fit (log space needs > 0): 1 µs. */
const MIN_OVERHEAD = 1e-3;

/** The coefficients a profile has now (its calibrated rates, or the datasheet's). */
export function coefficientsOf(p: SimProfile): StepCoefficients {
  return {
    flopsPerS: p.stepTime?.flopsPerS ?? p.gpu.peakFlops * p.gpu.computeEfficiency * p.tensorParallel,
    bytesPerS: p.stepTime?.bytesPerS ?? p.gpu.memBandwidth * p.gpu.bandwidthEfficiency * p.tensorParallel,
    stepOverheadMs: p.stepOverheadMs,
    perSeqOverheadUs: p.perSeqOverheadUs,
  };
}

/** `base` with these coefficients. */
export function withCoefficients(base: SimProfile, c: StepCoefficients, id = base.id): SimProfile {
  return {
    ...base,
    id,
    stepOverheadMs: c.stepOverheadMs,
    perSeqOverheadUs: c.perSeqOverheadUs,
    stepTime: { flopsPerS: c.flopsPerS, bytesPerS: c.bytesPerS },
  };
}

const toLog = (c: StepCoefficients): number[] => [
  Math.log(c.flopsPerS),
  Math.log(c.bytesPerS),
  Math.log(Math.max(c.stepOverheadMs, MIN_OVERHEAD)),
  Math.log(Math.max(c.perSeqOverheadUs, MIN_OVERHEAD)),
];
const fromLog = (x: readonly number[]): StepCoefficients => ({
  flopsPerS: Math.exp(x[0]!),
  bytesPerS: Math.exp(x[1]!),
  stepOverheadMs: Math.exp(x[2]!),
  perSeqOverheadUs: Math.exp(x[3]!),
});

const rel = (simulated: number, measured: number): number => (simulated - measured) / measured;

/** A run replayed on `profile`, beside what was measured. */
export function checkRun(run: CalibrationRun, profile: SimProfile, engine?: EngineOptions): RunCheck {
  const simulated = replayRun(run, profile, engine);
  const m = run.measured;
  return {
    run: run.name,
    measured: m,
    simulated,
    error: {
      meanTtftMs: rel(simulated.meanTtftMs, m.meanTtftMs),
      p50TtftMs: rel(simulated.p50TtftMs, m.p50TtftMs),
      meanTpotMs: rel(simulated.meanTpotMs, m.meanTpotMs),
      p50TpotMs: rel(simulated.p50TpotMs, m.p50TpotMs),
    },
  };
}

/** Fits the coefficients of `start` (its GPU, model and TP kept) to `runs`. */
export function fitProfile(
  runs: readonly CalibrationRun[],
  start: SimProfile,
  opts: FitOptions = {},
): FitResult {
  if (runs.length === 0) throw new Error('fitProfile: no runs');
  const x0 = toLog(coefficientsOf(start));
  const residuals = (x: readonly number[]): number[] => {
    const profile = withCoefficients(start, fromLog(x));
    const r: number[] = [];
    for (const run of runs) {
      const s = replayRun(run, profile, opts.engine);
      r.push(
        Math.log(s.meanTtftMs / run.measured.meanTtftMs),
        Math.log(s.meanTpotMs / run.measured.meanTpotMs),
      );
    }
    for (let j = 0; j < x.length; j++) r.push(PRIOR_WEIGHT * (x[j]! - x0[j]!));
    return r;
  };
  const solved = levenbergMarquardt(residuals, x0, {
    diffStep: 0.01,
    tolerance: 1e-5,
    maxIterations: opts.maxIterations ?? 30,
  });
  const coefficients = fromLog(solved.x);
  // Named apart from the datasheet profile, so a run on it never passes for one on the GPU's defaults.
  const id = start.id.endsWith(CALIBRATED) ? start.id : `${start.id}${CALIBRATED}`;
  const profile = withCoefficients(start, coefficients, id);
  return {
    profile,
    coefficients,
    training: runs.map((run) => checkRun(run, profile, opts.engine)),
    solver: {
      iterations: solved.iterations,
      evaluations: solved.evaluations,
      converged: solved.converged,
      cost: solved.cost,
    },
  };
}

/** How the held-out runs were chosen. */
export type HoldoutPlan = { kind: 'leave-one-out' } | { kind: 'split'; heldOut: readonly string[] };

export interface Calibration {
  /** The profile to use: fitted on every run (leave-one-out) or on the training runs (split). */
  fit: FitResult;
  holdout: HoldoutPlan;
  /** Each held-out run replayed on a profile fitted without it. */
  heldOut: RunCheck[];
  /** Mean and largest |relative error| over the held-out runs, per figure. */
  heldOutError: Record<keyof RunFigures, { meanAbs: number; maxAbs: number }>;
}

/** Mean and largest |error| per figure. */
export function summarizeErrors(checks: readonly RunCheck[]): Calibration['heldOutError'] {
  const keys = ['meanTtftMs', 'p50TtftMs', 'meanTpotMs', 'p50TpotMs'] as const;
  const out = {} as Calibration['heldOutError'];
  for (const k of keys) {
    const abs = checks.map((c) => Math.abs(c.error[k]));
    out[k] = {
      meanAbs: abs.length > 0 ? abs.reduce((a, b) => a + b, 0) / abs.length : Number.NaN,
      maxAbs: abs.length > 0 ? Math.max(...abs) : Number.NaN,
    };
  }
  return out;
}

/**
 * Calibrates `start` on `runs` and measures the error on runs the fit did not see: with
 * leave-one-out, each run is predicted by a fit of all the others, and the profile returned is
 * fitted on all; with a split, the named runs are held out and the profile is the fit of the rest.
 */
export function calibrate(
  runs: readonly CalibrationRun[],
  start: SimProfile,
  holdout: HoldoutPlan,
  opts: FitOptions = {},
): Calibration {
  if (holdout.kind === 'split') {
    const out = new Set(holdout.heldOut);
    const training = runs.filter((r) => !out.has(r.name) && !out.has(r.dir));
    const testing = runs.filter((r) => out.has(r.name) || out.has(r.dir));
    const fit = fitProfile(training, start, opts);
    const heldOut = testing.map((r) => checkRun(r, fit.profile, opts.engine));
    return { fit, holdout, heldOut, heldOutError: summarizeErrors(heldOut) };
  }
  const heldOut = runs.map((run, i) => {
    const others = runs.filter((_, j) => j !== i);
    return checkRun(run, fitProfile(others, start, opts).profile, opts.engine);
  });
  const fit = fitProfile(runs, start, opts);
  return { fit, holdout, heldOut, heldOutError: summarizeErrors(heldOut) };
}
