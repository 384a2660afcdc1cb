/**
 * A guidellm benchmarks JSON (`guidellm benchmark --output-path benchmarks.json`, 0.3, 0.4–0.6
 * and 0.7 layouts) in the catalogue's vocabulary, one entry per benchmark of the file (a sweep
 * holds several). Figures come from the distributions of successful requests
 * (`metrics.<name>.successful`): mean, std_dev, min, max and `percentiles.pNN`. Pure.
 *
 * 0.7 (vllm-project/guidellm `src/guidellm/benchmark/schemas/report.py`,
 * `GenerativeBenchmarksReport`): `metadata.version` 2 with `guidellm_version`, the run's
 * scenario under `config.spec` (the model at `config.spec.backend.model`), each benchmark's
 * `config.{strategy, backend}` and `metrics` as in 0.4 (schemas/metrics.py
 * `GenerativeMetrics`: `request_totals`, `*_per_second`, `request_latency` in seconds, the
 * `_ms` distributions in ms, statistics.py `DistributionSummary` with `percentiles.p001…p999`).
 *
 * Definitions differ from goodput's in places, and such figures are left out rather than
 * relabelled: guidellm's `inter_token_latency_ms` weights each request by its output tokens − 1
 * and its `time_per_output_token_ms` includes the first token, so neither is goodput's
 * per-request TPOT or per-chunk ITL.
 *
 * @module
 */

import type { ImportedSamples } from '../types.js';
import type { LatencyStatKey } from './catalogue.js';
import { finite, type ImportedFigures, putLatency, record, toMs } from './import-common.js';

const NOT_TPOT =
  "guidellm's inter_token_latency_ms weights each request by its output tokens − 1 and its time_per_output_token_ms includes the first token: " +
  "neither is goodput's per-request TPOT or per-chunk ITL, so TPOT and ITL are not imported";

/** A guidellm distribution summary's statistics, in its own unit; undefined when it holds no request. */
function distribution(summary: unknown): Partial<Record<LatencyStatKey, number>> | undefined {
  const s = record(summary);
  // guidellm writes an empty distribution as zeros with count 0: no figure, not 0.
  if (!s || finite(s.count) === 0) return undefined;
  const p = record(s.percentiles) ?? {};
  const out: Partial<Record<LatencyStatKey, number>> = {};
  const put = (stat: LatencyStatKey, v: unknown) => {
    const x = finite(v);
    if (x !== undefined) out[stat] = x;
  };
  put('mean', s.mean);
  put('std', s.std_dev);
  put('min', s.min);
  put('max', s.max);
  put('p50', p.p50 ?? s.median);
  put('p90', p.p90);
  put('p95', p.p95);
  put('p99', p.p99);
  put('p999', p.p999);
  return out;
}

function successful(metrics: Record<string, unknown>, name: string) {
  return distribution(record(metrics[name])?.successful);
}

function scaled(
  stats: Partial<Record<LatencyStatKey, number>>,
  unit: string,
): Partial<Record<LatencyStatKey, number>> {
  const out: Partial<Record<LatencyStatKey, number>> = {};
  for (const [k, v] of Object.entries(stats)) {
    const ms = toMs(v, unit);
    if (ms !== undefined) out[k as LatencyStatKey] = ms;
  }
  return out;
}

/** "constant 4 req/s", "concurrent 8 streams", "synchronous": the strategy as guidellm states it. */
function strategyLabel(bench: Record<string, unknown>): string | undefined {
  const strategy = record(record(bench.config)?.strategy) ?? record(record(bench.args)?.strategy);
  if (!strategy) return undefined;
  const type = typeof strategy.type_ === 'string' ? strategy.type_ : 'strategy';
  const rate = finite(strategy.rate);
  const streams = finite(strategy.streams);
  return [type, rate !== undefined ? `${rate} req/s` : '', streams !== undefined ? `${streams} streams` : '']
    .filter(Boolean)
    .join(' ');
}

/**
 * The per-request values of a benchmark's successful requests (`requests.successful[]`,
 * `GenerativeRequestStats`: `time_to_first_token_ms` = first token − request start and
 * `request_latency` in seconds = end − start, goodput's TTFT and E2EL; `output_tokens`), or
 * undefined when the file keeps none. Its per-request `inter_token_latency_ms` runs to the last
 * token and its TPOT figure is not imported, so TPOT gets none.
 */
