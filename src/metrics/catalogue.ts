/**
 * The metric catalogue: every figure goodput shows, gates, compares or exports, with one
 * name per use, so that a figure is spelled and read in exactly one place.
 *
 * Latencies are the latency table's (latencies.ts: name, label, title, unit, formula), each with
 * every statistic. For each metric: its `id` (compare's row key and the exporter's `metric` label, e.g.
 * `ttft_p99`), a label, the unit, which direction is better, how it is read from a RunSummary,
 * its vLLM flat key (when vLLM has one), its threshold subject in the gate grammar
 * (`p99(ttft)`), its ADR names (the rollback `metric:` name `ttft_p99_ms` and the `gate:` key
 * `ttft_p99_ms` / `attainment_min`) and its PromQL form (a series of watch's exporter).
 *
 * gate (grammar, shorthand flags), ADR front matter, compare rows, report headlines, sweep,
 * `emit prometheus-rules` and watch's rollback and exporter all look metrics up here.
 *
 * @module
 */

import { AGENT_METRICS } from './agent-metrics.js';
import {
  errorRate,
  meanAnswerTokens,
  meanReasoningTokens,
  timingsPrefixCacheHitRate,
} from './definitions.js';
import { EFFICIENCY_METRICS } from './efficiency-metrics.js';
import { LATENCIES, type LatencyDef } from './latencies.js';
import { type LatencyStatKey, type MetricDef, scalar } from './metric-def.js';
import { SERVER_TELEMETRY_METRICS } from './server-telemetry.js';
import { USER_METRICS } from './user-metrics.js';

export type { Better, LatencyStatKey, MetricDef, MetricUnit } from './metric-def.js';

/** The exporter gauge holding each catalogue metric of the last valid watch round, by `metric` label. */
export const ROUND_METRIC_SERIES = 'goodput_round_metric';

/**
 * Unix time at which the last valid round ended: the round whose figures
 * `goodput_round_metric` holds. Alerts read their age (a prober that stopped, or whose rounds
 * are all invalid, gives no fresh figures and must not be read as healthy).
 */
export const LAST_VALID_ROUND_SERIES = 'goodput_last_valid_round_timestamp_seconds';

/** PromQL for a metric's value per target and model, as watch's exporter exposes it. */
export function promqlOf(def: MetricDef): string {
  return `max by (target, model) (${ROUND_METRIC_SERIES}{metric="${def.id}"})`;
}

/** A metric's axis or column label with its unit, e.g. "TTFT p99 (ms)", "Output throughput (tok/s)". */
export function labelWithUnit(def: MetricDef): string {
  return def.unit === 'ratio' || def.unit === 'count' ? def.label : `${def.label} (${def.unit})`;
}

/** Statistics as written in ids and thresholds (canonical spelling) → LatencyStats field and label. */
export const LATENCY_STATS: ReadonlyArray<readonly [text: string, stat: LatencyStatKey, label: string]> = [
  ['p50', 'p50', 'p50'],
  ['p90', 'p90', 'p90'],
  ['p95', 'p95', 'p95'],
  ['p99', 'p99', 'p99'],
  ['p999', 'p999', 'p99.9'],
  ['mean', 'mean', 'mean'],
  ['min', 'min', 'min'],
  ['max', 'max', 'max'],
  ['std', 'std', 'std'],
];

const VLLM_LATENCY = new Set(['ttft', 'tpot', 'itl', 'e2el']);
const VLLM_STAT: Partial<Record<LatencyStatKey, string>> = {
  p50: 'p50',
  p90: 'p90',
  p95: 'p95',
  p99: 'p99',
  p999: 'p99.9',
  mean: 'mean',
  std: 'std',
};

function latencyMetric(
  { text, name, label, unit, reasoning }: LatencyDef,
  statText: string,
  stat: LatencyStatKey,
  statLabel: string,
): MetricDef {
  const vllmStat = VLLM_STAT[stat];
  const def: MetricDef = {
    id: `${text}_${statText}`,
    label: `${label} ${statLabel}`,
    unit,
    better: 'lower',
    read: (s) => {
      const l = s.latency[name];
      return l && l.count > 0 ? l[stat] : undefined;
    },
    threshold: `${statText}(${text})`,
    adrMetric: `${text}_${statText}_ms`,
    adrGateKey: `${text}_${statText}_ms`,
    latency: { name, text, stat },
  };
  if (reasoning) def.reasoning = true;
  if (VLLM_LATENCY.has(text) && vllmStat) def.vllmKey = `${vllmStat}_${text}_ms`;
  return def;
}

