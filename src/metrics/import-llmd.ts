/**
 * An llm-d benchmark report (versions 0.2 and 0.2.1, JSON) in the catalogue's vocabulary. Pure.
 *
 * The format: llm-d/llm-d-benchmark `llmdbenchmark/analysis/benchmark_report/` (README.md,
 * schema_v0_2.py, br_v0_2_json_schema.json at 8bc9f1d): figures under
 * `results.request_performance.aggregate`, each a Statistics block `{units, mean, stddev, min,
 * p0p1, p1, …, p50, …, p99, p99p9, max}`. Latencies come in `ms` or `s` (TTFT, request
 * latency) and `ms/token` or `s/token` (TPOT, ITL), converted to ms exactly; rates in
 * `tokens/s` and `queries/s`. 0.2.1 only adds optional multi-modal blocks, so both read alike.
 *
 * The report's `time_per_output_token` is goodput's TPOT and its `inter_token_latency` goodput's
 * ITL, as llm-d's converter of vLLM results fills them; what another harness put there is its
 * own definition (named in a note with the harness, `scenario.load.standardized.tool`).
 *
 * @module
 */

import type { LatencyStatKey } from './catalogue.js';
import { finite, type ImportedFigures, putLatency, record, toMs } from './import-common.js';

const LATENCIES: ReadonlyArray<[field: string, latency: string]> = [
  ['time_to_first_token', 'ttft'],
  ['time_per_output_token', 'tpot'],
  ['inter_token_latency', 'itl'],
  ['request_latency', 'e2el'],
];

const STATS: ReadonlyArray<[field: string, stat: LatencyStatKey]> = [
  ['mean', 'mean'],
  ['stddev', 'std'],
  ['min', 'min'],
  ['p50', 'p50'],
  ['p90', 'p90'],
  ['p95', 'p95'],
  ['p99', 'p99'],
  ['p99p9', 'p999'],
  ['max', 'max'],
];

const RATES: ReadonlyArray<[field: string, id: string, units: string]> = [
  ['output_token_rate', 'output_throughput', 'tokens/s'],
  ['total_token_rate', 'total_token_throughput', 'tokens/s'],
  ['request_rate', 'request_throughput', 'queries/s'],
];

/** A latency unit as a time unit toMs knows ("s/token" → "s"), else undefined. */
function timeUnit(units: unknown): string | undefined {
  if (typeof units !== 'string') return undefined;
  const u = units.replace(/\/token$/, '');
  return u === 'ms' || u === 's' ? u : undefined;
}

function modelOf(v: Record<string, unknown>): string | undefined {
  const stack = record(v.scenario)?.stack;
  if (!Array.isArray(stack)) return undefined;
  for (const c of stack) {
    const std = record(record(c)?.standardized);
    const model = record(std?.model)?.name ?? std?.model;
    if (typeof model === 'string' && model !== '') return model;
  }
  return undefined;
}

export function readLlmd(value: unknown): ImportedFigures[] {
  const v = record(value) ?? {};
  const results = record(v.results);
  const aggregate = record(record(results?.request_performance)?.aggregate) ?? {};
  const figures: Record<string, number> = {};
  const notes: string[] = [];
  const latency = record(aggregate.latency) ?? {};
  for (const [field, name] of LATENCIES) {
    const block = record(latency[field]);
    if (!block) continue;
    const unit = timeUnit(block.units);
    if (unit === undefined) {
      notes.push(`${field}: units ${JSON.stringify(block.units)} not understood, not imported`);
      continue;
    }
    const stats: Partial<Record<LatencyStatKey, number>> = {};
    for (const [key, stat] of STATS) {
      const x = finite(block[key]);
      if (x !== undefined) stats[stat] = toMs(x, unit) as number;
    }
    if (unit === 's') notes.push(`${field} converted from seconds to ms (×1000)`);
    putLatency(figures, name, stats);
  }
  const throughput = record(aggregate.throughput) ?? {};
  for (const [field, id, units] of RATES) {
    const block = record(throughput[field]);
    const x = finite(block?.mean);
    if (!block || x === undefined) continue;
    if (block.units === units) figures[id] = x;
    else notes.push(`${field}: units ${JSON.stringify(block.units)} not understood, not imported`);
  }
  const requests = record(aggregate.requests);
  const total = finite(requests?.total);
  const failures = finite(requests?.failures);
  const incomplete = finite(requests?.incomplete);
  if (failures !== undefined) figures.failed = failures;
  if (total !== undefined) figures.completed = total - (failures ?? 0) - (incomplete ?? 0);
  const context: Array<[string, string]> = [['llm-d report version', String(v.version)]];
  const load = record(record(record(v.scenario)?.load)?.standardized);
  const harness = typeof load?.tool === 'string' ? load.tool : undefined;
  if (harness) {
    context.push(['load generator', `${harness} ${String(load?.tool_version ?? '')}`.trim()]);
    if (harness !== 'goodput') {
      notes.push(
        `figures as ${harness} defined them (llm-d keeps each harness's TPOT and ITL): compare them with goodput's knowing that`,
      );
    }
  }
  for (const [key, label] of [
    ['rate_qps', 'request rate'],
    ['concurrency', 'concurrency'],
    ['stage', 'stage'],
  ] as const) {
    const x = load?.[key];
    if (typeof x === 'number' || typeof x === 'string') context.push([label, String(x)]);
  }
  if (requests) {
    const parts = [
      total !== undefined ? `${total} total` : '',
      failures !== undefined ? `${failures} failed` : '',
      incomplete !== undefined ? `${incomplete} incomplete` : '',
    ].filter(Boolean);
    if (parts.length > 0) context.push(['requests', parts.join(', ')]);
  }
  const run = record(v.run);
  const time = record(run?.time);
  if (typeof time?.duration === 'string') context.push(['duration', time.duration]);
  if (typeof run?.description === 'string') context.push(['description', run.description]);
  const out: ImportedFigures = { figures, notes, context };
  const model = modelOf(v);
  if (model) out.model = model;
  if (typeof time?.start === 'string') out.date = time.start;
  return [out];
}
