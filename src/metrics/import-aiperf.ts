/**
 * An AIPerf `profile_export_aiperf.json` or a GenAI-Perf `profile_export_genai_perf.json` in
 * the catalogue's vocabulary. Each metric there is `{unit, avg, p50, p90, p95, p99, min, max,
 * std, …}`; times are converted from their stated unit exactly, rates are read only in the
 * units the tools write (`requests/sec`, `tokens/sec`). Pure.
 *
 * AIPerf's schema versions (ai-dynamo/aiperf docs/reference/json-export-schema.md): 1.0 the
 * GenAI-Perf shape; 1.1 adds `count` and `sum` to record metrics; 1.2–1.3 a top-level
 * `run_info` (seed, sweep point, redacted command line); 1.4 `warmup_metrics` (the top-level
 * metrics stay profiling-only); 1.5 a per-GPU `platform` and `nvidia_*` telemetry names. Every
 * 1.x reads alike here (telemetry is not imported). Beside it, `profile_export.jsonl` holds one
 * record a request (`{metadata: {benchmark_phase, was_cancelled, …}, metrics: {name: {value,
 * unit}}, error}`, docs/tutorials/working-with-profile-exports.md): its successful profiling
 * requests give compare per-request TTFT, TPOT (`inter_token_latency`), ITL
 * (`inter_chunk_latency`, a list) and E2EL (`request_latency`).
 *
 * Their `inter_token_latency` is per request (request latency − TTFT) / (output tokens − 1):
 * goodput's TPOT. Their `inter_chunk_latency` (the gaps between streamed chunks) is goodput's ITL.
 *
 * @module
 */

import type { ImportedSamples } from '../types.js';
import type { LatencyStatKey } from './catalogue.js';
import { finite, type ImportedFigures, putLatency, record, toMs } from './import-common.js';

const LATENCIES: ReadonlyArray<[key: string, latency: string]> = [
  ['time_to_first_token', 'ttft'],
  ['inter_token_latency', 'tpot'],
  ['inter_chunk_latency', 'itl'],
  ['request_latency', 'e2el'],
];

const STATS: ReadonlyArray<[key: string, stat: LatencyStatKey]> = [
  ['avg', 'mean'],
  ['std', 'std'],
  ['min', 'min'],
  ['max', 'max'],
  ['p50', 'p50'],
  ['p90', 'p90'],
  ['p95', 'p95'],
  ['p99', 'p99'],
];

const REQUEST_RATE_UNITS = new Set(['requests/sec', 'requests/s', 'req/s', 'requests per sec']);
const TOKEN_RATE_UNITS = new Set(['tokens/sec', 'tokens/s', 'tok/s', 'tokens per sec']);
const COUNT_UNITS = new Set(['requests', 'count', '']);

const RATES: ReadonlyArray<[key: string, id: string, units: Set<string>]> = [
  ['request_throughput', 'request_throughput', REQUEST_RATE_UNITS],
  ['output_token_throughput', 'output_throughput', TOKEN_RATE_UNITS],
  ['total_token_throughput', 'total_token_throughput', TOKEN_RATE_UNITS],
  ['goodput', 'request_goodput', REQUEST_RATE_UNITS],
  ['request_count', 'completed', COUNT_UNITS],
  ['error_request_count', 'failed', COUNT_UNITS],
];

function unitOf(entry: Record<string, unknown>): string {
  return typeof entry.unit === 'string' ? entry.unit.trim().toLowerCase() : '';
}

function modelOf(v: Record<string, unknown>): string | undefined {
  const config = record(v.input_config);
  const endpoint = record(config?.endpoint);
  const names = endpoint?.model_names ?? config?.model_names ?? config?.model;
  if (Array.isArray(names) && typeof names[0] === 'string') return names[0];
  return typeof names === 'string' ? names : undefined;
}

/** A record metric's value in ms (`{value, unit}`), else undefined. */
function recordMs(metrics: Record<string, unknown>, key: string): number | undefined {
  const m = record(metrics[key]);
  const x = finite(m?.value);
  return x === undefined || typeof m?.unit !== 'string' ? undefined : toMs(x, m.unit);
}

/**
 * The per-request samples of AIPerf's `profile_export.jsonl` records: successful (no error,
 * not cancelled) profiling-phase requests; undefined when none has a TTFT.
 */
