/**
 * The experiment's analysis: from an experiment folder (experiment.json and one result
 * folder per run) to the metrics matrix — per configuration and catalogue metric the
 * across-run mean, std, CV and t interval, the across-run difference from the baseline and its
 * verdict, beside compare's within-run bootstrap —, the reading (the documents' rules as
 * hypotheses, joined with the runs' diagnosis), the conclusion column and the winner; rendered
 * as a terminal table, Markdown, JSON and CSV.
 *
 * @module
 */

export {
  type AnalysedRun,
  acrossDifference,
  matrixCells,
  WITHIN_RUN_RESAMPLES,
  withinRunTallies,
} from './cells.js';
export { EXPERIMENT_CSV_COLUMNS, renderExperimentCsv, renderExperimentJson } from './export.js';
export { describeChange, formatDifference, formatSpread } from './format.js';
export { type AnalyzeOptions, analyzeExperiment, EXPERIMENT_FILE, readExperimentFile } from './load.js';
export { type AnalysisInput, argsOf, buildAnalysis, configurationLabels, tallyFindings } from './matrix.js';
export {
  HEADLINE_MATRIX_IDS,
  MATRIX_IDS,
  matrixMetric,
  PER_USER_TPS_ID,
  PRESSURE_SIGNAL_IDS,
  readMetric,
} from './metrics.js';
export { type ReadingInput, readConfiguration } from './reading.js';
export {
  DETAIL_HEADER,
  detailRows,
  renderExperimentMarkdown,
  renderExperimentTable,
  rowName,
} from './render.js';
export type * from './types.js';
export {
  chooseWinner,
  conclusionOf,
  DEFAULT_GUARDED,
  DEFAULT_OBJECTIVE,
  objectiveOf,
  rowVerdict,
} from './winner.js';
