/**
 * What a catalogue metric is (MetricDef) and the helper that makes a scalar one; the metrics
 * themselves are in catalogue.ts (and the per-user and per-SLO views in user-metrics.ts).
 *
 * @module
 */

import type { LatencyStats, RunSummary, SummaryLatencyName } from '../types.js';

export type MetricUnit =
  | 'ms'
  | 'req/s'
  | 'sessions/s'
  | 'tok/s'
  | 'ratio'
  | 'count'
  | 'W'
  | 'MiB'
  /** Energy per token, and tokens per unit of energy (= tok/s per W). */
  | 'J/tok'
  | 'tok/J'
  /** Price per million tokens, in the currency of --cost-per-hour. */
  | 'cost/Mtok';
/** Which way is better: latencies and error rates go down, throughput and goodput go up. */
export type Better = 'lower' | 'higher';

export type LatencyStatKey = keyof Pick<
  LatencyStats,
  'p50' | 'p90' | 'p95' | 'p99' | 'p999' | 'mean' | 'min' | 'max' | 'std'
>;

export interface MetricDef {
  /** Stable id: compare's row key, the exporter's `metric` label, e.g. "ttft_p99", "error_rate". */
  id: string;
  label: string;
  unit: MetricUnit;
  better: Better;
  /** The figure from a summary; undefined when the run did not measure it. */
  read(summary: RunSummary): number | undefined;
  /** vLLM's flat key for the same figure, when vLLM has one (e.g. "p99_ttft_ms"). */
  vllmKey?: string;
  /** Subject in the gate grammar: "p99(ttft)", "attainment". */
  threshold: string;
  /** Name in an ADR `rollback: { metric: … }`: "ttft_p99_ms", "attainment". */
  adrMetric: string;
  /** Key in an ADR `gate:` block, a limit in the metric's unit: "ttft_p99_ms" (max), "attainment_min". */
  adrGateKey: string;
  /** The latency and statistic, for latency metrics. */
  latency?: { name: SummaryLatencyName; text: string; stat: LatencyStatKey };
  /** Compare: only shown when a run has server metrics. */
  server?: boolean;
  /** Compare: only shown when a run reasoned (its summary has a `reasoning` block). */
  reasoning?: boolean;
  /**
   * From the GPUs' DCGM exporter (`--gpu-metrics-url`): a server figure that watch's rounds
   * measure too when watch scrapes the exporter, so alerts on it can be emitted.
   */
  gpu?: boolean;
  /** Compare: only shown when a run has energy or cost figures (`RunSummary.efficiency`). */
  efficiency?: boolean;
}

type ScalarSpec = Omit<MetricDef, 'threshold' | 'adrMetric' | 'adrGateKey'> & { adrGateKey?: string };

/** A non-latency metric: its threshold and ADR names are its id. */
export function scalar(spec: ScalarSpec): MetricDef {
  return {
    ...spec,
    threshold: spec.id,
    adrMetric: spec.id,
    adrGateKey: spec.adrGateKey ?? `${spec.id}_${spec.better === 'lower' ? 'max' : 'min'}`,
  };
}
