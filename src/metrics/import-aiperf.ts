/**
 * An AIPerf `profile_export_aiperf.json` or a GenAI-Perf `profile_export_genai_perf.json` in
 * the catalogue's vocabulary. Each metric there is `{unit, avg, p50, p90, p95, p99, min, max,
 * std, …}`; times are converted from their stated unit exactly, rates are read only in the
 * units the tools write (`requests/sec`, `tokens/sec`). Pure.
 *
 * Their `inter_token_latency` is per request (request latency − TTFT) / (output tokens − 1):
 * goodput's TPOT. Their `inter_chunk_latency` (the gaps between streamed chunks) is goodput's ITL.
 *
 * @module
 */

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

export function readAiperf(value: unknown): ImportedFigures[] {
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
  const out: ImportedFigures = { figures, notes, context };
  const model = modelOf(v);
  if (model) out.model = model;
  if (typeof v.start_time === 'string') out.date = v.start_time;
  return [out];
}
