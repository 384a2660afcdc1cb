/**
 * The metrics compare reports, with their unit, their good direction and the test that
 * decides whether a change is significant.
 *
 * @module
 */

import type { RunSummary } from '../types.js';
import type { RunSamples } from './samples.js';

/** Which way is better: latencies and error rates go down, throughput and goodput go up. */
export type Direction = 'lower' | 'higher';

/**
 * How a change is tested:
 * - `rank`: Mann–Whitney U on the per-request values (medians), interval from the bootstrap;
 * - `bootstrap`: percentile bootstrap of the quantile's relative change;
 * - `rate`: log rate-ratio interval (compound Poisson) for throughputs;
 * - `proportion`: Newcombe's interval for a difference of proportions (change in points);
 * - `none`: a single figure per run (server metrics): shown, not tested.
 */
export type TestKind = 'rank' | 'bootstrap' | 'rate' | 'proportion' | 'none';

export type LatencySampleName = 'ttft' | 'tpot' | 'itl' | 'e2el';

export interface MetricDef {
  key: string;
  label: string;
  unit: 'ms' | 'req/s' | 'tok/s' | 'ratio' | 'count';
  direction: Direction;
  test: TestKind;
  /** Latency metrics: which sample and which quantile. */
  sample?: LatencySampleName;
  quantile?: number;
  /** The figure from a summary (undefined when the run did not measure it). */
  value(summary: RunSummary): number | undefined;
  /** Only shown when either run has server metrics. */
  server?: boolean;
}

function latency(sample: LatencySampleName, q: 0.5 | 0.99, label: string): MetricDef {
  return {
    key: `${sample}_p${q * 100}`,
    label,
    unit: 'ms',
    direction: 'lower',
    test: q === 0.5 ? 'rank' : 'bootstrap',
    sample,
    quantile: q,
    value: (s) => s.latency?.[sample]?.[q === 0.5 ? 'p50' : 'p99'],
  };
}

const errorRate = (s: RunSummary) =>
  s.counts.attempted > 0 ? s.counts.failed / s.counts.attempted : undefined;

/** Every metric compare knows, in display order. */
export const COMPARE_METRICS: readonly MetricDef[] = [
  latency('ttft', 0.5, 'TTFT p50'),
  latency('ttft', 0.99, 'TTFT p99'),
  latency('tpot', 0.5, 'TPOT p50'),
  latency('tpot', 0.99, 'TPOT p99'),
  latency('itl', 0.99, 'ITL p99'),
  latency('e2el', 0.99, 'E2EL p99'),
  {
    key: 'request_throughput',
    label: 'Request throughput',
    unit: 'req/s',
    direction: 'higher',
    test: 'rate',
    value: (s) => s.request_throughput,
  },
  {
    key: 'output_throughput',
    label: 'Output throughput',
    unit: 'tok/s',
    direction: 'higher',
    test: 'rate',
    value: (s) => s.output_throughput,
  },
  {
    key: 'request_goodput',
    label: 'Goodput',
    unit: 'req/s',
    direction: 'higher',
    test: 'rate',
    value: (s) => s.request_goodput,
  },
  {
    key: 'attainment',
    label: 'SLO attainment',
    unit: 'ratio',
    direction: 'higher',
    test: 'proportion',
    value: (s) => s.goodput?.attainment,
  },
  {
    key: 'error_rate',
    label: 'Error rate',
    unit: 'ratio',
    direction: 'lower',
    test: 'proportion',
    value: errorRate,
  },
  {
    key: 'goodput_ratio',
    label: 'Token goodput ratio',
    unit: 'ratio',
    direction: 'higher',
    test: 'none',
    value: (s) => s.goodput?.tokenGoodputRatio,
  },
  {
    key: 'kv_fragmentation',
    label: 'KV fragmentation',
    unit: 'ratio',
    direction: 'lower',
    test: 'none',
    server: true,
    value: (s) => s.server?.kvFragmentation ?? s.server?.series.kvFragmentation?.mean,
  },
  {
    key: 'kv_usage_max',
    label: 'KV usage (max)',
    unit: 'ratio',
    direction: 'lower',
    test: 'none',
    server: true,
    value: (s) => s.server?.series.kvUsage?.max,
  },
  {
    key: 'preemptions',
    label: 'Preemptions',
    unit: 'count',
    direction: 'lower',
    test: 'none',
    server: true,
    value: (s) => s.server?.preemptions,
  },
  {
    key: 'waiting_mean',
    label: 'Waiting requests (mean)',
    unit: 'count',
    direction: 'lower',
    test: 'none',
    server: true,
    value: (s) => s.server?.series.waiting?.mean,
  },
  {
    key: 'prefix_cache_hit_rate',
    label: 'Prefix cache hit rate',
    unit: 'ratio',
    direction: 'higher',
    test: 'none',
    server: true,
    value: (s) => s.server?.prefixCacheHitRate,
  },
];

/** Metric keys, for --fail-on-worse validation and help. */
export const COMPARE_METRIC_KEYS: readonly string[] = COMPARE_METRICS.map((m) => m.key);

/** Counts behind a proportion metric: successes x out of n. */
export function proportionCounts(key: string, s: RunSummary): { x: number; n: number } | undefined {
  if (key === 'attainment') return { x: s.goodput.goodRequests, n: s.goodput.attempted };
  if (key === 'error_rate') return { x: s.counts.failed, n: s.counts.attempted };
  return undefined;
}

/**
 * Relative variance Σx²/(Σx)² of a rate metric's numerator: 1/count for request counts;
 * for tokens, from the per-request sums when records are there, else as if equal per request.
 */
export function rateRelativeVariance(key: string, s: RunSummary, samples?: RunSamples): number | undefined {
  const inverse = (c: number) => (c > 0 ? 1 / c : undefined);
  if (key === 'request_throughput') return inverse(s.completed);
  if (key === 'request_goodput') return inverse(s.goodput.goodRequests);
  if (key === 'output_throughput') {
    if (samples && samples.outputTokens.sum > 0) {
      return samples.outputTokens.sumOfSquares / samples.outputTokens.sum ** 2;
    }
    return inverse(s.completed);
  }
  return undefined;
}
