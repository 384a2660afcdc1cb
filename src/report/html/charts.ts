/**
 * Chart specifications: which charts the report draws, with their series, axes and markers.
 * Pure; the inline chart script turns each spec into a uPlot chart without further logic.
 *
 * @module
 */

import type { ExperimentAnalysis } from '../../experiment/analysis/index.js';
import { importedValue, latencyTitle, metric } from '../../metrics/index.js';
import type { ImportedSummary } from '../../types.js';
import { compact, roundSig } from './compact.js';
import { experimentCharts } from './experiment.js';
import type { XY } from './lttb.js';
import {
  CDF_LATENCIES,
  type CdfLatency,
  type ImportedReportRun,
  type ReportRun,
  type SweepView,
} from './model.js';
import { runColor } from './sections.js';
import { paretoChart, sweepChart } from './sweep-charts.js';
import { turnCharts } from './turns.js';

export interface ChartSeries {
  label: string;
  color: string;
  /** y = NaN (null in the page) is a gap: the line breaks there when `gaps` is set. */
  data: XY;
  /** 0 = left axis, 1 = right axis, 2 = a second right axis of its own scale. */
  axis?: 0 | 1 | 2;
  /** bars: from 0 at each x (categories); dots: large points, one per series. */
  style?: 'line' | 'points' | 'dashed' | 'step' | 'bars' | 'dots';
  /** Vertical interval whiskers in the series' axis: [x, low, high]. */
  whiskers?: Array<[x: number, low: number, high: number]>;
  /** The line breaks at the data's gaps (y = NaN) instead of joining across them. */
  gaps?: boolean;
}

/** A vertical line at x, labelled (saturation, capacity, an SLO on a CDF, a rollback). */
export interface ChartMarker {
  x: number;
  label: string;
  color: string;
}

/** A horizontal line at y on an axis (an SLO or an ADR gate's limit), labelled. */
export interface ChartLimit {
  y: number;
  label: string;
  color: string;
  /** The axis the value is on (0 left, 1 right, 2 second right); default 0. */
  axis?: 0 | 1 | 2;
}

export interface ChartSpec {
  /** Element id of the chart's container. */
  id: string;
  title: string;
  /** Which section the chart goes in. */
  group: 'cdf' | 'scatter' | 'turns' | 'timeline' | 'sweep' | 'trend' | 'experiment';
  xLabel: string;
  yLabel: string;
  y2Label?: string;
  /** Label of the second right axis (series with `axis: 2`: a figure of another magnitude). */
  y3Label?: string;
  xLog?: boolean;
  /** x is a wall-clock time in seconds since the epoch: ticks and legend in UTC. */
  xTime?: boolean;
  /** x is an index into these names (one tick each), e.g. an experiment's configurations. */
  xCategories?: string[];
  /** Lowest x shown (log CDFs start at their 1st percentile: below it lie only sub-ms read artefacts). */
  xMin?: number;
  /** Fixed x range (the client and server timelines of a run share it). */
  xRange?: [number, number];
  /** Fixed range of the left axis, e.g. [0, 100] for percentiles. */
  yRange?: [number, number];
  y2Range?: [number, number];
  series: ChartSeries[];
  markers: ChartMarker[];
  /** Horizontal limit lines; each axis's range takes its limits in. */
  limits?: ChartLimit[];
}

export { compact, roundSig } from './compact.js';

const SLO_KEY: Partial<Record<CdfLatency, 'ttftMs' | 'tpotMs' | 'e2elMs'>> = {
  ttft: 'ttftMs',
  tpot: 'tpotMs',
  e2el: 'e2elMs',
};

/** True when values span more than two decades: a log axis reads better. */
export function wantsLogAxis(series: XY[]): boolean {
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (const s of series) {
    for (const x of s.x) {
      if (x > 0 && x < lo) lo = x;
      if (x > hi) hi = x;
    }
  }
  return hi > 0 && Number.isFinite(lo) && hi / lo > 100;
}

const nonEmpty = (s: ChartSeries) => s.data.x.length > 0;

const STATED_PERCENTILES: ReadonlyArray<[stat: 'p50' | 'p90' | 'p95' | 'p99' | 'p999' | 'max', pct: number]> =
  [
    ['p50', 50],
    ['p90', 90],
    ['p95', 95],
    ['p99', 99],
    ['p999', 99.9],
    ['max', 100],
  ];

