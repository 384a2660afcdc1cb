/**
 * A vLLM `bench serve --save-result` JSON (and the older `benchmark_serving.py` one) in the
 * catalogue's vocabulary: every figure under its catalogue vLLM key (vllm.ts), the old
 * `request_inthroughput` spelling of request throughput, and what the run was, as stated. Pure.
 *
 * @module
 */

import type { ImportedSamples } from '../types.js';
import { METRICS, metric } from './catalogue.js';
import { finite, type ImportedFigures, record, toMs } from './import-common.js';
import { vllmValue } from './vllm.js';

/** Keys describing the run, shown as the file states them. */
const CONTEXT_KEYS: ReadonlyArray<[key: string, label: string]> = [
  ['backend', 'backend'],
  ['endpoint_type', 'endpoint type'],
  ['label', 'label'],
  ['num_prompts', 'prompts'],
  ['request_rate', 'request rate'],
  ['burstiness', 'burstiness'],
  ['max_concurrency', 'max concurrency'],
  ['duration', 'duration (s)'],
  ['total_input_tokens', 'input tokens'],
  ['total_output_tokens', 'output tokens'],
];

/**
 * The per-request arrays of a detailed vLLM result (`ttfts` and `itls` in seconds,
 * `output_lens`, `errors`), of its successful requests (an empty error), in ms; undefined when
 * the file has none (vLLM writes them with --save-detailed, older versions always).
 */
export function vllmSamples(v: Record<string, unknown>): ImportedSamples | undefined {
  const { ttfts, itls, output_lens: lens, errors } = v;
  if (!Array.isArray(ttfts) || ttfts.length === 0) return undefined;
  const out: ImportedSamples = { ttftMs: [], itlMs: [], outputTokens: [] };
  for (let i = 0; i < ttfts.length; i++) {
    const error = Array.isArray(errors) ? errors[i] : '';
    if (error !== '' && error !== null && error !== undefined) continue;
    const ttft = finite(ttfts[i]);
    if (ttft === undefined || ttft <= 0) continue;
    out.ttftMs.push(toMs(ttft, 's') as number);
    const gaps = Array.isArray(itls) && Array.isArray(itls[i]) ? (itls[i] as unknown[]) : [];
    for (const g of gaps) {
      const x = finite(g);
      if (x !== undefined) out.itlMs.push(toMs(x, 's') as number);
    }
    const n = Array.isArray(lens) ? finite(lens[i]) : undefined;
    if (n !== undefined) out.outputTokens.push(n);
  }
  return out.ttftMs.length > 0 ? out : undefined;
}

export function readVllm(value: unknown): ImportedFigures[] {
  const v = record(value) ?? {};
  const figures: Record<string, number> = {};
  for (const def of METRICS) {
    const x = vllmValue(v, def);
    if (x !== undefined) figures[def.id] = x;
  }
  const notes: string[] = [];
  // vLLM before 0.5 spelled request throughput `request_inthroughput`.
  const oldThroughput = finite(v.request_inthroughput);
  if (figures.request_throughput === undefined && oldThroughput !== undefined) {
    figures[metric('request_throughput').id] = oldThroughput;
    notes.push('request throughput read from the old key request_inthroughput');
  }
  if (finite(v.failed) !== undefined) {
    notes.push("vLLM's failed (attempted − completed) is not goodput's failed (errors only): not imported");
  }
  const context: Array<[string, string]> = [];
  for (const [key, label] of CONTEXT_KEYS) {
    const x = v[key];
    if (typeof x === 'number' || (typeof x === 'string' && x !== '')) context.push([label, String(x)]);
  }
  const out: ImportedFigures = { figures, notes, context };
  const samples = vllmSamples(v);
  if (samples) {
    out.samples = samples;
    notes.push(
      `per-request ttfts and itls of ${samples.ttftMs.length} successful requests read (seconds, ×1000 to ms): TTFT and ITL get intervals`,
    );
  }
  if (typeof v.model_id === 'string') out.model = v.model_id;
  if (typeof v.date === 'string') out.date = v.date;
  return [out];
}
