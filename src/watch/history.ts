/**
 * Renderers of `goodput history`: the trend table (one line per window: rounds, attainment,
 * errors, p50/p99 of TTFT, TPOT, ITL and E2EL recomputed from merged histograms), its JSON
 * and CSV, and a self-contained HTML page with uPlot charts (the report module's inlined uPlot).
 * Renderers return strings.
 *
 * @module
 */

import { formatThreshold, type Threshold } from '../gate/index.js';
import { latencyMetricOf, latencyTitle, metric } from '../metrics/index.js';
import {
  type ChartAssets,
  type ChartLimit,
  type ChartMarker,
  type ChartSeries,
  type ChartSpec,
  dataTable,
  renderTrendPage,
  type TrendSection,
  type XY,
} from '../report/html/index.js';
// gpu-summary.ts alone: server-metrics' index loads its scrapers and the HTTP client too.
import { withGpu } from '../server-metrics/gpu-summary.js';
import { STORED_LATENCIES, type StoredRollback, type WindowFigures } from '../store/index.js';
import type { RunSummary, Slo } from '../types.js';
import { csvLine, escapeHtml } from '../util/index.js';

function fmt(ms: number, count: number): string {
  if (count === 0) return '-';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : ms.toFixed(1);
}

const TABLE_HEAD = [
  'target',
  'window start (UTC)',
  'rounds',
  'attain',
  'errors',
  'ttft p50',
  'ttft p99',
  'tpot p50',
  'tpot p99',
  'itl p99',
  'e2el p99',
] as const;

/** The catalogue's GPU figures a history window shows (`watch --gpu-metrics-url`). */
export const HISTORY_GPU_METRICS = ['gpu_util', 'gpu_gr_active', 'gpu_fb_used_peak', 'gpu_power'] as const;

/**
 * A GPU figure of a window, read by the catalogue from a summary that holds only the window's
 * merged GPU block, exactly as it reads a run's or a round's. Undefined: no GPU sample.
 */
export function windowGpuMetric(
  w: WindowFigures,
  id: (typeof HISTORY_GPU_METRICS)[number],
): number | undefined {
  if (!w.gpu || w.gpu.samples === 0) return undefined;
  const server = withGpu(undefined, { ...w.gpu, metricsUrl: '', gpus: [] });
  return metric(id).read({ server } as RunSummary);
}

const hasGpu = (windows: WindowFigures[]) => windows.some((w) => w.gpu !== undefined);

/** The table's GPU cells: mean utilisation (%) and peak framebuffer used (GiB); '-' without a sample. */
function gpuCells(w: WindowFigures): string[] {
  const util = windowGpuMetric(w, 'gpu_util');
  const fb = windowGpuMetric(w, 'gpu_fb_used_peak');
  return [
    util === undefined ? '-' : `${(util * 100).toFixed(0)}%`,
    fb === undefined ? '-' : `${(fb / 1024).toFixed(1)}`,
  ];
}

/** Minute-resolution UTC time: "2026-12-02 14:05". */
const utcMinute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/** The table's head: the GPU columns only when some window had a GPU exporter. */
function tableHead(windows: WindowFigures[]): string[] {
  return hasGpu(windows) ? [...TABLE_HEAD, 'gpu util', 'gpu mem GiB'] : [...TABLE_HEAD];
}

/** One table row per window (text cells; latencies in ms). */
function tableRows(windows: WindowFigures[]): string[][] {
  const gpu = hasGpu(windows);
  return windows.map((w) => {
    const errs = Object.values(w.errors).reduce((a, b) => a + (b ?? 0), 0);
    return [
      w.target,
      utcMinute(w.start),
      w.invalidRounds > 0 ? `${w.rounds} (${w.invalidRounds} inv)` : String(w.rounds),
      Number.isNaN(w.attainment) ? '-' : `${(w.attainment * 100).toFixed(1)}%`,
      String(errs),
      fmt(w.latency.ttft.p50, w.latency.ttft.count),
      fmt(w.latency.ttft.p99, w.latency.ttft.count),
      fmt(w.latency.tpot.p50, w.latency.tpot.count),
      fmt(w.latency.tpot.p99, w.latency.tpot.count),
      fmt(w.latency.itl.p99, w.latency.itl.count),
      fmt(w.latency.e2el.p99, w.latency.e2el.count),
      ...(gpu ? gpuCells(w) : []),
    ];
  });
}

