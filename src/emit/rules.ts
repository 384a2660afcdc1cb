/**
 * Prometheus alerting rules from an ADR, for the probe cadence of `goodput watch`: one alert per
 * gate threshold and one for the rollback rule, each firing after the ADR's duration of bad
 * rounds (see cadence.ts for how "for 5m" becomes rounds and a `for:`), plus an alert that fires
 * when valid rounds stop arriving, so a dead prober is not read as a healthy target. A gate
 * threshold watch cannot judge is left out with the reason, never silently. Pure: returns data
 * and YAML text.
 *
 * Every metric comes from the catalogue (src/metrics/catalogue.ts): an alert reads the catalogue
 * metric's series of watch's exporter, `goodput_round_metric{metric="<id>"}`, which holds the
 * value of the last valid round's summary until the next valid round, the same value `gate` and
 * watch's rollback rule read from that summary. As in the rollback rule, a round in which every
 * request failed is bad for a latency alert (it has no latency to compare).
 *
 * @module
 */

import { stringify } from 'yaml';
import type { AdrFrontMatter } from '../adr/index.js';
import { parseDuration } from '../config/index.js';
import { GoodputError } from '../errors.js';
import { gateSpecThresholds, type ThresholdOp } from '../gate/index.js';
import {
  LAST_VALID_ROUND_SERIES,
  type MetricDef,
  metric,
  metricByAdrName,
  promqlOf,
} from '../metrics/index.js';
import { oneLine } from '../util/index.js';
import {
  alertForMs,
  type Cadence,
  promDuration,
  roundRangeMs,
  roundsFor,
  STALE_ROUNDS,
  staleAfterMs,
} from './cadence.js';

/** One generated threshold alert, with what its test needs. */
export interface ThresholdAlert {
  kind: 'threshold';
  alert: string;
  expr: string;
  /** Prometheus `for:` ((rounds − ½) × every). */
  for: string;
  /** The ADR's duration, as written or given (--gate-for). */
  adrFor: string;
  /** Consecutive bad rounds that make the ADR's duration at the cadence. */
  rounds: number;
  severity: 'warning' | 'critical';
  summary: string;
  /** The catalogue metric, and the bad state: `metric op limit` (limit in the metric's unit). */
  metric: MetricDef;
  op: ThresholdOp;
  limit: number;
}

/** The alert that fires when no valid round arrived for STALE_ROUNDS intervals. */
export interface StaleAlert {
  kind: 'stale';
  /**
   * 'stale': the last valid round is older than staleAfterMs (no `for:`: the age is the wait).
   * 'absent': no round series at all, for staleAfterMs (its `for:`): a start-up grace, so that
   * it does not fire the moment Prometheus starts, before watch's first round is scraped.
   */
  variant: 'stale' | 'absent';
  alert: string;
  expr: string;
  severity: 'warning';
  summary: string;
  /** No valid round for this long (ms). */
  staleAfterMs: number;
  /** Prometheus `for:` ('absent' only). */
  for?: string;
}

export type EmittedAlert = ThresholdAlert | StaleAlert;

/** A gate threshold that has no alert, and why. */
export interface SkippedThreshold {
  threshold: string;
  reason: string;
}

export interface EmittedRules {
  alerts: EmittedAlert[];
  skipped: SkippedThreshold[];
  cadence: Cadence;
}

/** The bad side of a gate comparison: `<= 350` holds, so `> 350` alerts. */
const NEGATED: Record<ThresholdOp, ThresholdOp> = { '<': '>=', '<=': '>', '>': '<=', '>=': '<' };

function camel(s: string): string {
  return s.replace(/(^|_)([a-z0-9])/g, (_m, _u, c: string) => c.toUpperCase());
}

export const above = (op: ThresholdOp) => op === '>' || op === '>=';

function describe(def: MetricDef, op: ThresholdOp, limit: number): string {
  const needs = def.gpu ? ' (watch --gpu-metrics-url)' : '';
  return `${def.label}${needs} ${above(op) ? 'above' : 'below'} ${limit}${def.unit === 'ms' ? ' ms' : ''}`;
}

