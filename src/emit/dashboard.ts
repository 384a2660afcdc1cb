/**
 * A Grafana dashboard from an ADR, over the series of watch's exporter. Pure: returns JSON text.
 *
 * - Per-round figures come from `goodput_round_metric{metric="<id>"}` (the catalogue metric of
 *   the last valid round, held until the next one), so a panel has a value at every step
 *   whatever the cadence, and it is the figure gate, the rollback rule and the alerts read.
 * - Each ADR gate or rollback limit is a threshold line on the panel of its metric.
 * - Counters are shown as `increase(…[R])` with R = two probe intervals plus jitter
 *   (cadence.ts `roundRangeMs`): every window holds at least one round, so no step is empty.
 * - Units per panel follow what the panel plots: ms for latencies in ms, seconds for ages and
 *   lags, 0..1 ratios as percent, counts as plain numbers — one unit per panel.
 * - A `datasource` variable (no `__inputs`): import it into any Grafana and pick the Prometheus.
 *
 * @module
 */

import type { AdrFrontMatter } from '../adr/index.js';
import { gateSpecThresholds, type ThresholdOp } from '../gate/index.js';
import {
  LAST_VALID_ROUND_SERIES,
  type MetricDef,
  type MetricUnit,
  metric,
  metricByAdrName,
  ROUND_METRIC_SERIES,
} from '../metrics/index.js';
import { type Cadence, promDuration, roundRangeMs, staleAfterMs } from './cadence.js';
import { unjudgeable } from './rules.js';

/** Grafana's unit of each catalogue unit. */
export const GRAFANA_UNIT: Record<MetricUnit, string> = {
  ms: 'ms',
  ratio: 'percentunit',
  'req/s': 'reqps',
  'sessions/s': 'short',
  'tok/s': 'short',
  count: 'short',
  W: 'watt',
  MiB: 'mbytes',
  'J/tok': 'short',
  'tok/J': 'short',
  'cost/Mtok': 'short',
};

/** A limit drawn on a panel, and whether values above it are the bad side. */
interface Line {
  value: number;
  badAbove: boolean;
}

interface Target {
  expr: string;
  legend: string;
}

interface PanelSpec {
  title: string;
  description: string;
  unit: string;
  targets: Target[];
  lines?: Line[];
  /** Axis bounds (ratios 0..1). */
  min?: number;
  max?: number;
}

// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a JS template
const DS = { type: 'prometheus', uid: '${datasource}' };
const SEL = 'target=~"$target"';

function roundMetric(id: string): string {
  return `max by (target, model) (${ROUND_METRIC_SERIES}{metric="${id}",${SEL}})`;
}

/** Every limit the ADR sets, by catalogue metric id. */
function adrLimits(fm: AdrFrontMatter): Map<string, Line[]> {
  const out = new Map<string, Line[]>();
  const add = (def: MetricDef, badOp: ThresholdOp, value: number) => {
    // watch does not export it (see emit prometheus-rules' note): no panel would have data.
    if (unjudgeable(def)) return;
    const lines = out.get(def.id) ?? [];
    if (!lines.some((l) => l.value === value))
      lines.push({ value, badAbove: badOp === '>' || badOp === '>=' });
    out.set(def.id, lines);
  };
  // A traffic class's threshold is no line on the run's panels.
  for (const t of gateSpecThresholds(fm.gate ?? {}))
    if (t.class === undefined) add(t.metric, t.op === '<' || t.op === '<=' ? '>' : '<', t.limit);
  const rb = fm.rollback;
  const def = rb ? metricByAdrName(rb.metric) : undefined;
  if (rb && def) add(def, rb.above !== undefined ? '>' : '<', (rb.above ?? rb.below)!);
  return out;
}

const LATENCIES = [
  ['ttft', 'TTFT'],
  ['tpot', 'TPOT'],
  ['itl', 'ITL'],
  ['e2el', 'E2EL'],
] as const;

/** The quantile a latency statistic stands for, when it is one. */
const QUANTILE: Record<string, number> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 };

/** The dashboard's panels, in order: latencies, the other figures, shares within each limit, the probes. */
function panels(fm: AdrFrontMatter, cadence: Cadence): PanelSpec[] {
  const limits = adrLimits(fm);
  const range = promDuration(roundRangeMs(cadence));
  const used = new Set<string>();
  return [
    ...latencyPanels(fm, limits, used),
    ...figurePanels(fm, limits, used),
    ...withinLimitPanels(limits, range),
    ...probePanels(fm, cadence, range),
  ];
}

const linesOf = (limits: Map<string, Line[]>, ids: string[]) => ids.flatMap((id) => limits.get(id) ?? []);