function rollbackLine(r: StoredRollback): string {
  return `rollback: ${r.target} at ${new Date(r.at).toISOString()} (round ${r.round}) ${r.rule}${r.adrId ? ` [${r.adrId}]` : ''}${r.exitCode !== undefined ? ` → exit ${r.exitCode}` : ''}`;
}

const TABLE_NOTE = "latencies in ms; percentiles recomputed from each window's merged histograms";
const GPU_NOTE = "; GPU: mean utilisation and peak memory used (all GPUs) over the window's scrapes";
const tableNote = (windows: WindowFigures[]) => TABLE_NOTE + (hasGpu(windows) ? GPU_NOTE : '');

/** The trend table as text. */
export function renderHistoryTable(windows: WindowFigures[], rollbacks: StoredRollback[]): string {
  if (windows.length === 0) return 'no rounds in the store for this period\n';
  const head = tableHead(windows);
  const rows = tableRows(windows);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [line(head), ...rows.map(line), ...rollbacks.map(rollbackLine)];
  return `${out.join('\n')}\n${tableNote(windows)}\n`;
}

/** The history as JSON (schemaVersion'd). */
export function renderHistoryJson(
  windows: WindowFigures[],
  rollbacks: StoredRollback[],
  windowMs: number,
): string {
  const clean = windows.map((w) => ({ ...w, attainment: Number.isNaN(w.attainment) ? null : w.attainment }));
  return `${JSON.stringify({ schemaVersion: 1, kind: 'goodput.history', windowMs, windows: clean, rollbacks }, null, 2)}\n`;
}

/** A percentile of a latency per window, at the window's middle; windows without samples are left out. */
function latencySeries(
  ws: WindowFigures[],
  windowMs: number,
  name: 'ttft' | 'tpot',
  stat: 'p50' | 'p99',
  color: string,
): ChartSeries {
  const data: XY = { x: [], y: [] };
  for (const w of ws) {
    const l = w.latency[name];
    if (l.count === 0 || !Number.isFinite(l[stat])) continue;
    data.x.push((w.start + windowMs / 2) / 1000);
    data.y.push(l[stat]);
  }
  return { label: latencyMetricOf(name, stat)?.label ?? `${name} ${stat}`, color, data };
}

/** Limits a trend page draws as horizontal lines: the SLO, and an ADR's gate thresholds. */
export interface HistoryLimits {
  slo?: Slo;
  /** The ADR's gate as thresholds (gate/'s `gateSpecThresholds`), and the ADR's id for the labels. */
  gate?: { adr: string; thresholds: readonly Threshold[] };
}

const SLO_OF: Record<'ttft' | 'tpot', 'ttftMs' | 'tpotMs'> = { ttft: 'ttftMs', tpot: 'tpotMs' };

/**
 * The limit lines of a trend chart: on a latency chart the SLO of that latency and every ADR
 * gate threshold on it (the limit of its own statistic, p99 or another); on the attainment
 * chart the ADR's least attainment, in %.
 */
