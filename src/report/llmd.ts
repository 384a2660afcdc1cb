/**
 * A run as an llm-d benchmark report, version 0.2 (`goodput report RUN --format llm-d`), the
 * common format llm-d-benchmark converts vLLM, guidellm, AIPerf and inference-perf results into
 * and its dashboards (llm-d-prism) read. Pure: the report as a plain object.
 *
 * The format: llm-d/llm-d-benchmark `llmdbenchmark/analysis/benchmark_report/` (README.md,
 * schema_v0_2.py, br_v0_2_json_schema.json; vendored in vendor/llm-d-benchmark/, against which
 * the tests validate every report written here). Figures come from the metric catalogue (one
 * reading of each): latencies under `results.request_performance.aggregate.latency` in ms
 * (TTFT and E2EL `ms`, TPOT and ITL `ms/token`, as llm-d's own vLLM converter writes them:
 * goodput's TPOT is `time_per_output_token`, its per-chunk ITL `inter_token_latency`),
 * throughputs in `tokens/s` and `queries/s`. A figure the run does not state is left out
 * (never 0); a latency block needs its mean, as the schema does.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import {
  importedValue,
  type LatencyStatKey,
  latencyMetricOf,
  type MetricDef,
  metric,
} from '../metrics/index.js';
import type { ImportedSummary, RunSummary } from '../types.js';

/** The version of the llm-d benchmark report written. */
export const LLMD_REPORT_VERSION = '0.2';

/** goodput's latency statistics → the llm-d Statistics fields. */
const STATS: ReadonlyArray<[LatencyStatKey, string]> = [
  ['mean', 'mean'],
  ['std', 'stddev'],
  ['min', 'min'],
  ['p50', 'p50'],
  ['p90', 'p90'],
  ['p95', 'p95'],
  ['p99', 'p99'],
  ['p999', 'p99p9'],
  ['max', 'max'],
];

/** goodput's latency → the llm-d latency field and its unit (goodput's are ms). */
export const LLMD_LATENCIES: ReadonlyArray<[latency: string, field: string, units: string]> = [
  ['ttft', 'time_to_first_token', 'ms'],
  ['tpot', 'time_per_output_token', 'ms/token'],
  ['itl', 'inter_token_latency', 'ms/token'],
  ['e2el', 'request_latency', 'ms'],
];

/** goodput's throughputs → the llm-d throughput field and its unit. */
export const LLMD_THROUGHPUTS: ReadonlyArray<[id: string, field: string, units: string]> = [
  ['output_throughput', 'output_token_rate', 'tokens/s'],
  ['total_token_throughput', 'total_token_rate', 'tokens/s'],
  ['request_throughput', 'request_rate', 'queries/s'],
];

type Figure = (def: MetricDef) => number | undefined;
type Json = Record<string, unknown>;

function statistics(latency: string, units: string, figure: Figure): Json | undefined {
  const out: Json = { units };
  for (const [stat, field] of STATS) {
    const def = latencyMetricOf(latency, stat);
    const v = def ? figure(def) : undefined;
    if (v !== undefined) out[field] = v;
  }
  return out.mean === undefined ? undefined : out;
}

function aggregate(figure: Figure, requests: Json | undefined): Json {
  const latency: Json = {};
  for (const [name, field, units] of LLMD_LATENCIES) {
    const s = statistics(name, units, figure);
    if (s) latency[field] = s;
  }
  const throughput: Json = {};
  for (const [id, field, units] of LLMD_THROUGHPUTS) {
    const v = figure(metric(id));
    if (v !== undefined) throughput[field] = { units, mean: v };
  }
  const out: Json = { latency, throughput };
  if (requests) out.requests = requests;
  return out;
}

/** A 32-hex-digit id of a JSON value (llm-d's `cfg_id`s are hashes of a configuration). */
function hashId(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);
}

/** ISO 8601 duration of a number of seconds (`PT49.97S`), as llm-d writes `run.time.duration`. */
export function isoDuration(seconds: number): string {
  return `PT${Number(seconds.toFixed(6))}S`;
}

function runTime(startedAt: string, durationS: number | undefined): Json | undefined {
  const start = Date.parse(startedAt);
  if (Number.isNaN(start)) return undefined;
  const time: Json = { start: new Date(start).toISOString() };
  if (durationS !== undefined && Number.isFinite(durationS) && durationS >= 0) {
    time.end = new Date(start + durationS * 1000).toISOString();
    time.duration = isoDuration(durationS);
  }
  return time;
}