/** The scalar (non-latency) metrics. */
const SCALARS: readonly MetricDef[] = [
  scalar({
    id: 'request_throughput',
    label: 'Request throughput',
    unit: 'req/s',
    better: 'higher',
    read: (s) => s.request_throughput,
    vllmKey: 'request_throughput',
  }),
  scalar({
    id: 'output_throughput',
    label: 'Output throughput',
    unit: 'tok/s',
    better: 'higher',
    read: (s) => s.output_throughput,
    vllmKey: 'output_throughput',
  }),
  scalar({
    id: 'total_token_throughput',
    label: 'Total token throughput',
    unit: 'tok/s',
    better: 'higher',
    read: (s) => s.total_token_throughput,
    vllmKey: 'total_token_throughput',
  }),
  scalar({
    id: 'request_goodput',
    label: 'Goodput',
    unit: 'req/s',
    better: 'higher',
    read: (s) => s.request_goodput,
    vllmKey: 'request_goodput',
  }),
  scalar({
    id: 'attainment',
    label: 'SLO attainment',
    unit: 'ratio',
    better: 'higher',
    read: (s) => (s.goodput && s.goodput.attempted > 0 ? s.goodput.attainment : undefined),
  }),
  scalar({
    id: 'error_rate',
    label: 'Error rate',
    unit: 'ratio',
    better: 'lower',
    read: (s) => (s.counts ? errorRate(s) : undefined),
  }),
  scalar({
    id: 'goodput_ratio',
    label: 'Token goodput ratio',
    unit: 'ratio',
    better: 'higher',
    read: (s) => s.goodput.tokenGoodputRatio,
    // The ADR key predates the catalogue; kept so existing ADRs stay valid.
    adrGateKey: 'goodput_min',
  }),
  scalar({
    id: 'completed',
    label: 'Completed requests',
    unit: 'count',
    better: 'higher',
    read: (s) => s.counts.completed,
    vllmKey: 'completed',
  }),
  scalar({
    id: 'failed',
    label: 'Failed requests',
    unit: 'count',
    better: 'lower',
    // errors only (see definitions.ts); vLLM's `failed` key is attempted − completed.
    read: (s) => s.counts.failed,
  }),
  scalar({
    id: 'reasoning_tokens',
    label: 'Reasoning tokens (mean)',
    unit: 'count',
    better: 'lower',
    reasoning: true,
    read: meanReasoningTokens,
  }),
  scalar({
    id: 'answer_tokens',
    label: 'Answer tokens (mean)',
    unit: 'count',
    better: 'higher',
    reasoning: true,
    read: meanAnswerTokens,
  }),
  scalar({
    id: 'kv_fragmentation',
    label: 'KV fragmentation',
    unit: 'ratio',
    better: 'lower',
    server: true,
    read: (s) => s.server?.kvFragmentation ?? s.server?.series.kvFragmentation?.mean,
  }),
  scalar({
    id: 'kv_usage_max',
    label: 'KV usage (max)',
    unit: 'ratio',
    better: 'lower',
    server: true,
    read: (s) => s.server?.series.kvUsage?.max,
  }),
  scalar({
    id: 'preemptions',
    label: 'Preemptions',
    unit: 'count',
    better: 'lower',
    server: true,
    read: (s) => s.server?.preemptions,
  }),
  scalar({
    id: 'waiting_mean',
    label: 'Waiting requests (mean)',
    unit: 'count',
    better: 'lower',
    server: true,
    read: (s) => s.server?.series.waiting?.mean,
  }),
  scalar({
    id: 'prefix_cache_hit_rate',
    label: 'Prefix cache hit rate',
    unit: 'ratio',
    better: 'higher',
    server: true,
    // The server's counters when it has them, else llama.cpp's per-response timings (definitions.ts).
    read: (s) => s.server?.prefixCacheHitRate ?? timingsPrefixCacheHitRate(s),
  }),
  scalar({
    id: 'ttft_p50_first_turn',
    label: 'TTFT p50, first turns',
    unit: 'ms',
    better: 'lower',
    read: (s) => {
      const first = s.turns?.find((t) => t.turn === 1);
      return first && first.ttft.count > 0 ? first.ttft.p50 : undefined;
    },
  }),
  scalar({
    id: 'session_throughput',
    label: 'Session throughput',
    unit: 'sessions/s',
    better: 'higher',
    // Multi-turn sessions started per second: request throughput × the share of turns that were first turns.
    read: (s) => {
      const first = s.turns?.find((t) => t.turn === 1);
      const turns = (s.turns ?? []).reduce((n, t) => n + t.requests, 0);
      return first && turns > 0 ? (s.request_throughput * first.requests) / turns : undefined;
    },
  }),
  scalar({
    id: 'ttft_p50_later_turns',
    label: 'TTFT p50, later turns',
    unit: 'ms',
    better: 'lower',
    read: (s) => (s.laterTurns && s.laterTurns.ttft.count > 0 ? s.laterTurns.ttft.p50 : undefined),
  }),
];

