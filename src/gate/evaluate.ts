/**
 * Threshold evaluation against a RunSummary (pure), and the shorthand flags and ADR gate
 * keys expressed as thresholds of the same grammar.
 *
 * @module
 */

import type { RunSummary } from '../types.js';
import { parseThreshold, type Threshold, type ThresholdScalar } from './grammar.js';

export interface ThresholdOutcome {
  threshold: Threshold;
  /** The run's value (ms for latencies); undefined when the run did not measure it. */
  value?: number;
  passed: boolean;
}

export interface GateResult {
  passed: boolean;
  outcomes: ThresholdOutcome[];
}

function scalarValue(name: ThresholdScalar, s: RunSummary): number | undefined {
  switch (name) {
    case 'attainment':
      return s.goodput?.attainment;
    case 'error_rate':
      return s.counts.attempted > 0 ? s.counts.failed / s.counts.attempted : undefined;
    case 'request_goodput':
      return s.request_goodput;
    case 'goodput_ratio':
      return s.goodput?.tokenGoodputRatio;
    case 'request_throughput':
      return s.request_throughput;
    case 'output_throughput':
      return s.output_throughput;
    case 'total_token_throughput':
      return s.total_token_throughput;
    case 'completed':
      return s.counts.completed;
    case 'failed':
      return s.counts.failed;
    case 'preemptions':
      return s.server?.preemptions;
    case 'kv_fragmentation':
      return s.server?.kvFragmentation ?? s.server?.series.kvFragmentation?.mean;
    case 'kv_usage_max':
      return s.server?.series.kvUsage?.max;
    case 'prefix_cache_hit_rate':
      return s.server?.prefixCacheHitRate;
  }
}

/** The value a threshold reads from a summary, or undefined when the run did not measure it. */
export function thresholdValue(t: Threshold, s: RunSummary): number | undefined {
  if (t.subject.kind === 'scalar') return scalarValue(t.subject.name, s);
  const stats = s.latency?.[t.subject.latency];
  if (!stats || stats.count === 0) return undefined;
  return stats[t.subject.stat];
}

/** Whether a measured value satisfies the threshold's comparison. */
export function thresholdHolds(value: number, t: Threshold): boolean {
  switch (t.op) {
    case '<':
      return value < t.limit;
    case '<=':
      return value <= t.limit;
    case '>':
      return value > t.limit;
    case '>=':
      return value >= t.limit;
  }
}

/**
 * Evaluates every threshold. A threshold whose value the run did not measure fails: a gate
 * that cannot see a figure must not pass it.
 */
export function evaluateThresholds(thresholds: readonly Threshold[], summary: RunSummary): GateResult {
  const outcomes = thresholds.map((threshold): ThresholdOutcome => {
    const value = thresholdValue(threshold, summary);
    if (value === undefined || Number.isNaN(value)) return { threshold, passed: false };
    return { threshold, value, passed: thresholdHolds(value, threshold) };
  });
  return { passed: outcomes.every((o) => o.passed), outcomes };
}

/** The shorthand flags of `gate`, as camelCase option keys → the threshold each one writes. */
export const SHORTHAND_THRESHOLDS: ReadonlyArray<{
  flag: string;
  key: string;
  template: (v: number) => string;
}> = [
  { flag: 'max-ttft-p99-ms', key: 'maxTtftP99Ms', template: (v) => `p99(ttft)<=${v}` },
  { flag: 'max-tpot-p99-ms', key: 'maxTpotP99Ms', template: (v) => `p99(tpot)<=${v}` },
  { flag: 'max-e2el-p99-ms', key: 'maxE2elP99Ms', template: (v) => `p99(e2el)<=${v}` },
  { flag: 'min-goodput-ratio', key: 'minGoodputRatio', template: (v) => `goodput_ratio>=${v}` },
  { flag: 'min-attainment', key: 'minAttainment', template: (v) => `attainment>=${v}` },
  { flag: 'max-error-rate', key: 'maxErrorRate', template: (v) => `error_rate<=${v}` },
];

/** Thresholds from shorthand option values (keys as in SHORTHAND_THRESHOLDS). */
export function shorthandThresholds(options: Record<string, unknown>): Threshold[] {
  const out: Threshold[] = [];
  for (const s of SHORTHAND_THRESHOLDS) {
    const v = options[s.key];
    if (typeof v === 'number') out.push(parseThreshold(s.template(v)));
  }
  return out;
}

/** An ADR's `gate` block (see src/adr): named limits plus free threshold expressions. */
export interface GateSpec {
  ttft_p99_ms?: number;
  tpot_p99_ms?: number;
  e2el_p99_ms?: number;
  /** Minimum token goodput ratio (useful / generated output tokens). */
  goodput_min?: number;
  /** Minimum SLO attainment. */
  attainment_min?: number;
  error_rate_max?: number;
  thresholds?: string[];
}

/** The thresholds an ADR's gate block stands for, in the grammar of this module. */
export function gateSpecThresholds(spec: GateSpec): Threshold[] {
  const texts: string[] = [];
  if (spec.ttft_p99_ms !== undefined) texts.push(`p99(ttft)<=${spec.ttft_p99_ms}`);
  if (spec.tpot_p99_ms !== undefined) texts.push(`p99(tpot)<=${spec.tpot_p99_ms}`);
  if (spec.e2el_p99_ms !== undefined) texts.push(`p99(e2el)<=${spec.e2el_p99_ms}`);
  if (spec.goodput_min !== undefined) texts.push(`goodput_ratio>=${spec.goodput_min}`);
  if (spec.attainment_min !== undefined) texts.push(`attainment>=${spec.attainment_min}`);
  if (spec.error_rate_max !== undefined) texts.push(`error_rate<=${spec.error_rate_max}`);
  texts.push(...(spec.thresholds ?? []));
  return texts.map(parseThreshold);
}
