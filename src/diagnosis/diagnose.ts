/**
 * diagnose: a run's observations (+ server samples, + summary) → ranked findings. Pure.
 * And renderFindings: the findings as terminal lines (a renderer: returns a string).
 *
 * @module
 */

import type { EngineId } from '../engines/index.js';
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
import { serverConnectionsFinding } from './rules-connections.js';
import { schedulerBoundFinding } from './rules-gpu.js';
import { replicaImbalanceFinding } from './rules-replicas.js';

export interface DiagnosisInput {
  /** Measured requests (warmup excluded): observations, or records to observe. */
  observations?: readonly RequestObservation[];
  records?: readonly RequestRecord[];
  samples?: readonly ServerSample[];
  summary?: SummaryView & { meta?: { load?: { mode?: 'open' | 'closed' }; target?: { embedded?: boolean } } };
  /** Number of time slices (default: one per scrape, between 6 and 30). */
  slices?: number;
  /** The engine that served the run, when known otherwise (default: detected, see `runEngine`). */
  engine?: EngineId;
}

/**
 * The engine that served the run: as its metrics named it (the summary's server section, else
 * the samples), else the embedded engine when the run used it, else llama.cpp when its
 * responses carried llama.cpp's timings; `unknown` otherwise.
 */
export function runEngine(input: Pick<DiagnosisInput, 'samples' | 'summary' | 'engine'>): EngineId {
  if (input.engine !== undefined && input.engine !== 'unknown') return input.engine;
  const scraped = input.summary?.server?.engine ?? input.samples?.find((s) => s.engine !== 'unknown')?.engine;
  if (scraped !== undefined && scraped !== 'unknown') return scraped;
  if (input.summary?.meta?.target?.embedded) return 'goodput-sim';
  // Only llama.cpp's server sends per-response timings (prompt_n, cache_n).
  return input.summary?.serverTimings ? 'llamacpp' : 'unknown';
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
  const engine = runEngine(input);
  const findings = [
    queueingFinding(observations, samples, engine),
    kvPressureFinding(slices, input.summary, engine),
    prefillFinding(observations, engine),
    decodeFinding(slices, engine),
    // Sends late because the server was slow to take connections are not the client's doing.
    input.summary?.load?.connections?.serverLimited && !input.summary.load.clientBound
      ? undefined
      : clientBoundFinding(observations, input.summary, openLoop),
    serverConnectionsFinding(input.summary),
    wastedWorkFinding(observations, input.summary),
    schedulerBoundFinding(samples, input.summary, engine),
    replicaImbalanceFinding(input.summary),
    errorsFinding(observations),
  ].filter((f): f is Finding => f !== undefined);
  return findings.sort((a, b) => b.score - a.score);
}

/**
 * Findings as terminal lines: rank, title, evidence, knob; then what could not be judged
 * (`unmeasuredLines`). Empty string when there is neither.
 */
export function renderFindings(findings: readonly Finding[], unmeasured: readonly string[] = []): string {
  if (findings.length === 0 && unmeasured.length === 0) return '';
  const lines = [findings.length > 0 ? 'Diagnosis (most likely first):' : 'Diagnosis: no finding.'];
  findings.forEach((f, i) => {
    lines.push(`  ${i + 1}. ${f.title} [${f.kind}, score ${f.score.toFixed(2)}]`);
    lines.push(`     evidence: ${f.evidence}`);
    lines.push(`     knob:     ${f.knob}`);
  });
  for (const line of unmeasured) lines.push(`  ${line}`);
  return `${lines.join('\n')}\n`;
}
