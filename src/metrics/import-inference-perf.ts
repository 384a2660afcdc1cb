/**
 * An inference-perf lifecycle report (`summary_lifecycle_metrics.json`, or a stage's
 * `stage_N_lifecycle_metrics.json`) in the catalogue's vocabulary. Pure.
 *
 * The format: kubernetes-sigs/inference-perf `inference_perf/reportgen/base.py`
 * (`summarize_requests`, `ResponsesSummary`, 0.5–0.6; docs/reports.md): `{benchmark_time_seconds,
 * load_summary, successes: {count, latency: {request_latency, normalized_time_per_output_token,
 * time_per_output_token, time_to_first_token, inter_token_latency}, throughput:
 * {input_tokens_per_sec, output_tokens_per_sec, total_tokens_per_sec, requests_per_sec}, …},
 * failures: {count, …}}`, latencies in seconds with `mean`, `min`, `max`, `median` and `pN`
 * (`p0.1`, `p99.9`, …); a stage file adds `load_summary.{requested_rate, achieved_rate,
 * concurrency}`. Older files have no `benchmark_time_seconds`; both read alike.
 *
 * Definitions: its TTFT (first output token − start) and request latency (end − start) are
 * goodput's; its time_per_output_token is (last token − first token) / (output tokens − 1), the
 * last token's time where goodput takes the last byte (the same instant for a streamed reply
 * that ends with its last token), imported as TPOT and said so; its inter_token_latency is
 * per token, every token of a chunk given the chunk's time (zeros inside a chunk), which is
 * neither goodput's per-chunk ITL nor its per-token ITL (gap ÷ tokens): not imported.
 *
 * @module
 */

import type { LatencyStatKey } from './catalogue.js';
import { finite, type ImportedFigures, putLatency, record, toMs } from './import-common.js';

const STATS: ReadonlyArray<[key: string, stat: LatencyStatKey]> = [
  ['mean', 'mean'],
  ['min', 'min'],
  ['max', 'max'],
  ['median', 'p50'],
  ['p90', 'p90'],
  ['p95', 'p95'],
  ['p99', 'p99'],
  ['p99.9', 'p999'],
];

const LATENCIES: ReadonlyArray<[key: string, latency: string]> = [
  ['time_to_first_token', 'ttft'],
  ['time_per_output_token', 'tpot'],
  ['request_latency', 'e2el'],
];

const RATES: ReadonlyArray<[key: string, id: string]> = [
  ['requests_per_sec', 'request_throughput'],
  ['output_tokens_per_sec', 'output_throughput'],
  ['total_tokens_per_sec', 'total_token_throughput'],
];

const NOTES = [
  "figures of inference-perf's successful requests; latencies converted from seconds to ms (×1000)",
  "TPOT is inference-perf's time_per_output_token: (last token − first token) / (output tokens − 1), the last token where goodput takes the last byte",
  "inference-perf's inter_token_latency gives every token of a chunk the chunk's time (zeros inside a chunk): neither goodput's per-chunk nor per-token ITL, not imported",
];

export function readInferencePerf(value: unknown): ImportedFigures[] {
  const v = record(value) ?? {};
  const successes = record(v.successes) ?? {};
  const latency = record(successes.latency) ?? {};
  const figures: Record<string, number> = {};
  for (const [key, name] of LATENCIES) {
    const block = record(latency[key]);
    if (!block) continue;
    const stats: Partial<Record<LatencyStatKey, number>> = {};
    for (const [k, stat] of STATS) {
      const x = finite(block[k]);
      if (x !== undefined) stats[stat] = toMs(x, 's') as number;
    }
    putLatency(figures, name, stats);
  }
  const throughput = record(successes.throughput) ?? {};
  for (const [key, id] of RATES) {
    const x = finite(throughput[key]);
    if (x !== undefined) figures[id] = x;
  }
  const completed = finite(successes.count);
  const failed = finite(record(v.failures)?.count);
  if (completed !== undefined) figures.completed = completed;
  if (failed !== undefined) figures.failed = failed;
  const context: Array<[string, string]> = [];
  const load = record(v.load_summary) ?? {};
  for (const [key, label] of [
    ['requested_rate', 'requested rate (req/s)'],
    ['achieved_rate', 'achieved rate (req/s)'],
    ['concurrency', 'concurrency'],
    ['count', 'requests sent'],
  ] as const) {
    const x = finite(load[key]);
    if (x !== undefined) context.push([label, String(x)]);
  }
  const duration = finite(v.benchmark_time_seconds);
  if (duration !== undefined) context.push(['duration (s)', String(duration)]);
  if (completed !== undefined || failed !== undefined) {
    context.push(['requests', `${completed ?? '?'} successful, ${failed ?? '?'} failed`]);
  }
  return [{ figures, notes: [...NOTES], context }];
}
