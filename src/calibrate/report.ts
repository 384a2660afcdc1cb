/**
 * What a calibration says: the JSON report (schemaVersion 1, kind goodput.calibration), the
 * profile file it writes (the profile `sim --profile-file` reads, with the report's gist under
 * `calibration`), and the terminal text (a string; no logic beyond formatting).
 *
 * @module
 */

import { kvBytesPerToken, type ProfileFile, profileToJson, type SimProfile } from '../sim/index.js';
import type { Calibration, RunCheck, StepCoefficients } from './fit.js';
import type { CalibrationRun } from './runs.js';

/** The coefficients in the units an engineer reads: per token of prefill, per step of decode. */
export interface ReadableCoefficients {
  /** Linear layers' time per prefill token, µs (2·params ÷ FLOP/s). */
  prefillUsPerToken: number;
  /** Time to read the weights once (every decode step), ms. */
  weightReadMs: number;
  /** Time per KV-cache token read in decode, ns. */
  kvReadNsPerToken: number;
  stepOverheadMs: number;
  perSeqOverheadUs: number;
  /** Effective TFLOP/s and TB/s of the replica. */
  effectiveTflops: number;
  effectiveTBps: number;
}

export function readableCoefficients(profile: SimProfile, c: StepCoefficients): ReadableCoefficients {
  const m = profile.model;
  return {
    prefillUsPerToken: ((2 * m.params) / c.flopsPerS) * 1e6,
    weightReadMs: ((m.params * m.dtypeBytes) / c.bytesPerS) * 1e3,
    kvReadNsPerToken: (kvBytesPerToken(m) / c.bytesPerS) * 1e9,
    stepOverheadMs: c.stepOverheadMs,
    perSeqOverheadUs: c.perSeqOverheadUs,
    effectiveTflops: c.flopsPerS / 1e12,
    effectiveTBps: c.bytesPerS / 1e12,
  };
}

export interface CalibrationReport {
  schemaVersion: 1;
  kind: 'goodput.calibration';
  /** The profile the fit started from, and the one it produced. */
  start: { id: string; coefficients: ReadableCoefficients };
  profileId: string;
  coefficients: ReadableCoefficients;
  holdout: Calibration['holdout'];
  runs: Array<{
    name: string;
    dir: string;
    concurrency?: number;
    requests: number;
    meanPromptTokens: number;
  }>;
  /** Every run replayed on the returned profile (training runs for a split). */
  fitted: RunCheck[];
  heldOut: RunCheck[];
  heldOutError: Calibration['heldOutError'];
  solver: Calibration['fit']['solver'];
}

export function calibrationReport(
  cal: Calibration,
  runs: readonly CalibrationRun[],
  start: { profile: SimProfile; coefficients: StepCoefficients },
): CalibrationReport {
  const p = cal.fit.profile;
  return {
    schemaVersion: 1,
    kind: 'goodput.calibration',
    start: { id: start.profile.id, coefficients: readableCoefficients(start.profile, start.coefficients) },
    profileId: p.id,
    coefficients: readableCoefficients(p, cal.fit.coefficients),
    holdout: cal.holdout,
    runs: runs.map((r) => ({
      name: r.name,
      dir: r.dir,
      ...(r.concurrency !== undefined ? { concurrency: r.concurrency } : {}),
      requests: r.requests.length,
      meanPromptTokens: Math.round(r.requests.reduce((a, q) => a + q.promptTokens, 0) / r.requests.length),
    })),
    fitted: cal.fit.training,
    heldOut: cal.heldOut,
    heldOutError: cal.heldOutError,
    solver: cal.fit.solver,
  };
}

/** The profile file: the fitted profile, with the calibration's gist for whoever reads it later. */
export function calibratedProfileFile(cal: Calibration, report: CalibrationReport): ProfileFile {
  return profileToJson(cal.fit.profile, {
    calibration: {
      schemaVersion: 1,
      from: report.start.id,
      runs: report.runs.map((r) => r.name),
      holdout: report.holdout.kind,
      heldOutError: report.heldOutError,
      coefficients: report.coefficients,
    },
  });
}