/**
 * Another tool's result on a CDF: each percentile it states is a point (p50 at 50 %, …, max
 * at 100 %); nothing between them is drawn, since the file says nothing about it.
 */
export function statedCdfPoints(imported: ImportedSummary, latency: CdfLatency): XY {
  const out: XY = { x: [], y: [] };
  for (const [stat, pct] of STATED_PERCENTILES) {
    const v = importedValue(imported, metric(`${latency}_${stat}`));
    if (v === undefined) continue;
    out.x.push(v);
    out.y.push(pct);
  }
  return out;
}

/**
 * Latency CDFs, several runs overlaid, with the SLO marked where one is set; other tools'
 * results as points at the percentiles they state.
 */
export function cdfCharts(runs: ReportRun[], imported: readonly ImportedReportRun[] = []): ChartSpec[] {
  const specs: ChartSpec[] = [];
  for (const name of CDF_LATENCIES) {
    const raw = runs.map((r) => r.charts.cdf[name]);
    const stated = imported.map((r) => statedCdfPoints(r.summary, name));
    const xLog = wantsLogAxis([...raw, ...stated]);
    const keep = xLog ? (x: number) => x > 0 : undefined;
    const series: ChartSeries[] = [
      ...runs.map((run, i) => ({ label: run.label, color: runColor(i), data: compact(raw[i]!, keep) })),
      ...imported.map(
        (run, j): ChartSeries => ({
          label: `${run.label} (stated percentiles)`,
          color: runColor(runs.length + j),
          data: compact(stated[j]!, keep),
          style: 'points',
        }),
      ),
    ].filter(nonEmpty);
    if (series.length === 0) continue;
    const p1 = Math.min(
      ...series.map((s) => s.data.x[s.data.y.findIndex((y) => y >= 1)] ?? Number.POSITIVE_INFINITY),
    );
    const sloKey = SLO_KEY[name];
    const slo = sloKey ? runs[0]?.summary.goodput.slo[sloKey] : undefined;
    specs.push({
      id: `chart-cdf-${name}`,
      title: latencyTitle(name),
      group: 'cdf',
      xLabel: `${name.toUpperCase()} (ms${xLog ? ', log scale' : ''})`,
      yLabel: name === 'itl' ? 'token gaps at or below (%)' : 'requests at or below (%)',
      ...(xLog ? { xLog } : {}),
      ...(xLog && Number.isFinite(p1) ? { xMin: p1 } : {}),
      yRange: [0, 100],
      series,
      markers: slo !== undefined ? [{ x: slo, label: `SLO ${slo} ms`, color: '#6b7280' }] : [],
    });
  }
  return specs;
}

/** TTFT against prompt length, with the bucket medians. */
export function scatterChart(runs: ReportRun[]): ChartSpec[] {
  const series: ChartSeries[] = [];
  runs.forEach((run, i) => {
    const name = runs.length > 1 ? `${run.label}: ` : '';
    series.push({
      label: `${name}requests`,
      color: runColor(i),
      data: compact(run.charts.scatter.points),
      style: 'points',
    });
    // One run: the medians in near-black stand out from the cloud; several: each run's colour.
    // Empty buckets are gaps in the line, never joined across.
    series.push({
      label: `${name}bucket median`,
      color: runs.length === 1 ? '#0f172a' : runColor(i),
      data: compact(run.charts.scatter.medians, undefined, true),
      style: 'dashed',
      gaps: true,
    });
  });
  const shown = series.filter(nonEmpty);
  if (shown.length === 0) return [];
  return [
    {
      id: 'chart-scatter-ttft',
      title: 'TTFT against prompt length',
      group: 'scatter',
      xLabel: 'prompt length (tokens)',
      yLabel: 'TTFT (ms)',
      series: shown,
      markers: [],
    },
  ];
}