/** Why watch's rounds cannot judge a metric, or undefined when they can. */
export function unjudgeable(def: MetricDef): string | undefined {
  // GPU figures are measured per round when watch scrapes the DCGM exporter (--gpu-metrics-url).
  if (def.server && !def.gpu)
    return `watch's rounds do not measure server-side figures (${def.id} comes from a run's /metrics series), so goodput_round_metric has no ${def.id} to alert on`;
  if (def.unit === 'count')
    return `${def.id} is a count over the ADR's whole workload; a watch round is a small sample, so its count says nothing about this limit`;
  return undefined;
}

/** The bad-state expression of a metric: its round value on the bad side; for latencies also a round with no success. */
function badExpr(def: MetricDef, op: ThresholdOp, limit: number): string {
  const value = `${promqlOf(def)} ${op} ${limit}`;
  if (!def.latency) return value;
  return `${value} or ${promqlOf(metric('completed'))} == 0`;
}

/**
 * The alerts of an ADR at a cadence. Throws E_ADR when it has neither a gate threshold watch
 * can judge nor a rollback rule.
 */
export function alertsFromAdr(
  fm: AdrFrontMatter,
  opts: { cadence: Cadence; gateFor?: string },
): EmittedRules {
  const { cadence } = opts;
  const gateFor = opts.gateFor ?? '5m';
  const gateRounds = roundsFor(parseDuration(gateFor, '--gate-for'), cadence);
  const alerts: EmittedAlert[] = [];
  const skipped: SkippedThreshold[] = [];
  const names = new Set<string>();
  const unique = (name: string) => {
    let n = name;
    for (let i = 2; names.has(n); i++) n = `${name}${i}`;
    names.add(n);
    return n;
  };
  const threshold = (
    def: MetricDef,
    op: ThresholdOp,
    limit: number,
    a: Pick<ThresholdAlert, 'alert' | 'adrFor' | 'rounds' | 'severity' | 'summary'>,
  ): ThresholdAlert => ({
    kind: 'threshold',
    ...a,
    expr: badExpr(def, op, limit),
    for: promDuration(alertForMs(a.rounds, cadence)),
    metric: def,
    op,
    limit,
  });
  for (const t of gateSpecThresholds(fm.gate ?? {})) {
    // watch exports the run's figures, not a traffic class's: a class's threshold has no series.
    const why =
      t.class !== undefined
        ? `a traffic class's figure ({class=${t.class}}): watch's series are the run's; gate the class with goodput gate`
        : unjudgeable(t.metric);
    if (why) {
      skipped.push({ threshold: t.source, reason: why });
      continue;
    }
    const op = NEGATED[t.op];
    alerts.push(
      threshold(t.metric, op, t.limit, {
        alert: unique(`Goodput${camel(t.metric.id)}${above(op) ? 'Above' : 'Below'}Gate`),
        adrFor: gateFor,
        rounds: gateRounds,
        severity: 'warning',
        summary: `${describe(t.metric, op, t.limit)} for ${gateFor} (gate of ${fm.id})`,
      }),
    );
  }
  const rb = fm.rollback;
  if (rb) {
    const forMs = parseDuration(rb.for, 'rollback.for');
    const def = metricByAdrName(rb.metric);
    if (!def) {
      throw new GoodputError(
        'E_ADR',
        `${fm.id}: rollback.metric '${rb.metric}' is not in the metric catalogue`,
        'use e.g. ttft_p99_ms, tpot_p99_ms, e2el_p99_ms, attainment or error_rate',
      );
    }
    const op: ThresholdOp = rb.above !== undefined ? '>' : '<';
    const limit = (rb.above ?? rb.below)!;
    alerts.push(
      threshold(def, op, limit, {
        alert: unique('GoodputRollback'),
        adrFor: rb.for,
        rounds: roundsFor(forMs, cadence),
        severity: 'critical',
        summary: `${describe(def, op, limit)} for ${rb.for}: roll back (${fm.id})`,
      }),
    );
  }
  if (alerts.length === 0) {
    const why =
      skipped.length > 0 ? ` (${skipped.map((s) => `${s.threshold}: ${s.reason}`).join('; ')})` : '';
    throw new GoodputError(
      'E_ADR',
      `${fm.id}: no gate threshold watch can judge and no rollback rule to turn into alerts${why}`,
      'add gate: { ttft_p99_ms: … } or rollback: { metric: ttft_p99_ms, above: 500, for: 5m } to the ADR',
    );
  }
  const stale = staleAlerts(cadence, fm.id);
  alerts.push({ ...stale.stale, alert: unique(stale.stale.alert) });
  alerts.push({ ...stale.absent, alert: unique(stale.absent.alert) });
  return { alerts, skipped, cadence };
}