export function aiperfSamples(records: readonly unknown[]): ImportedSamples | undefined {
  const out: Required<ImportedSamples> = { ttftMs: [], itlMs: [], outputTokens: [], tpotMs: [], e2elMs: [] };
  for (const r of records) {
    const rec = record(r);
    const meta = record(rec?.metadata);
    const metrics = record(rec?.metrics);
    if (!rec || !metrics || (rec.error !== null && rec.error !== undefined)) continue;
    if (meta?.was_cancelled === true) continue;
    if (typeof meta?.benchmark_phase === 'string' && meta.benchmark_phase !== 'profiling') continue;
    const ttft = recordMs(metrics, 'time_to_first_token');
    if (ttft === undefined) continue;
    out.ttftMs.push(ttft);
    const tpot = recordMs(metrics, 'inter_token_latency');
    if (tpot !== undefined) out.tpotMs.push(tpot);
    const e2el = recordMs(metrics, 'request_latency');
    if (e2el !== undefined) out.e2elMs.push(e2el);
    const chunks = record(metrics.inter_chunk_latency);
    if (Array.isArray(chunks?.value) && typeof chunks.unit === 'string') {
      for (const g of chunks.value) {
        const x = finite(g);
        const ms = x === undefined ? undefined : toMs(x, chunks.unit);
        if (ms !== undefined) out.itlMs.push(ms);
      }
    }
    const osl = finite(
      record(metrics.output_sequence_length)?.value ?? record(metrics.output_token_count)?.value,
    );
    if (osl !== undefined) out.outputTokens.push(osl);
  }
  return out.ttftMs.length > 0 ? out : undefined;
}

export function readAiperf(value: unknown, records?: readonly unknown[]): ImportedFigures[] {
  const v = record(value) ?? {};
  const figures: Record<string, number> = {};
  const notes: string[] = [];
  for (const [key, latency] of LATENCIES) {
    const entry = record(v[key]);
    if (!entry) continue;
    const unit = unitOf(entry);
    const stats: Partial<Record<LatencyStatKey, number>> = {};
    for (const [k, stat] of STATS) {
      const x = finite(entry[k]);
      const ms = x === undefined ? undefined : toMs(x, unit);
      if (ms !== undefined) stats[stat] = ms;
    }
    if (Object.keys(stats).length === 0 && Object.keys(entry).length > 1) {
      notes.push(`${key}: unit ${JSON.stringify(entry.unit)} not understood, not imported`);
    } else if (unit !== 'ms' && Object.keys(stats).length > 0) {
      notes.push(`${key} converted from ${unit} to ms`);
    }
    putLatency(figures, latency, stats);
  }
  for (const [key, id, units] of RATES) {
    const entry = record(v[key]);
    const x = finite(entry?.avg);
    if (!entry || x === undefined) continue;
    if (units.has(unitOf(entry))) figures[id] = x;
    else notes.push(`${key}: unit ${JSON.stringify(entry.unit)} not understood, not imported`);
  }
  const context: Array<[string, string]> = [];
  const stated = (key: string, label: string) => {
    const entry = record(v[key]);
    const x = finite(entry?.avg);
    if (entry && x !== undefined) context.push([label, `${x}${entry.unit ? ` ${String(entry.unit)}` : ''}`]);
  };
  stated('benchmark_duration', 'duration');
  stated('total_isl', 'input tokens');
  stated('total_osl', 'output tokens');
  const loadgen = record(record(v.input_config)?.loadgen);
  for (const k of ['concurrency', 'request_rate', 'request_count']) {
    const x = loadgen?.[k];
    if (typeof x === 'number' || typeof x === 'string') context.push([k.replace('_', ' '), String(x)]);
  }
  if (v.was_cancelled === true) context.push(['cancelled', 'the benchmark was stopped before it completed']);
  if (typeof v.schema_version === 'string') context.push(['export schema', v.schema_version]);
  if (typeof v.aiperf_version === 'string') context.push(['AIPerf version', v.aiperf_version]);
  const seed = record(v.run_info)?.random_seed;
  if (typeof seed === 'number') context.push(['seed', String(seed)]);
  const out: ImportedFigures = { figures, notes, context };
  const samples = records ? aiperfSamples(records) : undefined;
  if (samples) {
    out.samples = samples;
    notes.push(
      `per-request records of ${samples.ttftMs.length} successful requests read from profile_export.jsonl: TTFT, TPOT, ITL and E2EL get intervals`,
    );
  }
  const model = modelOf(v);
  if (model) out.model = model;
  if (typeof v.start_time === 'string') out.date = v.start_time;
  return [out];
}
