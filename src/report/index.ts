/**
 * Renderers of a run summary, returning strings: terminal table, Markdown, JSON. The HTML
 * report lives in ./html.
 *
 * @module
 */

export {
  type CsvValue,
  csvField,
  csvLine,
  importedMetrics,
  RECORD_CSV_COLUMNS,
  recordCsvLine,
  renderSummaryCsv,
  SUMMARY_CSV_COLUMNS,
  summaryMetrics,
} from './csv.js';
export * from './html/index.js';
export {
  buildImportedView,
  fmtFigure,
  type ImportedView,
  renderImportedMarkdown,
  renderImportedTable,
} from './imported.js';
export { renderRunJson } from './json.js';
export { renderRunMarkdown } from './markdown.js';
export { buildRunView, describeSloText, type ErrorView, type RunView, type ViewTable } from './run-view.js';
export { type RunRenderOptions, renderRunTable } from './terminal.js';
