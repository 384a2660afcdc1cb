/**
 * The HTML report: `renderHtmlReport` (self-contained page with uPlot charts),
 * `renderReportMarkdown`, the pure data preparation that streams records into small chart
 * series (LTTB, CDF points, time buckets), and the `report` command.
 *
 * @module
 */
export {
  allCharts,
  type ChartMarker,
  type ChartSeries,
  type ChartSpec,
  roundSig,
  wantsLogAxis,
} from './charts.js';
export { defaultTitle, reportCommand, uniqueLabels } from './command.js';
export { buildComparison, overallVerdict } from './compare-view.js';
export { deltaComparison, relativeDelta } from './comparison.js';
export { escapeHtml, headlines, jsonForScript, runFacts } from './format.js';
export { lttb, type XY } from './lttb.js';
export { renderReportMarkdown } from './markdown.js';
export type {
  ChartAssets,
  ComparisonView,
  HtmlReportInput,
  LatencySamples,
  ReportRun,
  RunChartData,
  SweepPoint,
  SweepView,
} from './model.js';
export {
  RunChartBuilder,
  requestLatencies,
  StrideSample,
  serverSeries,
  timelineBucketMs,
} from './prepare.js';
export { isSweepDir, loadChartAssets, readReportRun, readSweep, runLabel, SWEEP_FILE } from './read.js';
export { renderHtmlReport } from './render.js';
export { bucketMedians, cdfPoints, LogHistogram, TimeBuckets, thinScatter } from './series.js';
export { sweepView } from './sweep.js';