/**
 * The staleness alerts: the last valid round is older than STALE_ROUNDS intervals
 * (GoodputProbesStale), or there is no round series at all for as long (GoodputProbesAbsent:
 * watch never ran, or Prometheus does not scrape it). The second waits out its `for:`, a
 * start-up grace: with the two in one expression and no `for:`, the alert fired the moment
 * Prometheus started, before watch's first round.
 */
export function staleAlerts(cadence: Cadence, adrId: string): { stale: StaleAlert; absent: StaleAlert } {
  const after = staleAfterMs(cadence);
  // last_over_time skips the stale markers Prometheus writes when the exporter disappears, so a
  // watch that died still has its targets here, with an age that grows, for the whole range.
  const range = promDuration(Math.max(3_600_000, 4 * (after + roundRangeMs(cadence))));
  const ts = `${LAST_VALID_ROUND_SERIES}[${range}]`;
  const common = { kind: 'stale' as const, severity: 'warning' as const, staleAfterMs: after };
  return {
    stale: {
      ...common,
      variant: 'stale',
      alert: 'GoodputProbesStale',
      expr: `time() - max by (target, model) (last_over_time(${ts})) > ${after / 1000}`,
      summary: `no valid probe round for ${promDuration(after)} (${STALE_ROUNDS} × every): goodput watch stopped, cannot reach Prometheus, or its rounds are invalid; the alerts of ${adrId} see no fresh figures`,
    },
    absent: {
      ...common,
      variant: 'absent',
      alert: 'GoodputProbesAbsent',
      expr: `absent_over_time(${ts})`,
      for: promDuration(after),
      summary: `no probe round at all for ${promDuration(after)} (${STALE_ROUNDS} × every, also the start-up grace): goodput watch is not running or Prometheus does not scrape it; the alerts of ${adrId} see no figures`,
    },
  };
}

/** The annotation of an alert as Prometheus renders it (the target first, where there is one). */
export function alertSummary(a: EmittedAlert): string {
  return a.kind === 'stale' && a.variant === 'absent' ? a.summary : `{{ $labels.target }}: ${a.summary}`;
}

/** The rules file (YAML) for `rule_files:`. */
export function renderRulesYaml(fm: AdrFrontMatter, rules: EmittedRules): string {
  const doc = {
    groups: [
      {
        name: `goodput-${fm.id}`,
        rules: rules.alerts.map((a) => ({
          alert: a.alert,
          expr: a.expr,
          ...(a.for !== undefined ? { for: a.for } : {}),
          labels: { severity: a.severity, adr: fm.id },
          // An absent series has no target label to name.
          annotations: { summary: alertSummary(a), adr: fm.id },
        })),
      },
    ],
  };
  const c = rules.cadence;
  // Comment lines copy text from the ADR: one line each, whatever it holds.
  const head = [
    `# Generated by goodput emit prometheus-rules from ${oneLine(fm.id)}. schemaVersion: 1`,
    `# For goodput watch --every ${promDuration(c.everyMs)} --jitter ${c.jitter}: "for D" is ceil(D / every) consecutive bad`,
    '# rounds; an alert fires half an interval after the last of them (its for: is (rounds - 1/2) x every).',
    `# Needs scrape_interval + 2 x evaluation_interval <= ${promDuration((0.5 - 2 * c.jitter) * c.everyMs)}.`,
    ...rules.skipped.map((s) => `# No alert for gate ${oneLine(s.threshold)}: ${oneLine(s.reason)}.`),
  ];
  return `${head.join('\n')}\n${stringify(doc, { lineWidth: 0 })}`;
}