/** One panel per latency: its p50, p99 and every statistic the ADR limits, with the limits as lines. */
function latencyPanels(fm: AdrFrontMatter, limits: Map<string, Line[]>, used: Set<string>): PanelSpec[] {
  const out: PanelSpec[] = [];
  for (const [lat, label] of LATENCIES) {
    const ids = [`${lat}_p50`, `${lat}_p99`];
    for (const id of limits.keys()) if (metric(id).latency?.text === lat && !ids.includes(id)) ids.push(id);
    for (const id of ids) used.add(id);
    out.push({
      title: `${label} per round (${ids.map((id) => metric(id).latency!.stat).join(', ')})`,
      description: `${label} statistics of each valid probe round, as gate reads them; lines: the limits of ${fm.id}.`,
      unit: 'ms',
      targets: ids.map((id) => ({ expr: roundMetric(id), legend: `{{target}} ${metric(id).latency!.stat}` })),
      lines: linesOf(limits, ids),
    });
  }
  return out;
}

/** Attainment, goodput ratio, error rate and every other figure the ADR limits (`used`: already drawn). */
function figurePanels(fm: AdrFrontMatter, limits: Map<string, Line[]>, used: Set<string>): PanelSpec[] {
  const out: PanelSpec[] = [];
  for (const id of ['attainment', 'goodput_ratio', 'error_rate', ...limits.keys()]) {
    if (used.has(id)) continue;
    used.add(id);
    const def = metric(id);
    out.push({
      title: `${def.label} per round`,
      description: `${def.label} of each valid probe round, as gate reads it; lines: the limits of ${fm.id}.`,
      unit: GRAFANA_UNIT[def.unit],
      targets: [{ expr: roundMetric(id), legend: '{{target}}' }],
      lines: linesOf(limits, [id]),
      ...(def.unit === 'ratio' ? { min: 0, max: 1 } : {}),
    });
  }
  return out;
}

/**
 * Exact shares within each latency limit: every ADR latency limit is a bucket boundary of the
 * exporter's histograms when watch runs with --adr.
 */
function withinLimitPanels(limits: Map<string, Line[]>, range: string): PanelSpec[] {
  const out: PanelSpec[] = [];
  for (const [id, lines] of limits) {
    const def = metric(id);
    const q = def.latency ? QUANTILE[def.latency.stat] : undefined;
    const name = def.latency?.text;
    if (q === undefined || !(name === 'ttft' || name === 'tpot' || name === 'itl' || name === 'e2el'))
      continue;
    for (const l of lines) {
      const le = String(l.value / 1000);
      const series = `goodput_${name}_seconds`;
      out.push({
        title: `Share of probe requests with ${def.latency!.text.toUpperCase()} within ${l.value} ms (per ${range})`,
        description: `Exact at the bucket boundary ${le} s (watch --adr makes every ADR limit a boundary). ${def.label} <= ${l.value} ms holds while this share is at least ${q}.`,
        unit: 'percentunit',
        min: 0,
        max: 1,
        targets: [
          {
            expr: `sum by (target) (increase(${series}_bucket{le="${le}",${SEL}}[${range}])) / sum by (target) (increase(${series}_count{${SEL}}[${range}]))`,
            legend: '{{target}}',
          },
        ],
        lines: [{ value: q, badAbove: false }],
      });
    }
  }
  return out;
}

/** The probes themselves: outcomes, errors, validity, staleness, the prober's lag, the server's gauges, rollbacks. */
function probePanels(fm: AdrFrontMatter, cadence: Cadence, range: string): PanelSpec[] {
  const perRange = (title: string, description: string, expr: string, legend: string): PanelSpec => ({
    title: `${title} (per ${range})`,
    description: `${description} Counted over ${range}: two probe intervals plus jitter, so every window holds a round.`,
    unit: 'short',
    targets: [{ expr, legend }],
  });
  return [
    perRange(
      'Probe requests by outcome',
      'Probe requests sent by watch, by outcome.',
      `sum by (target, outcome) (increase(goodput_requests_total{${SEL}}[${range}]))`,
      '{{target}} {{outcome}}',
    ),
    perRange(
      'Failed probe requests by error code',
      'Failed probe requests by goodput error code.',
      `sum by (target, code) (increase(goodput_request_errors_total{${SEL}}[${range}]))`,
      '{{target}} {{code}}',
    ),
    perRange(
      'Probe rounds by validity',
      'Rounds; valid="false" when the prober itself was the bottleneck (not held against the target).',
      `sum by (target, valid) (increase(goodput_rounds_total{${SEL}}[${range}]))`,
      '{{target}} valid={{valid}}',
    ),
    {
      title: 'Time since the last valid round',
      description: `Age of the figures above; the line is where GoodputProbesStale fires (${promDuration(staleAfterMs(cadence))}: 3 × every).`,
      unit: 's',
      targets: [
        {
          expr: `time() - max by (target, model) (${LAST_VALID_ROUND_SERIES}{${SEL}})`,
          legend: '{{target}}',
        },
      ],
      lines: [{ value: staleAfterMs(cadence) / 1000, badAbove: true }],
    },
    {
      title: "Prober's own lag (last round)",
      description: 'Worst of event-loop delay p99, dispatch lag and timer drift in the last round.',
      unit: 's',
      targets: [
        { expr: `max by (target, model) (goodput_prober_lag_seconds{${SEL}})`, legend: '{{target}}' },
      ],
    },
    {
      title: 'Server KV-cache usage (end of the last round, when scraped)',
      description: "The server's KV-cache usage, 0..1, from its /metrics.",
      unit: 'percentunit',
      min: 0,
      max: 1,
      targets: [
        {
          expr: `max by (target, model) (goodput_server_kv_cache_usage_ratio{${SEL}})`,
          legend: '{{target}}',
        },
      ],
    },
    {
      title: 'Server waiting requests (end of the last round, when scraped)',
      description: "Requests in the server's queue, from its /metrics.",
      unit: 'short',
      targets: [
        { expr: `max by (target, model) (goodput_server_waiting_requests{${SEL}})`, legend: '{{target}}' },
      ],
    },
    perRange(
      'Server preemptions during probes',
      'Preemptions the server counted during probing rounds.',
      `sum by (target) (increase(goodput_server_preemptions_total{${SEL}}[${range}]))`,
      '{{target}}',
    ),
    perRange(
      'Rollbacks triggered',
      `Rollbacks watch's rollback rule triggered (${fm.id}).`,
      `sum by (target) (increase(goodput_rollbacks_total{${SEL}}[${range}]))`,
      '{{target}}',
    ),
  ];
}