const pct = (x: number): string =>
  Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%` : '—';
const ms = (x: number): string => (Number.isFinite(x) ? x.toFixed(x < 10 ? 2 : 1) : '—');
const pad = (s: string, n: number): string => s.padEnd(n);
const lpad = (s: string, n: number): string => s.padStart(n);

function checkRows(title: string, checks: readonly RunCheck[]): string[] {
  if (checks.length === 0) return [];
  const w = Math.max(8, ...checks.map((c) => c.run.length)) + 2;
  const out = [
    title,
    `  ${pad('run', w)}${lpad('TTFT mean ms', 14)}${lpad('sim', 10)}${lpad('err', 8)}${lpad('p50 err', 9)}${lpad('TPOT mean ms', 14)}${lpad('sim', 10)}${lpad('err', 8)}${lpad('p50 err', 9)}`,
  ];
  for (const c of checks)
    out.push(
      `  ${pad(c.run, w)}${lpad(ms(c.measured.meanTtftMs), 14)}${lpad(ms(c.simulated.meanTtftMs), 10)}${lpad(pct(c.error.meanTtftMs), 8)}${lpad(pct(c.error.p50TtftMs), 9)}` +
        `${lpad(ms(c.measured.meanTpotMs), 14)}${lpad(ms(c.simulated.meanTpotMs), 10)}${lpad(pct(c.error.meanTpotMs), 8)}${lpad(pct(c.error.p50TpotMs), 9)}`,
    );
  return out;
}

/** The terminal text of a calibration. */
export function renderCalibration(r: CalibrationReport, profilePath?: string): string {
  const c = r.coefficients;
  const s = r.start.coefficients;
  const e = r.heldOutError;
  const holdout =
    r.holdout.kind === 'leave-one-out'
      ? 'leave-one-out (each run predicted by a fit of the others)'
      : `split (held out: ${r.holdout.heldOut.join(', ')})`;
  const lines = [
    `fitted ${r.profileId} to ${r.runs.length} runs (start: ${r.start.id}; ${r.solver.iterations} iterations, ${r.solver.converged ? 'converged' : 'iteration budget reached'})`,
    '',
    'step-time coefficients              start        fitted',
    `  prefill per token (µs)       ${lpad(s.prefillUsPerToken.toFixed(2), 11)}   ${lpad(c.prefillUsPerToken.toFixed(2), 11)}   (${c.effectiveTflops.toFixed(0)} TFLOP/s effective)`,
    `  weight read per step (ms)    ${lpad(s.weightReadMs.toFixed(2), 11)}   ${lpad(c.weightReadMs.toFixed(2), 11)}   (${c.effectiveTBps.toFixed(2)} TB/s effective)`,
    `  KV read per token (ns)       ${lpad(s.kvReadNsPerToken.toFixed(2), 11)}   ${lpad(c.kvReadNsPerToken.toFixed(2), 11)}`,
    `  step overhead (ms)           ${lpad(s.stepOverheadMs.toFixed(3), 11)}   ${lpad(c.stepOverheadMs.toFixed(3), 11)}`,
    `  per-sequence overhead (µs)   ${lpad(s.perSeqOverheadUs.toFixed(2), 11)}   ${lpad(c.perSeqOverheadUs.toFixed(2), 11)}`,
    '',
    ...checkRows(`held-out runs, ${holdout}:`, r.heldOut),
    '',
    `held-out error |sim − measured| ÷ measured: TTFT mean ${pct(e.meanTtftMs.meanAbs)} (worst ${pct(e.meanTtftMs.maxAbs)}), p50 ${pct(e.p50TtftMs.meanAbs)} (worst ${pct(e.p50TtftMs.maxAbs)}); ` +
      `TPOT mean ${pct(e.meanTpotMs.meanAbs)} (worst ${pct(e.meanTpotMs.maxAbs)}), p50 ${pct(e.p50TpotMs.meanAbs)} (worst ${pct(e.p50TpotMs.maxAbs)})`,
    '',
    ...checkRows('fitted runs (replayed on the profile written):', r.fitted),
  ];
  if (profilePath)
    lines.push('', `profile written to ${profilePath} (use: goodput sim --profile-file ${profilePath})`);
  return `${lines.join('\n')}\n`;
}
