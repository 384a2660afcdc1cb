/**
 * The HTML report: `renderHtmlReport` (self-contained page with uPlot charts),
 * `renderReportMarkdown`, the pure data preparation that streams records into small chart
 * series (LTTB, CDF points, time buckets). The `report` command is in command.ts. Helpers stay internal
 * (imported from their files by tests), so that the library index has no name clashes.
 *
 * @module
 */
export { allCharts, type ChartLimit, type ChartMarker, type ChartSeries, type ChartSpec } from './charts.js';
export { buildComparison } from './compare-view.js';
export { deltaComparison } from './comparison.js';
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
export { RunChartBuilder } from './prepare.js';
export { isSweepDir, loadChartAssets, readReportRun, readSweep, SWEEP_FILE } from './read.js';
export { renderHtmlReport } from './render.js';
export { sweepView } from './sweep.js';
export { dataTable, renderTrendPage, type TrendPageInput, type TrendSection } from './trend.js';