function loadOf(summary: RunSummary): Json {
  const { workload, load, sampling, tool } = summary.meta;
  const completed = summary.counts.completed;
  const input: Json =
    workload.kind === 'synthetic' && workload.promptTokens !== undefined
      ? { distribution: workload.promptTokensRange ? 'uniform' : 'fixed', value: workload.promptTokens }
      : { distribution: 'other', value: completed > 0 ? summary.total_input_tokens / completed : 0 };
  if (workload.promptTokens !== undefined && workload.promptTokensRange) {
    const spread = workload.promptTokens * workload.promptTokensRange;
    input.min = Math.max(0, Math.floor(workload.promptTokens - spread));
    input.max = Math.max(1, Math.ceil(workload.promptTokens + spread));
  }
  const standardized: Json = {
    tool: tool.name,
    tool_version: tool.version,
    source: workload.kind === 'synthetic' ? 'random' : 'sampled',
    stage: 0,
    input_seq_len: input,
  };
  // The output length is a limit unless ignore_eos made every request reach it.
  if (sampling.ignoreEos && !workload.maxTokensFrom) {
    standardized.output_seq_len = { distribution: 'fixed', value: workload.maxTokens };
  }
  if (load.rate !== undefined && load.rate > 0 && Number.isFinite(load.rate))
    standardized.rate_qps = load.rate;
  const concurrency = load.concurrency ?? load.maxConcurrency;
  if (concurrency !== undefined && concurrency >= 1) standardized.concurrency = concurrency;
  const config = { workload, load, sampling };
  return {
    metadata: { schema_version: '0.0.1', cfg_id: hashId(config) },
    standardized,
    native: { config },
  };
}

function stackOf(summary: RunSummary): Json[] {
  const { target, model } = summary.meta;
  const engine = target.embedded ? 'goodput-sim' : (summary.server?.engine ?? 'unknown');
  const standardized: Json = { kind: 'generic', tool: engine, tool_version: 'unknown', model };
  if (target.simProfile) standardized.profile = target.simProfile;
  return [
    {
      metadata: { schema_version: '0.0.1', label: 'target', cfg_id: hashId({ engine, model, target }) },
      standardized,
      native: {},
    },
  ];
}

/** A goodput run as an llm-d benchmark report v0.2. */
export function llmdReportOfRun(summary: RunSummary): Json {
  const { counts, meta } = summary;
  const incomplete = counts.attempted - counts.completed - counts.failed;
  const requests: Json = { total: counts.attempted, failures: counts.failed };
  if (incomplete > 0) requests.incomplete = incomplete;
  const run: Json = { uid: meta.runId, description: `${meta.model} [${meta.runId}]` };
  const time = runTime(meta.startedAt, summary.duration);
  if (time) run.time = time;
  return {
    version: LLMD_REPORT_VERSION,
    run,
    scenario: { stack: stackOf(summary), load: loadOf(summary) },
    results: {
      request_performance: {
        aggregate: aggregate((def) => def.read(summary), requests),
      },
    },
  };
}

/** Another tool's result (as goodput read it) as an llm-d benchmark report v0.2: its stated figures only. */
export function llmdReportOfImported(imported: ImportedSummary): Json {
  const figure: Figure = (def) => importedValue(imported, def);
  const completed = figure(metric('completed'));
  const failed = figure(metric('failed'));
  const requests =
    completed === undefined
      ? undefined
      : {
          total: Math.round(completed + (failed ?? 0)),
          ...(failed !== undefined ? { failures: Math.round(failed) } : {}),
        };
  const b = imported.source.benchmark;
  const run: Json = { uid: hashId([imported.source.sha256, b?.index ?? 1]) };
  run.description = [
    imported.model,
    `[${imported.source.tool} ${imported.source.path}${b ? `#${b.index}` : ''}]`,
  ]
    .filter(Boolean)
    .join(' ');
  const time = imported.date ? runTime(imported.date, undefined) : undefined;
  if (time) run.time = time;
  return {
    version: LLMD_REPORT_VERSION,
    run,
    results: { request_performance: { aggregate: aggregate(figure, requests) } },
  };
}
