/**
 * The shapes a report is built from: per-run chart series (small, already downsampled), the
 * sweep view, and the whole report's input. Everything here is plain JSON, embedded as is.
 *
 * @module
 */

import type { RunSamples } from '../../compare/index.js';
import type { ExperimentAnalysis } from '../../experiment/analysis/index.js';
import type { ImportedSummary, RunSummary } from '../../types.js';
import type { XY } from './lttb.js';

/** The latencies charted as CDFs. */
export const CDF_LATENCIES = ['ttft', 'tpot', 'itl', 'e2el'] as const;
export type CdfLatency = (typeof CDF_LATENCIES)[number];

/** Downsampled chart series of one run. Times on timelines are seconds from the run's t0. */
export interface RunChartData {
  cdf: Record<CdfLatency, XY>;
  /** x = prompt tokens, y = TTFT ms; medians per prompt-length bucket. */
  scatter: { points: XY; medians: XY };
  timeline: { inFlight: XY; outputTokensPerS: XY; errorsPerS: XY; bucketMs: number };
  /** The server's series when server-metrics.jsonl was scraped. */
  server?: { running: XY; waiting: XY; kvUsagePct: XY; preemptions: XY };
  /**
   * The GPUs when gpu-metrics.jsonl was scraped (DCGM exporter): utilisation % (mean over
   * GPUs, and each GPU's own when there are several), power W (total over GPUs).
   */
  gpu?: { utilPct: XY; powerW: XY; perGpuUtilPct: Array<{ gpu: string; data: XY }> };
  /** Requests read from requests.jsonl (measured ones; warmup excluded). */
  recordsRead: number;
}

/** Per-request latency samples (sorted) and output-token sums: what compare's statistics need. */
export type LatencySamples = RunSamples;

/** One run as the report shows it. */
export interface ReportRun {
  /** Short name shown in legends and tables (labels.name, the directory name, or the run id). */
  label: string;
  summary: RunSummary;
  /** The result directory it was read from (for the per-request CSV). */
  dir?: string;
  charts: RunChartData;
  /** Per-request samples for the comparison's statistics (not embedded in the page). */
  samples?: LatencySamples;
}

/** Another tool's result (or one benchmark of a guidellm sweep) as the report shows it: its stated figures only. */
export interface ImportedReportRun {
  label: string;
  summary: ImportedSummary;
}

/** One load step of a sweep: its load and its figures by catalogue metric id (e.g. "ttft_p99"). */
export interface SweepPoint {
  load: number;
  values: Readonly<Record<string, number>>;
}

/** A sweep: throughput and tail latency against load, with its two conclusions marked. */
export interface SweepView {
  /** What the load axis counts: "concurrency" or "rate (req/s)". */
  loadLabel: string;
  points: SweepPoint[];
  saturationLoad?: number;
  /** The per-user tokens/s a user must see (user_tps SLO, else the TPOT SLO as 1000 / TPOT), for the Pareto chart. */
  userTpsSlo?: { value: number; label: string };
  capacityAtSloLoad?: number;
  /** Extra notes read from the sweep file (e.g. why the sweep stopped). */
  notes: string[];
  /** The points' caveats and where the saturation point and capacity come from caveated points. */
  caveats?: string[];
}

/** A comparison of every run against the first (the baseline). */
export interface ComparisonView {
  /** Who computed it: "compare" (statistics and verdicts) or "deltas" (plain differences). */
  source: 'compare' | 'deltas';
  baseline: string;
  /** Column headers after the metric name. */
  columns: string[];
  rows: Array<{ metric: string; cells: Array<{ text: string; tone: 'better' | 'worse' | 'neutral' }> }>;
  /** Overall verdict per candidate, when compare gave one. */
  verdicts?: Array<{ run: string; verdict: string; tone: 'better' | 'worse' | 'neutral' }>;
  note?: string;
}

/** Everything renderHtmlReport needs. */
export interface HtmlReportInput {
  title: string;
  /** ISO time the report was generated. */
  generatedAt: string;
  runs: ReportRun[];
  /** Other tools' results: drawn from the figures they state (points on the CDFs, tables). */
  imported?: ImportedReportRun[];
  sweep?: SweepView;
  comparison?: ComparisonView;
  /** An experiment folder's analysis (experiment/analysis): bars per configuration, its Pareto chart. */
  experiment?: ExperimentAnalysis;
}

/** uPlot's script and stylesheet, inlined so that the file opens with no network. */
export interface ChartAssets {
  uplotJs: string;
  uplotCss: string;
}
