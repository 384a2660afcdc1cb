/**
 * Prometheus alerting rules from an ADR: one alert per gate threshold (latency p99 from the
 * exporter's histograms, SLO attainment, error rate) and one for the rollback rule with its
 * `for:`, plus a `promtool test rules` file that shows each alert firing on series that breach
 * it and staying quiet on series that do not. Pure: returns YAML text.
 *
 * Latency thresholds are bucket boundaries of the exporter (watch adds every ADR threshold),
 * so `histogram_quantile` interpolates inside the right bucket at the limit.
 *
 * @module
 */

import { stringify } from 'yaml';
import type { AdrFrontMatter } from '../adr/index.js';
import { parseDuration } from '../config/index.js';
import { GoodputError } from '../errors.js';

/** One generated alert, with what its test needs. */
export interface EmittedAlert {
  alert: string;
  expr: string;
  for: string;
  severity: 'warning' | 'critical';
  summary: string;
  /** How the test provokes it. */
  provoke:
    | { kind: 'latency'; latency: string; quantile: number; limitS: number }
    | { kind: 'ratio'; metric: 'attainment' | 'error_rate'; limit: number; above: boolean };
}

const LAT = /^(ttft|tpot|itl|e2el)_(p50|p90|p95|p99)_ms$/;
const QUANTILE: Record<string, number> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };

function camel(s: string): string {
  return s.replace(/(^|_)([a-z0-9])/g, (_m, _u, c: string) => c.toUpperCase());
}

function latencyExpr(latency: string, quantile: number, limitS: number, rangeS: string): string {
  return `histogram_quantile(${quantile}, sum by (target, model, le) (rate(goodput_${latency}_seconds_bucket[${rangeS}]))) > ${limitS}`;
}

const ERROR_RATE = (range: string) =>
  `sum by (target, model) (rate(goodput_request_errors_total[${range}])) / sum by (target, model) (rate(goodput_requests_total[${range}]))`;

/** The alerts of an ADR. Throws E_ADR when it has neither gate thresholds nor a rollback rule. */
export function alertsFromAdr(
  fm: AdrFrontMatter,
  opts: { range?: string; gateFor?: string } = {},
): EmittedAlert[] {
  const range = opts.range ?? '5m';
  const gateFor = opts.gateFor ?? '5m';
  const alerts: EmittedAlert[] = [];
  const gate = fm.gate ?? {};
  for (const key of ['ttft_p99_ms', 'tpot_p99_ms', 'e2el_p99_ms'] as const) {
    const limit = gate[key];
    if (limit === undefined) continue;
    const [, latency, stat] = LAT.exec(key)!;
    const limitS = limit / 1000;
    alerts.push({
      alert: `Goodput${camel(latency!)}${camel(stat!)}AboveGate`,
      expr: latencyExpr(latency!, QUANTILE[stat!]!, limitS, range),
      for: gateFor,
      severity: 'warning',
      summary: `${latency!.toUpperCase()} ${stat} above ${limit} ms (gate of ${fm.id})`,
      provoke: { kind: 'latency', latency: latency!, quantile: QUANTILE[stat!]!, limitS },
    });
  }
  if (gate.attainment_min !== undefined) {
    alerts.push({
      alert: 'GoodputSloAttainmentBelowGate',
      expr: `goodput_slo_attainment_ratio < ${gate.attainment_min}`,
      for: gateFor,
      severity: 'warning',
      summary: `SLO attainment below ${gate.attainment_min} (gate of ${fm.id})`,
      provoke: { kind: 'ratio', metric: 'attainment', limit: gate.attainment_min, above: false },
    });
  }
  if (gate.error_rate_max !== undefined) {
    alerts.push({
      alert: 'GoodputErrorRateAboveGate',
      expr: `${ERROR_RATE(range)} > ${gate.error_rate_max}`,
      for: gateFor,
      severity: 'warning',
      summary: `probe error rate above ${gate.error_rate_max} (gate of ${fm.id})`,
      provoke: { kind: 'ratio', metric: 'error_rate', limit: gate.error_rate_max, above: true },
    });
  }
  const rb = fm.rollback;
  if (rb) {
    parseDuration(rb.for, 'rollback.for');
    const above = rb.above !== undefined;
    const limit = (rb.above ?? rb.below)!;
    const op = above ? '>' : '<';
    const lat = LAT.exec(rb.metric);
    let expr: string;
    let provoke: EmittedAlert['provoke'];
    if (lat) {
      const limitS = limit / 1000;
      const q = QUANTILE[lat[2]!]!;
      expr = `histogram_quantile(${q}, sum by (target, model, le) (rate(goodput_${lat[1]}_seconds_bucket[${range}]))) ${op} ${limitS}`;
      provoke = { kind: 'latency', latency: lat[1]!, quantile: q, limitS };
      if (!above)
        throw new GoodputError(
          'E_ADR',
          `${fm.id}: rollback on ${rb.metric} below a limit is not supported`,
          'use above: for latencies',
        );
    } else if (rb.metric === 'attainment') {
      expr = `goodput_slo_attainment_ratio ${op} ${limit}`;
      provoke = { kind: 'ratio', metric: 'attainment', limit, above };
    } else if (rb.metric === 'error_rate') {
      expr = `${ERROR_RATE(range)} ${op} ${limit}`;
      provoke = { kind: 'ratio', metric: 'error_rate', limit, above };
    } else {
      throw new GoodputError(
        'E_ADR',
        `${fm.id}: rollback.metric '${rb.metric}' has no Prometheus series`,
        'use ttft_p99_ms, tpot_p99_ms, itl_p99_ms, e2el_p99_ms, attainment or error_rate',
      );
    }
    alerts.push({
      alert: 'GoodputRollback',
      expr,
      for: rb.for,
      severity: 'critical',
      summary: `${rb.metric} ${above ? 'above' : 'below'} ${limit} for ${rb.for}: roll back (${fm.id})`,
      provoke,
    });
  }
  if (alerts.length === 0) {
    throw new GoodputError(
      'E_ADR',
      `${fm.id}: no gate threshold and no rollback rule to turn into alerts`,
      'add gate: { ttft_p99_ms: … } or rollback: { metric: ttft_p99_ms, above: 500, for: 5m } to the ADR',
    );
  }
  return alerts;
}