/** Every metric: each latency with each statistic, then the scalars. */
export const METRICS: readonly MetricDef[] = [
  ...LATENCIES.flatMap((def) =>
    LATENCY_STATS.map(([statText, stat, statLabel]) => latencyMetric(def, statText, stat, statLabel)),
  ),
  ...SCALARS,
  ...USER_METRICS,
  ...AGENT_METRICS,
  ...SERVER_TELEMETRY_METRICS,
  ...EFFICIENCY_METRICS,
];

const BY_ID = new Map(METRICS.map((m) => [m.id, m]));
const BY_ADR_METRIC = new Map(METRICS.map((m) => [m.adrMetric, m]));
const BY_ADR_GATE_KEY = new Map(METRICS.map((m) => [m.adrGateKey, m]));

/** The metric with this id, or undefined. */
export function metricById(id: string): MetricDef | undefined {
  return BY_ID.get(id);
}

/** The metric of a latency and statistic (canonical statistic spelling, e.g. "p999"). */
export function latencyMetricOf(latencyText: string, statText: string): MetricDef | undefined {
  return BY_ID.get(`${latencyText}_${statText}`);
}

/** The metric an ADR `rollback.metric` names, or undefined. */
export function metricByAdrName(name: string): MetricDef | undefined {
  return BY_ADR_METRIC.get(name);
}

/** The metric an ADR `gate:` key limits, or undefined. */
export function metricByAdrGateKey(key: string): MetricDef | undefined {
  return BY_ADR_GATE_KEY.get(key);
}

/** Every ADR `gate:` key, in catalogue order. */
export const ADR_GATE_KEYS: readonly string[] = METRICS.map((m) => m.adrGateKey);

/** The scalar metrics' threshold names (gate grammar). */
export const SCALAR_METRIC_NAMES: readonly string[] = METRICS.filter((m) => !m.latency).map((m) => m.id);

/** The rows `compare` shows, in display order. */
export const COMPARE_ROW_IDS = [
  'ttft_p50',
  'ttft_p99',
  'tpot_p50',
  'tpot_p99',
  'itl_p99',
  'e2el_p99',
  'request_throughput',
  'output_throughput',
  'request_goodput',
  'attainment',
  'error_rate',
  'goodput_ratio',
  'ttfrt_p50',
  'ttfrt_p99',
  'ttfat_p50',
  'ttfat_p99',
  'reasoning_tokens',
  'kv_fragmentation',
  'kv_usage_max',
  'preemptions',
  'waiting_mean',
  'prefix_cache_hit_rate',
] as const;

/** The headline numbers of a run report, in display order. */
export const HEADLINE_IDS = [
  'ttft_p50',
  'ttft_p99',
  'tpot_p50',
  'tpot_p99',
  'output_throughput',
  'request_throughput',
  'request_goodput',
  'attainment',
  'error_rate',
] as const;

/** The metric of a known id (throws on a programming error: an id missing from the catalogue). */
export function metric(id: string): MetricDef {
  const def = BY_ID.get(id);
  if (!def) throw new Error(`metric catalogue has no '${id}'`);
  return def;
}
