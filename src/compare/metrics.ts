/**
 * The metrics compare reports, with their unit, their good direction and the test that
 * decides whether a change is significant.
 *
 * @module
 */

import {
  type Better,
  COMPARE_ROW_IDS,
  EFFICIENCY_ROW_IDS,
  failedRequests,
  judgedRequests,
  type LatencyStatKey,
  type MetricUnit,
  metric,
} from '../metrics/index.js';
import type { RunSummary } from '../types.js';
import type { RunSamples } from './samples.js';

/** Which way is better (the catalogue's `better`). */
export type Direction = Better;

/**
 * How a change is tested:
 * - `rank`: Mann–Whitney U on the per-request values (medians), interval from the bootstrap;
 * - `bootstrap`: percentile bootstrap of the quantile's relative change;
 * - `rate`: log rate-ratio interval (compound Poisson) for throughputs;
 * - `proportion`: Newcombe's interval for a difference of proportions (change in points);
 * - `none`: a single figure per run (server metrics): shown, not tested.
 */
export type TestKind = 'rank' | 'bootstrap' | 'rate' | 'proportion' | 'none';

export type LatencySampleName = 'ttft' | 'tpot' | 'itl' | 'e2el' | 'ttfrt' | 'ttfat';

/** A compare row: a catalogue metric plus how a change in it is tested. */
export interface CompareMetric {
  /** The catalogue id, e.g. "ttft_p99". */
  key: string;
  label: string;
  unit: MetricUnit;
  direction: Direction;
  test: TestKind;
  /** Latency metrics: which sample and which quantile. */
  sample?: LatencySampleName;
  quantile?: number;
  /** The figure from a summary (the catalogue's reader; undefined when the run did not measure it). */
  value(summary: RunSummary): number | undefined;
  /** Only shown when either run has server metrics. */
  server?: boolean;
  /** Only shown when either run reasoned. */
  reasoning?: boolean;
  /** Only shown when either run has energy or cost figures. */
  efficiency?: boolean;
}

const TESTS: Record<string, TestKind> = {
  request_throughput: 'rate',
  output_throughput: 'rate',
  request_goodput: 'rate',
  attainment: 'proportion',
  error_rate: 'proportion',
};

const QUANTILES: Partial<Record<LatencyStatKey, number>> = { p50: 0.5, p99: 0.99 };

function row(id: string): CompareMetric {
  const def = metric(id);
  const out: CompareMetric = {
    key: def.id,
    label: def.label,
    unit: def.unit,
    direction: def.better,
    test: TESTS[id] ?? 'none',
    value: def.read,
  };
  if (def.server) out.server = true;
  if (def.reasoning) out.reasoning = true;
  if (def.efficiency) out.efficiency = true;
  const q = def.latency ? QUANTILES[def.latency.stat] : undefined;
  if (def.latency && q !== undefined) {
    out.sample = def.latency.text as LatencySampleName;
    out.quantile = q;
    out.test = q === 0.5 ? 'rank' : 'bootstrap';
  }
  return out;
}

/** Every metric compare shows, in display order (the catalogue's compare rows). */
export const COMPARE_METRICS: readonly CompareMetric[] = [...COMPARE_ROW_IDS, ...EFFICIENCY_ROW_IDS].map(row);

/** Metric keys, for --fail-on-worse validation and help. */
export const COMPARE_METRIC_KEYS: readonly string[] = COMPARE_METRICS.map((m) => m.key);

/** Counts behind a proportion metric: successes x out of n. */
export function proportionCounts(key: string, s: RunSummary): { x: number; n: number } | undefined {
  if (key === 'attainment') return { x: s.goodput.goodRequests, n: s.goodput.attempted };
  if (key === 'error_rate') return { x: failedRequests(s), n: judgedRequests(s) };
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