export function trendLimits(chart: 'ttft' | 'tpot' | 'attainment', limits: HistoryLimits = {}): ChartLimit[] {
  const out: ChartLimit[] = [];
  if (chart !== 'attainment') {
    const slo = limits.slo?.[SLO_OF[chart]];
    if (slo !== undefined)
      out.push({ y: slo, label: `SLO: ${chart.toUpperCase()} ≤ ${slo} ms`, color: '#475569' });
  }
  for (const t of limits.gate?.thresholds ?? []) {
    const on = chart === 'attainment' ? t.metric.id === 'attainment' : t.metric.latency?.text === chart;
    // The history charts the run's figures: a traffic class's limit is not drawn on them.
    if (!on || t.class !== undefined) continue;
    out.push({
      y: chart === 'attainment' ? t.limit * 100 : t.limit,
      label: `${limits.gate!.adr}: ${formatThreshold(t)}`,
      color: '#dc2626',
    });
  }
  return out;
}

/** The charts of one target: TTFT and TPOT p50/p99 (ms), SLO attainment (%), rollbacks marked, limits drawn. */
function targetCharts(
  t: string,
  i: number,
  ws: WindowFigures[],
  rollbacks: StoredRollback[],
  windowMs: number,
  limits: HistoryLimits | undefined,
): ChartSpec[] {
  // The data's own time range: from the first window's start to the last window's end.
  const xRange: [number, number] = [
    Math.min(...ws.map((w) => w.start)) / 1000,
    Math.max(...ws.map((w) => w.start + windowMs)) / 1000,
  ];
  const markers: ChartMarker[] = rollbacks
    .filter((r) => r.target === t)
    .map((r) => ({ x: r.at / 1000, label: 'rollback', color: '#dc2626' }));
  const attain: XY = { x: [], y: [] };
  for (const w of ws) {
    if (Number.isNaN(w.attainment)) continue;
    attain.x.push((w.start + windowMs / 2) / 1000);
    attain.y.push(w.attainment * 100);
  }
  const base = { group: 'trend' as const, xLabel: 'time (UTC)', xTime: true, xRange, markers };
  const style = ws.length <= 2 ? ({ style: 'dashed' } as const) : {};
  const lat = (name: 'ttft' | 'tpot') =>
    [
      latencySeries(ws, windowMs, name, 'p50', '#2563eb'),
      latencySeries(ws, windowMs, name, 'p99', '#ea580c'),
    ].map((s) => ({ ...s, ...style }));
  const gpuUtil: XY = { x: [], y: [] };
  for (const w of ws) {
    const util = windowGpuMetric(w, 'gpu_util');
    if (util === undefined) continue;
    gpuUtil.x.push((w.start + windowMs / 2) / 1000);
    gpuUtil.y.push(util * 100);
  }
  const charts: ChartSpec[] = [
    {
      ...base,
      id: `trend-${i}-ttft`,
      title: `${latencyTitle('ttft')}`,
      yLabel: 'ms',
      series: lat('ttft'),
      limits: trendLimits('ttft', limits),
    },
    {
      ...base,
      id: `trend-${i}-tpot`,
      title: `${latencyTitle('tpot')}`,
      yLabel: 'ms',
      series: lat('tpot'),
      limits: trendLimits('tpot', limits),
    },
    {
      ...base,
      id: `trend-${i}-attainment`,
      title: 'SLO attainment',
      yLabel: 'attainment (%)',
      yRange: [0, 100],
      limits: trendLimits('attainment', limits),
      series: [{ label: 'attainment', color: '#16a34a', data: attain, ...style }],
    },
  ];
  if (gpuUtil.x.length > 0)
    charts.push({
      ...base,
      id: `trend-${i}-gpu`,
      title: metric('gpu_util').label,
      yLabel: 'utilisation (%)',
      yRange: [0, 100],
      series: [{ label: 'GPU utilisation', color: '#7c3aed', data: gpuUtil, ...style }],
    });
  return charts.map((c) => ({ ...c, series: c.series.filter((s) => s.data.x.length > 0) }));
}

/**
 * A self-contained trend page in the report's style: per target, TTFT and TPOT p50/p99 and
 * SLO attainment per window over the data's own time range (UTC throughout), rollbacks
 * marked, the SLO and an ADR's gate thresholds drawn as limit lines when given, then the windows table.
 */
