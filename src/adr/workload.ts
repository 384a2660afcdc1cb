/**
 * An ADR's workload block as the inputs of a rerun: as a RunMeta (to compare with a result)
 * and applied to a BenchmarkConfig (to measure the same load again).
 *
 * @module
 */

import type { BenchmarkConfig } from '../runner/index.js';

type EngineOptions = NonNullable<NonNullable<BenchmarkConfig['sim']>['engine']>;

import type { RunMeta } from '../types.js';
import type { AdrWorkload } from './schema.js';

/** The ADR's workload as a RunMeta, other fields (target, ids) taken from `rest`. */
export function adrWorkloadAsMeta(w: AdrWorkload, rest: RunMeta): RunMeta {
  return {
    ...rest,
    model: w.model,
    seed: w.seed,
    sampling: w.sampling,
    workload: w.workload,
    load: w.load,
    slo: w.slo,
  };
}

/**
 * A copy of `config` that measures the ADR's load: sampling, prompts, load, SLO, seed, API,
 * and the model unless --model was given. The target (URL, key) stays the caller's; without a
 * URL the embedded engine starts with the ADR's simulator profile.
 */
export function applyAdrWorkload(config: BenchmarkConfig, w: AdrWorkload): BenchmarkConfig {
  const spec = w.workload;
  const workload: BenchmarkConfig['workload'] = {
    promptTokens: spec.promptTokens ?? config.workload.promptTokens,
  };
  // The tokenizer is the run's (--tokenizer): the ADR records which one counted, not the file.
  if (config.workload.tokenizer !== undefined) workload.tokenizer = config.workload.tokenizer;
  if (config.workload.chatTemplatePath !== undefined)
    workload.chatTemplatePath = config.workload.chatTemplatePath;
  if (spec.promptTokensRange !== undefined) workload.promptTokensRange = spec.promptTokensRange;
  if (spec.systemPromptTokens !== undefined) workload.systemPromptTokens = spec.systemPromptTokens;
  if (spec.dataset) {
    workload.datasetPath = spec.dataset.path;
    // Each entry's own output length when the recorded run took it (ADRs before it was recorded: max_tokens).
    workload.outputFromDataset = spec.maxTokensFrom === 'dataset';
  }
  if (spec.trace) {
    // The same file (checked by its sha256 before anything is sent), read and replayed the same way.
    const t = spec.trace;
    workload.trace = {
      path: t.path,
      format: t.format,
      blockSize: t.blockSize,
      timeScale: t.timeScale,
      sha256: t.sha256,
    };
    if (t.columns) workload.trace.columns = t.columns;
    if (t.timeUnit) workload.trace.timeUnit = t.timeUnit;
  }
  // Multi-turn sessions: the same conversations (turns, tokens per turn, think time); the
  // load's session part (how sessions start) comes with the load below.
  if (spec.sessions) workload.sessions = { ...spec.sessions };
  if (spec.cancelAfterMs !== undefined) {
    workload.cancelAfterMs = spec.cancelAfterMs;
    workload.cancelRate = spec.cancelRate ?? 1;
  }
  // Traffic classes: the same classes, so the ADR's per-class thresholds find their figures.
  if (spec.classes) workload.classes = spec.classes.map((c) => ({ ...c }));
  const next: BenchmarkConfig = {
    ...config,
    api: spec.api,
    sampling: { ...w.sampling },
    workload,
    load: { ...w.load },
    slo: { ...w.slo },
    seed: w.seed,
  };
  if (config.model === undefined) next.model = w.model;
  if (config.url === undefined && w.target?.simProfile !== undefined) {
    next.sim = { ...config.sim, profile: String(w.target.simProfile) };
  }
  // An experiment's ADR on the embedded engine records the winner's engine flags (adr/experiment.ts).
  const simEngine = w.target?.simEngine;
  if (config.url === undefined && typeof simEngine === 'object' && simEngine !== null) {
    next.sim = { ...next.sim, engine: { ...(simEngine as EngineOptions), ...next.sim?.engine } };
  }
  if (config.url === undefined && typeof w.target?.simSpeculativeConfig === 'string') {
    next.sim = { ...next.sim, speculativeConfig: w.target.simSpeculativeConfig };
  }
  if (config.url === undefined) embeddedClassEngine(next, w);
  return next;
}

/**
 * The embedded engine of a rerun with classes, as the recorded run's: priority scheduling when
 * it had it, and the models the classes name served as LoRA adapters (as `--class` gives them)
 * in as many slots.
 */
function embeddedClassEngine(next: BenchmarkConfig, w: AdrWorkload): void {
  const engine: EngineOptions = { ...next.sim?.engine };
  if (w.target?.simSchedulingPolicy === 'priority') engine.schedulingPolicy ??= 'priority';
  if (typeof w.target?.simMaxLoras === 'number') engine.maxLoras ??= w.target.simMaxLoras;
  const models = [...new Set((w.workload.classes ?? []).flatMap((c) => c.model ?? []))];
  const given = engine.loraModules ?? [];
  if (models.some((m) => !given.includes(m))) engine.loraModules = [...new Set([...given, ...models])];
  if (Object.keys(engine).length > 0) next.sim = { ...next.sim, engine };
}