function thresholds(lines: Line[]) {
  const sorted = [...lines].sort((a, b) => a.value - b.value);
  // Colours by side: below the lowest limit is good when values above are bad, and the reverse.
  const badAbove = sorted[0]?.badAbove ?? true;
  const steps: Array<{ color: string; value: number | null }> = [
    { color: badAbove ? 'green' : 'red', value: null },
  ];
  sorted.forEach((l, i) => {
    const last = i === sorted.length - 1;
    steps.push({ color: l.badAbove ? (last ? 'red' : 'orange') : last ? 'green' : 'orange', value: l.value });
  });
  return { mode: 'absolute', steps };
}

function panelJson(p: PanelSpec, i: number) {
  const lines = p.lines ?? [];
  return {
    id: i + 1,
    type: 'timeseries',
    title: p.title,
    description: p.description,
    datasource: DS,
    gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
    fieldConfig: {
      defaults: {
        unit: p.unit,
        ...(p.min !== undefined ? { min: p.min } : {}),
        ...(p.max !== undefined ? { max: p.max } : {}),
        custom: { thresholdsStyle: { mode: lines.length > 0 ? 'line' : 'off' }, spanNulls: false },
        thresholds:
          lines.length > 0
            ? thresholds(lines)
            : { mode: 'absolute', steps: [{ color: 'green', value: null }] },
      },
      overrides: [],
    },
    options: { legend: { displayMode: 'list', placement: 'bottom' }, tooltip: { mode: 'multi' } },
    targets: p.targets.map((t, k) => ({
      refId: String.fromCharCode(65 + k),
      datasource: DS,
      expr: t.expr,
      legendFormat: t.legend,
    })),
  };
}

/** The dashboard JSON of an ADR at a cadence. */
export function renderDashboard(fm: AdrFrontMatter, cadence: Cadence): string {
  const range = promDuration(roundRangeMs(cadence));
  const dash = {
    title: `goodput watch: ${fm.id} ${fm.title}`,
    uid: `goodput-${fm.id.toLowerCase()}`,
    description: `Generated by goodput emit grafana-dashboard from ${fm.id} for watch --every ${promDuration(cadence.everyMs)} --jitter ${cadence.jitter}. schemaVersion: 1`,
    schemaVersion: 39,
    version: 1,
    editable: true,
    tags: ['goodput', fm.id],
    time: { from: 'now-24h', to: 'now' },
    refresh: '1m',
    templating: {
      list: [
        { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus' },
        {
          name: 'target',
          label: 'Target',
          type: 'query',
          datasource: DS,
          query: 'label_values(goodput_rounds_total, target)',
          definition: 'label_values(goodput_rounds_total, target)',
          includeAll: true,
          multi: true,
          allValue: '.*',
          current: { text: 'All', value: '$__all' },
          refresh: 2,
        },
      ],
    },
    annotations: {
      list: [
        {
          name: 'Rollbacks',
          enable: true,
          iconColor: 'red',
          datasource: DS,
          expr: `sum by (target) (increase(goodput_rollbacks_total{${SEL}}[${range}])) > 0`,
          step: range,
          titleFormat: 'rollback {{target}}',
          textFormat: `rollback rule of ${fm.id} triggered for {{target}}`,
        },
      ],
    },
    panels: panels(fm, cadence).map(panelJson),
  };
  return `${JSON.stringify(dash, null, 2)}\n`;
}