export function renderHistoryHtml(
  windows: WindowFigures[],
  rollbacks: StoredRollback[],
  assets: ChartAssets,
  opts: { windowMs: number; version: string; generatedAt?: string; limits?: HistoryLimits },
): string {
  const targets = [...new Set(windows.map((w) => w.target))];
  const sections: TrendSection[] = targets.map((t, i) => {
    const ws = windows.filter((w) => w.target === t);
    return {
      id: `target-${i}`,
      heading: t,
      note: `${ws.length} window(s) of ${fmtWindow(opts.windowMs)}, ${utcMinute(ws[0]!.start)} to ${utcMinute(ws.at(-1)!.start + opts.windowMs)} UTC; each point is a window's figure at its middle.`,
      charts: targetCharts(t, i, ws, rollbacks, opts.windowMs, opts.limits),
    };
  });
  const table =
    windows.length === 0
      ? '<p class="muted">No rounds in the store for this period.</p>'
      : `${dataTable(tableHead(windows), tableRows(windows), 2)}<p class="muted">${escapeHtml(tableNote(windows))}</p>`;
  const rollbackList =
    rollbacks.length === 0
      ? ''
      : `<ul>${rollbacks.map((r) => `<li>${escapeHtml(rollbackLine(r))}</li>`).join('')}</ul>`;
  sections.push({ id: 'windows', heading: 'Windows', charts: [], html: table + rollbackList });
  return renderTrendPage(
    {
      title: 'goodput history',
      subtitle:
        targets.length === 0 ? 'no rounds' : `${targets.join(', ')} · windows of ${fmtWindow(opts.windowMs)}`,
      generatedAt: opts.generatedAt ?? new Date().toISOString(),
      version: opts.version,
      sections,
    },
    assets,
  );
}

/** "1h", "5m", "30s". */
function fmtWindow(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${ms / 1000}s`;
}

const LATENCY_STATS = ['count', 'p50', 'p90', 'p99', 'mean'] as const;

/** Columns of `history --format csv`: one row per target and window; latencies in ms. */
export const HISTORY_CSV_COLUMNS: readonly string[] = [
  'target',
  'window_start',
  'rounds',
  'invalid_rounds',
  'attempted',
  'failed',
  'good',
  'attainment',
  'errors',
  ...STORED_LATENCIES.flatMap((l) => LATENCY_STATS.map((s) => `${l}_${s === 'count' ? 'count' : `${s}_ms`}`)),
  'gpu_samples',
  'gpu_scrape_failures',
  ...HISTORY_GPU_METRICS,
];

/**
 * The windows as CSV (RFC 4180): errors as `CODE:N` separated by spaces, a latency's
 * percentiles empty when the window has no sample of it, attainment empty when nothing was attempted;
 * the GPU columns (catalogue ids and units: ratios, MiB, W) empty without a GPU sample.
 */
export function renderHistoryCsv(windows: WindowFigures[]): string {
  let out = csvLine(HISTORY_CSV_COLUMNS);
  for (const w of windows) {
    out += csvLine([
      w.target,
      new Date(w.start).toISOString(),
      w.rounds,
      w.invalidRounds,
      w.attempted,
      w.failed,
      w.good,
      w.attainment,
      Object.entries(w.errors)
        .map(([code, n]) => `${code}:${n}`)
        .join(' '),
      ...STORED_LATENCIES.flatMap((l) => {
        const v = w.latency[l];
        return LATENCY_STATS.map((s) => (s === 'count' ? v.count : v.count === 0 ? undefined : v[s]));
      }),
      w.gpu?.samples,
      w.gpu?.scrapeFailures,
      ...HISTORY_GPU_METRICS.map((id) => windowGpuMetric(w, id)),
    ]);
  }
  return out;
}