function guidellmSamples(bench: Record<string, unknown>): ImportedSamples | undefined {
  const list = record(bench.requests)?.successful;
  if (!Array.isArray(list)) return undefined;
  const out: ImportedSamples = { ttftMs: [], itlMs: [], outputTokens: [], e2elMs: [] };
  for (const r of list) {
    const req = record(r);
    const ttft = finite(req?.time_to_first_token_ms);
    if (!req || ttft === undefined) continue;
    out.ttftMs.push(ttft);
    const latency = finite(req.request_latency);
    if (latency !== undefined) out.e2elMs!.push(toMs(latency, 's') as number);
    const n = finite(req.output_tokens);
    if (n !== undefined) out.outputTokens.push(n);
  }
  return out.ttftMs.length > 0 ? out : undefined;
}

function readBenchmark(bench: Record<string, unknown>, model: string | undefined): ImportedFigures {
  const metrics = record(bench.metrics) ?? {};
  const figures: Record<string, number> = {};
  const notes = ["figures of guidellm's successful requests", NOT_TPOT];
  const ttft = successful(metrics, 'time_to_first_token_ms');
  if (ttft) putLatency(figures, 'ttft', ttft);
  const latency = successful(metrics, 'request_latency');
  if (latency) {
    putLatency(figures, 'e2el', scaled(latency, 's'));
    notes.push('E2EL from request_latency, converted from seconds (×1000)');
  }
  const rate = (name: string) => successful(metrics, name)?.mean;
  const put = (id: string, v: number | undefined) => {
    if (v !== undefined) figures[id] = v;
  };
  put('request_throughput', rate('requests_per_second'));
  put('output_throughput', rate('output_tokens_per_second'));
  put('total_token_throughput', rate('tokens_per_second'));
  const totals = record(metrics.request_totals) ?? record(bench.request_totals);
  put('completed', finite(totals?.successful));
  put('failed', finite(totals?.errored));
  const context: Array<[string, string]> = [];
  const label = strategyLabel(bench);
  if (label) context.push(['strategy', label]);
  const duration = finite(bench.duration);
  if (duration !== undefined) context.push(['duration (s)', String(duration)]);
  if (totals) {
    const parts = ['successful', 'incomplete', 'errored']
      .map((k) => (finite(totals[k]) !== undefined ? `${totals[k]} ${k}` : ''))
      .filter(Boolean);
    if (parts.length > 0) context.push(['requests', parts.join(', ')]);
  }
  const out: ImportedFigures = { figures, notes, context };
  const samples = guidellmSamples(bench);
  if (samples) {
    out.samples = samples;
    notes.push(
      `per-request TTFT and request latency of the ${samples.ttftMs.length} successful requests the file keeps (guidellm keeps a uniform sample, or all): TTFT and E2EL get intervals`,
    );
  }
  if (label) out.label = label;
  const worker = record(bench.worker);
  const benchModel = typeof worker?.backend_model === 'string' ? worker.backend_model : model;
  if (benchModel) out.model = benchModel;
  const start = finite(bench.start_time);
  if (start !== undefined) out.date = new Date(start * 1000).toISOString();
  return out;
}

/** A backend's model (`{kind, target, model}`), when it names one. */
function backendModel(backend: unknown): string | undefined {
  const model = record(backend)?.model;
  return typeof model === 'string' && model !== '' ? model : undefined;
}

export function readGuidellm(value: unknown): ImportedFigures[] {
  const v = record(value) ?? {};
  const args = record(v.args);
  // 0.7 (metadata.version 2): the scenario under `config.spec`, the backend's model in it.
  const model =
    backendModel(record(record(v.config)?.spec)?.backend) ??
    (typeof args?.model === 'string' ? args.model : undefined);
  const version = record(v.metadata)?.guidellm_version;
  const benches = Array.isArray(v.benchmarks) ? v.benchmarks : [];
  return benches.map((b) => {
    const bench = record(b) ?? {};
    const out = readBenchmark(bench, backendModel(record(bench.config)?.backend) ?? model);
    if (typeof version === 'string') out.context.push(['guidellm version', version]);
    return out;
  });
}
