/**
 * A run's facts in words (target, workload, load, sampling, SLO) and its headline numbers,
 * shared by the HTML page and the report's Markdown; numbers by the reports' one format
 * (../format.ts).
 *
 * @module
 */

import {
  errorRate,
  HEADLINE_IDS,
  latencyLabel,
  metric,
  outputLimitText,
  traceSendsText,
} from '../../metrics/index.js';
import type { RunMeta, RunSummary } from '../../types.js';
import { fmtShortMs as fmtMs, fmtShort as fmtNum, fmtPct } from '../format.js';
import { serverFacts } from '../server-facts.js';
import { sessionLoadShape } from '../turns-view.js';

/** Where the run was sent. */
export function describeTarget(meta: RunMeta): string {
  const t = meta.target;
  if (t.embedded) {
    const parts = ['embedded simulator'];
    if (t.simProfile) parts.push(t.simProfile);
    if (t.timeMode) parts.push(`${t.timeMode} time`);
    if (t.simSpeculativeConfig) parts.push(`speculative decoding ${t.simSpeculativeConfig}`);
    return `${parts.join(', ')} (${t.api})`;
  }
  return `${t.baseUrl} (${t.api})`;
}

/** The workload in one line: "synthetic, 512 ±25 % prompt tokens, max 128 output". */
export function describeWorkload(meta: RunMeta): string {
  const w = meta.workload;
  const parts: string[] = [];
  if (w.kind === 'dataset' && w.dataset) {
    parts.push(`dataset ${w.dataset.path} (${w.dataset.format}, ${w.dataset.entries} entries)`);
  } else if (w.kind === 'trace' && w.trace) {
    parts.push(`trace ${w.trace.path} (${w.trace.format}, ${w.trace.entries} requests)`);
  } else {
    const range = w.promptTokensRange ? ` ±${Math.round(w.promptTokensRange * 100)} %` : '';
    parts.push(`synthetic, ${w.promptTokens ?? '?'}${range} prompt tokens`);
  }
  if (w.systemPromptTokens) parts.push(`${w.systemPromptTokens}-token shared system prompt`);
  parts.push(outputLimitText(w));
  if (w.cancelRate) parts.push(`${fmtPct(w.cancelRate)} cancel after ${w.cancelAfterMs ?? '?'} ms`);
  parts.push(`tokenizer ${w.tokenizer}`);
  return parts.join(', ');
}

/** The load in one line: "closed loop, concurrency 8, 500 requests, 10 warmup". */
export function describeLoad(meta: RunMeta): string {
  const l = meta.load;
  const parts: string[] = [];
  const sessions = sessionLoadShape(l);
  const trace = traceSendsText(meta);
  if (l.stages) {
    parts.push(
      `stages of ${l.stagesOf ?? 'concurrency'} ${l.stages.map((st) => `${st.durationMs / 1000}s:${st.target}`).join(',')}`,
    );
  } else if (sessions !== undefined) parts.push(sessions);
  else if (trace !== undefined) parts.push(trace);
  else if (l.mode === 'closed') parts.push(`closed loop, concurrency ${l.concurrency ?? '?'}`);
  else {
    // An open loop always has a rate: null is how summary.json writes Infinity (--rate inf).
    parts.push(
      l.rate == null || l.rate === Number.POSITIVE_INFINITY
        ? 'open loop, all at once'
        : `open loop, ${l.rate} req/s`,
    );
    if (l.burstiness !== undefined && l.burstiness !== 1) parts.push(`burstiness ${l.burstiness}`);
    if (l.maxConcurrency) parts.push(`max ${l.maxConcurrency} in flight`);
  }
  if (l.requests !== undefined) parts.push(`${l.requests} requests`);
  if (l.durationMs !== undefined) parts.push(`${fmtNum(l.durationMs / 1000)} s`);
  if (l.warmup) parts.push(`${l.warmup} warmup`);
  return parts.join(', ');
}

/** Sampling parameters: "temperature 0, top_p 1, max_tokens 128, seed 1, ignore_eos". */
export function describeSampling(meta: RunMeta): string {
  const s = meta.sampling;
  const parts = [`temperature ${s.temperature}`];
  if (s.topP !== undefined) parts.push(`top_p ${s.topP}`);
  // A trace or dataset gave each request its own (the workload line says so).
  if (!meta.workload.maxTokensFrom) parts.push(`max_tokens ${s.maxTokens}`);
  if (s.seed !== undefined) parts.push(`seed ${s.seed}`);
  if (s.ignoreEos) parts.push('ignore_eos');
  return parts.join(', ');
}

/** The SLOs that are set: "TTFT ≤ 500 ms, TPOT ≤ 50 ms", or "none". */
export function describeSlo(summary: RunSummary): string {
  const slo = summary.goodput.slo;
  const parts: string[] = [];
  if (slo.ttftMs !== undefined) parts.push(`${latencyLabel('ttft')} ≤ ${fmtMs(slo.ttftMs)}`);
  if (slo.tpotMs !== undefined) parts.push(`${latencyLabel('tpot')} ≤ ${fmtMs(slo.tpotMs)}`);
  if (slo.e2elMs !== undefined) parts.push(`${latencyLabel('e2el')} ≤ ${fmtMs(slo.e2elMs)}`);
  if (slo.userTps !== undefined) parts.push(`user output ≥ ${fmtNum(slo.userTps)} tok/s`);
  return parts.length > 0 ? parts.join(', ') : 'none set';
}

/** The header facts of a run, in display order. */
export function runFacts(summary: RunSummary): Array<[string, string]> {
  const m = summary.meta;
  const labels = Object.entries(m.labels ?? {});
  return [
    ['Target', describeTarget(m)],
    ['Model', m.model],
    ['Workload', describeWorkload(m)],
    ['Load', describeLoad(m)],
    ['Sampling', describeSampling(m)],
    ['SLO', describeSlo(summary)],
    ['Seed', String(m.seed)],
    ['Tool', `${m.tool.name} ${m.tool.version}`],
    ...serverFacts(m).map(([k, v]): [string, string] => [k.charAt(0).toUpperCase() + k.slice(1), v]),
    ['Date', m.startedAt],
    ['Run id', m.runId],
    ...(labels.length > 0
      ? [['Labels', labels.map(([k, v]) => `${k}=${v}`).join(', ')] as [string, string]]
      : []),
  ];
}

/** A headline cell: label, value text, and the raw number (for deltas). */
export interface Headline {
  key: string;
  label: string;
  value: number | undefined;
  text: string;
  /** Which direction is better, for colouring deltas. */
  better: 'lower' | 'higher';
}

/** A catalogue value as text in its unit. */
function fmtMetric(unit: string, v: number | undefined): string {
  if (unit === 'ms') return fmtMs(v);
  if (unit === 'ratio') return fmtPct(v);
  return fmtNum(v);
}

/**
 * The run's headline numbers (the catalogue's HEADLINE_IDS): TTFT p50/p99, TPOT p50/p99,
 * throughput, goodput, attainment, and errors (the failed count with the error rate).
 */
export function headlines(s: RunSummary): Headline[] {
  return HEADLINE_IDS.map((id): Headline => {
    const def = metric(id);
    if (id === 'error_rate') {
      const errors = s.counts.failed;
      const rate = errorRate(s);
      return {
        key: id,
        label: 'Errors',
        value: errors,
        text: `${errors}${rate !== undefined && errors > 0 ? ` (${fmtPct(rate)})` : ''}`,
        better: def.better,
      };
    }
    const value = def.read(s);
    return { key: id, label: def.label, value, text: fmtMetric(def.unit, value), better: def.better };
  });
}
