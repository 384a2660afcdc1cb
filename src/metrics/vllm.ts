/**
 * Figures of a vLLM `bench serve --save-result` JSON, read through the metric catalogue's
 * vLLM keys: each value exactly as the file states it, and undefined for a figure the file
 * does not hold (older vLLM versions lack some keys; percentiles other than the mean, median,
 * std and p99 need `--percentile-metrics`). Nothing is derived or invented. Pure.
 *
 * @module
 */

import type { MetricDef } from './catalogue.js';

/** A parsed vLLM result: the flat object vLLM writes. */
export type VllmResult = Readonly<Record<string, unknown>>;

/**
 * The figure of one catalogue metric in a vLLM result, or undefined when the metric has no vLLM
 * key or the file lacks it. vLLM writes a median as `median_<latency>_ms` and, when asked with
 * `--metric-percentiles 50`, also as `p50_<latency>_ms`: both are the same statistic.
 */
export function vllmValue(result: VllmResult, def: MetricDef): number | undefined {
  if (!def.vllmKey) return undefined;
  const keys = [def.vllmKey];
  if (def.latency?.stat === 'p50') keys.push(`median_${def.latency.text}_ms`);
  for (const key of keys) {
    const v = result[key];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return undefined;
}
