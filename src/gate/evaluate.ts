/**
 * Threshold evaluation against a RunSummary (pure), and the shorthand flags and ADR gate
 * keys expressed as thresholds of the same grammar.
 *
 * @module
 */

import { ADR_GATE_KEYS, classView, type MetricDef, metric, metricByAdrGateKey } from '../metrics/index.js';
import type { RunSummary } from '../types.js';
import { parseThreshold, type Threshold } from './grammar.js';

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

/**
 * The value a threshold reads from a summary (its catalogue metric's; with `{class=NAME}`, the
 * class's), or undefined when the run did not measure it (or has no such class).
 */
export function thresholdValue(t: Threshold, s: RunSummary): number | undefined {
  if (t.class === undefined) return t.metric.read(s);
  const view = classView(s, t.class);
  return view === undefined ? undefined : t.metric.read(view);
}

/** The classes thresholds name that the run does not have (each once, in order). */
export function missingClasses(thresholds: readonly Threshold[], s: RunSummary): string[] {
  const have = new Set((s.classes ?? []).map((c) => c.name));
  return [
    ...new Set(thresholds.flatMap((t) => (t.class !== undefined && !have.has(t.class) ? [t.class] : []))),
  ];
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
  return evaluateThresholdsWith(thresholds, (t) => thresholdValue(t, summary));
}

/**
 * Evaluates every threshold on the values `readValue` gives (e.g. a vLLM result's, read by the
 * catalogue's vLLM keys); an undefined value fails, as in {@link evaluateThresholds}.
 */
export function evaluateThresholdsWith(
  thresholds: readonly Threshold[],
  readValue: (t: Threshold) => number | undefined,
): GateResult {
  const outcomes = thresholds.map((threshold): ThresholdOutcome => {
    const value = readValue(threshold);
    if (value === undefined || Number.isNaN(value)) return { threshold, passed: false };
    return { threshold, value, passed: thresholdHolds(value, threshold) };
  });
  return { passed: outcomes.every((o) => o.passed), outcomes };
}

/** The metrics that have a shorthand flag on `gate` (a limit on the bad side of each). */
const SHORTHAND_METRICS = ['ttft_p99', 'tpot_p99', 'e2el_p99', 'goodput_ratio', 'attainment', 'error_rate'];

function camelCase(kebab: string): string {
  return kebab.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** The comparison that keeps a metric on its good side: `<=` for lower-is-better, `>=` otherwise. */
export function limitOp(def: MetricDef): '<=' | '>=' {
  return def.better === 'lower' ? '<=' : '>=';
}

/**
 * The shorthand flags of `gate`, from the catalogue: `--max-ttft-p99-ms`, `--min-attainment`, …
 * (`max` for metrics where lower is better, `-ms` for latencies), as camelCase option keys →
 * the threshold each one writes.
 */
export const SHORTHAND_THRESHOLDS: ReadonlyArray<{
  flag: string;
  key: string;
  metric: MetricDef;
  template: (v: number) => string;
}> = SHORTHAND_METRICS.map((id) => {
  const def = metric(id);
  const flag = `${def.better === 'lower' ? 'max' : 'min'}-${def.id.replaceAll('_', '-')}${def.unit === 'ms' ? '-ms' : ''}`;
  return {
    flag,
    key: camelCase(flag),
    metric: def,
    template: (v: number) => `${def.threshold}${limitOp(def)}${v}`,
  };
});

/** Thresholds from shorthand option values (keys as in SHORTHAND_THRESHOLDS). */
export function shorthandThresholds(values: Readonly<Record<string, number>>): Threshold[] {
  const out: Threshold[] = [];
  for (const s of SHORTHAND_THRESHOLDS) {
    const v = values[s.key];
    if (v !== undefined) out.push(parseThreshold(s.template(v)));
  }
  return out;
}

/**
 * An ADR's `gate` block (see src/adr): a limit per catalogue metric under its ADR gate key
 * (`ttft_p99_ms: 350` is a maximum, `attainment_min: 0.95` a minimum; see
 * MetricDef.adrGateKey), plus free threshold expressions and the informational headroom.
 */
export interface GateSpec {
  thresholds?: string[];
  /** How the limits were derived (informational, not a limit). */
  headroom?: number;
  [adrGateKey: string]: number | string[] | undefined;
}

/** The limit an ADR gate block sets under a gate key (e.g. "ttft_p99_ms"), or undefined. */
export function gateLimit(spec: GateSpec | undefined, key: string): number | undefined {
  const v = spec?.[key];
  return typeof v === 'number' ? v : undefined;
}

/** The threshold an ADR gate key and limit stand for, e.g. ttft_p99_ms: 350 → "p99(ttft)<=350". */
export function adrGateThresholdText(key: string, limit: number): string | undefined {
  const def = metricByAdrGateKey(key);
  return def ? `${def.threshold}${limitOp(def)}${limit}` : undefined;
}

/** The thresholds an ADR's gate block stands for, in the grammar of this module (catalogue order, then `thresholds`). */
export function gateSpecThresholds(spec: GateSpec): Threshold[] {
  const texts: string[] = [];
  for (const key of ADR_GATE_KEYS) {
    const limit = spec[key];
    if (typeof limit === 'number') texts.push(adrGateThresholdText(key, limit)!);
  }
  texts.push(...(spec.thresholds ?? []));
  return texts.map(parseThreshold);
}