/** The rules file (YAML) for `rule_files:`. */
export function renderRulesYaml(fm: AdrFrontMatter, alerts: EmittedAlert[]): string {
  const doc = {
    groups: [
      {
        name: `goodput-${fm.id}`,
        rules: alerts.map((a) => ({
          alert: a.alert,
          expr: a.expr,
          for: a.for,
          labels: { severity: a.severity, adr: fm.id },
          annotations: { summary: `{{ $labels.target }}: ${a.summary}`, adr: fm.id },
        })),
      },
    ],
  };
  return `# Generated by goodput emit prometheus-rules from ${fm.id}. schemaVersion: 1\n${stringify(doc, { lineWidth: 0 })}`;
}

/** Minutes (whole, at least 1) in a Prometheus duration such as 5m or 90s. */
function minutes(d: string): number {
  return Math.max(1, Math.ceil(parseDuration(d, 'for') / 60_000));
}

/**
 * A `promtool test rules` file: a "bad" target whose series breach every alert from t=0 and a
 * "good" one that never does; each alert must fire for "bad" only, once its `for:` has passed
 * (evaluated after for + range + 2m, so the rate window is full).
 */
export function renderRulesTest(rulesFile: string, alerts: EmittedAlert[], fm: AdrFrontMatter): string {
  const series: Array<{ series: string; values: string }> = [];
  const lab = (target: string, extra = '') => `target="${target}",model="m"${extra}`;
  const steps = 40;
  const added = new Set<string>();
  const add = (s: string, values: string) => {
    if (added.has(s)) return;
    added.add(s);
    series.push({ series: s, values });
  };
  for (const a of alerts) {
    const p = a.provoke;
    if (p.kind === 'latency') {
      // bad: every observation above the limit (between limit and 2×limit); good: all below limit/2.
      for (const [target, low, high] of [
        ['bad', 0, 10],
        ['good', 10, 10],
      ] as const) {
        const name = `goodput_${p.latency}_seconds_bucket`;
        add(`${name}{${lab(target, `,le="${p.limitS / 2}"`)}}`, `0+${low}x${steps}`);
        add(`${name}{${lab(target, `,le="${p.limitS}"`)}}`, `0+${low}x${steps}`);
        add(`${name}{${lab(target, `,le="${p.limitS * 2}"`)}}`, `0+${high}x${steps}`);
        add(`${name}{${lab(target, ',le="+Inf"')}}`, `0+${high}x${steps}`);
      }
    } else if (p.metric === 'attainment') {
      const bad = p.above ? Math.min(1, p.limit + 0.05) : Math.max(0, p.limit - 0.05);
      const good = p.above ? Math.max(0, p.limit - 0.05) : Math.min(1, p.limit + 0.05);
      add(`goodput_slo_attainment_ratio{${lab('bad')}}`, `${bad}x${steps}`);
      add(`goodput_slo_attainment_ratio{${lab('good')}}`, `${good}x${steps}`);
    } else {
      // 100 requests a minute; errors at 2× (bad) and 0.5× (good) the limit.
      const badErr = Math.min(100, Math.max(1, p.limit * 200));
      const goodErr = p.limit * 50;
      add(`goodput_requests_total{${lab('bad', ',outcome="success"')}}`, `0+${100 - badErr}x${steps}`);
      add(`goodput_requests_total{${lab('bad', ',outcome="error"')}}`, `0+${badErr}x${steps}`);
      add(`goodput_request_errors_total{${lab('bad', ',code="HTTP_SERVER_ERROR"')}}`, `0+${badErr}x${steps}`);
      add(`goodput_requests_total{${lab('good', ',outcome="success"')}}`, `0+${100 - goodErr}x${steps}`);
      add(`goodput_requests_total{${lab('good', ',outcome="error"')}}`, `0+${goodErr}x${steps}`);
      add(
        `goodput_request_errors_total{${lab('good', ',code="HTTP_SERVER_ERROR"')}}`,
        `0+${goodErr}x${steps}`,
      );
    }
  }
  const alertTests = alerts.flatMap((a) => {
    const at = minutes(a.for) + 7;
    const before = Math.max(0, minutes(a.for) - 1);
    const firing = {
      eval_time: `${at}m`,
      alertname: a.alert,
      exp_alerts: [
        {
          exp_labels: { severity: a.severity, adr: fm.id, target: 'bad', model: 'm' },
          exp_annotations: { summary: `bad: ${a.summary}`, adr: fm.id },
        },
      ],
    };
    // Before `for:` has passed since the first breach (at 1m, when rate() has two points), nothing fires.
    const quiet = { eval_time: `${before}m`, alertname: a.alert, exp_alerts: [] };
    return [quiet, firing];
  });
  const doc = {
    rule_files: [rulesFile],
    evaluation_interval: '1m',
    tests: [{ interval: '1m', input_series: series, alert_rule_test: alertTests }],
  };
  return `# Generated by goodput emit prometheus-rules from ${fm.id}: run with promtool test rules\n${stringify(doc, { lineWidth: 0 })}`;
}