/** Per run: client timeline (in flight, output tok/s, errors/s) and, when scraped, the server's. */
export function timelineCharts(runs: ReportRun[]): ChartSpec[] {
  const specs: ChartSpec[] = [];
  runs.forEach((run, i) => {
    const t = run.charts.timeline;
    const suffix = runs.length > 1 ? ` — ${run.label}` : '';
    const xs = t.inFlight.x;
    const half = t.bucketMs / 2000;
    const xRange: [number, number] | undefined =
      xs.length > 1 ? [roundSig(xs[0]! - half), roundSig(xs[xs.length - 1]! + half)] : undefined;
    const client: ChartSeries[] = [
      { label: 'requests in flight', color: '#2563eb', data: compact(t.inFlight) },
      { label: 'errors/s', color: '#dc2626', data: compact(t.errorsPerS) },
      { label: 'output tokens/s', color: '#16a34a', data: compact(t.outputTokensPerS), axis: 1 },
    ];
    specs.push({
      id: `chart-timeline-${i}`,
      title: `Client timeline${suffix}`,
      group: 'timeline',
      xLabel: 'time since start (s)',
      yLabel: 'requests, errors/s',
      y2Label: 'output tokens/s',
      ...(xRange ? { xRange } : {}),
      series: client.filter(nonEmpty),
      markers: [],
    });
    const server = run.charts.server;
    if (server) specs.push(serverChart(server, i, suffix, xRange));
    if (run.charts.gpu) specs.push(gpuChart(run.charts.gpu, i, suffix, xRange));
  });
  return specs.filter((s) => s.series.length > 0);
}

/** The engine's own series: running, waiting, preemptions, KV usage. */
function serverChart(
  server: NonNullable<ReportRun['charts']['server']>,
  i: number,
  suffix: string,
  xRange: [number, number] | undefined,
): ChartSpec {
  const all: ChartSeries[] = [
    { label: 'running', color: '#2563eb', data: compact(server.running) },
    { label: 'waiting', color: '#ea580c', data: compact(server.waiting) },
    { label: 'preemptions', color: '#dc2626', data: compact(server.preemptions), style: 'step' },
    { label: 'KV cache usage %', color: '#9333ea', data: compact(server.kvUsagePct), axis: 1 },
  ];
  return {
    id: `chart-server-${i}`,
    title: `Server${suffix}`,
    group: 'timeline',
    xLabel: 'time since start (s)',
    yLabel: 'sequences, preemptions',
    y2Label: 'KV cache usage (%)',
    y2Range: [0, 100],
    ...(xRange ? { xRange } : {}),
    series: all.filter(nonEmpty),
    markers: [],
  };
}

/** Colours of each GPU's own utilisation line (the mean keeps the strong blue). */
const GPU_LINE_COLORS = [
  '#93c5fd',
  '#86efac',
  '#fcd34d',
  '#f9a8d4',
  '#c4b5fd',
  '#5eead4',
  '#fdba74',
  '#cbd5e1',
];

/** The GPUs (DCGM exporter): utilisation % (mean, and each GPU's), total power W. */
function gpuChart(
  gpu: NonNullable<ReportRun['charts']['gpu']>,
  i: number,
  suffix: string,
  xRange: [number, number] | undefined,
): ChartSpec {
  const several = gpu.perGpuUtilPct.length > 1;
  const series: ChartSeries[] = [
    ...gpu.perGpuUtilPct.map((g, k) => ({
      label: `GPU ${g.gpu} utilisation %`,
      color: GPU_LINE_COLORS[k % GPU_LINE_COLORS.length]!,
      data: compact(g.data),
    })),
    {
      label: several ? 'GPU utilisation % (mean)' : 'GPU utilisation %',
      color: '#2563eb',
      data: compact(gpu.utilPct),
    },
    {
      label: several ? 'GPU power W (total)' : 'GPU power W',
      color: '#dc2626',
      data: compact(gpu.powerW),
      axis: 1,
    },
  ];
  return {
    id: `chart-gpu-${i}`,
    title: `GPUs${suffix}`,
    group: 'timeline',
    xLabel: 'time since start (s)',
    yLabel: 'utilisation (%)',
    yRange: [0, 100],
    y2Label: 'power (W)',
    ...(xRange ? { xRange } : {}),
    series: series.filter(nonEmpty),
    markers: [],
  };
}

/** Every chart of the report, in page order. */
export function allCharts(
  runs: ReportRun[],
  sweep?: SweepView,
  imported: readonly ImportedReportRun[] = [],
  experiment?: ExperimentAnalysis,
): ChartSpec[] {
  return [
    ...experimentCharts(experiment),
    ...sweepChart(sweep),
    ...paretoChart(sweep),
    ...cdfCharts(runs, imported),
    ...scatterChart(runs),
    ...turnCharts(runs),
    ...timelineCharts(runs),
  ];
}
