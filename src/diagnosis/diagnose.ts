/**
 * diagnose: a run's observations (+ server samples, + summary) → ranked findings. Pure.
 * And renderFindings: the findings as terminal lines (a renderer: returns a string).
 *
 * @module
 */

import type { Finding, RequestRecord, ServerSample } from '../types.js';
import { ObservationCollector, type RequestObservation, timeSlices } from './observations.js';
import {
  clientBoundFinding,
  decodeFinding,
  errorsFinding,
  kvPressureFinding,
  prefillFinding,
  queueingFinding,
  type SummaryView,
  wastedWorkFinding,
} from './rules.js';
import { schedulerBoundFinding } from './rules-gpu.js';

export interface DiagnosisInput {
  /** Measured requests (warmup excluded): observations, or records to observe. */
  observations?: readonly RequestObservation[];
  records?: readonly RequestRecord[];
  samples?: readonly ServerSample[];
  summary?: SummaryView & { meta?: { load?: { mode?: 'open' | 'closed' } } };
  /** Number of time slices (default: one per scrape, between 6 and 30). */
  slices?: number;
}

/**
 * Ranked findings (highest score first) for one run.
 *
 * @example
 * ```ts
 * const findings = diagnose({ records, samples, summary });
 * process.stderr.write(renderFindings(findings));
 * ```
 */
export function diagnose(input: DiagnosisInput): Finding[] {
  let observations = input.observations;
  if (!observations) {
    const c = new ObservationCollector();
    for (const r of input.records ?? []) c.add(r);
    observations = c.observations;
  }
  if (observations.length === 0) return [];
  const samples = input.samples ?? [];
  const count = input.slices ?? Math.min(30, Math.max(6, samples.length));
  const slices = timeSlices(observations, samples, count);
  const openLoop =
    input.summary?.meta?.load?.mode === undefined ? undefined : input.summary.meta.load.mode === 'open';
  const findings = [
    queueingFinding(observations, samples),
    kvPressureFinding(slices, input.summary),
    prefillFinding(observations),
    decodeFinding(slices),
    clientBoundFinding(observations, input.summary, openLoop),
    wastedWorkFinding(observations, input.summary),
    schedulerBoundFinding(samples, input.summary),
    errorsFinding(observations),
  ].filter((f): f is Finding => f !== undefined);
  return findings.sort((a, b) => b.score - a.score);
}

/** Findings as terminal lines: rank, title, evidence, knob. Empty string when none. */
export function renderFindings(findings: readonly Finding[]): string {
  if (findings.length === 0) return '';
  const lines = ['Diagnosis (most likely first):'];
  findings.forEach((f, i) => {
    lines.push(`  ${i + 1}. ${f.title} [${f.kind}, score ${f.score.toFixed(2)}]`);
    lines.push(`     evidence: ${f.evidence}`);
    lines.push(`     knob:     ${f.knob}`);
  });
  return `${lines.join('\n')}\n`;
}
