/**
 * compare: runs side by side with deltas, 95% confidence intervals, verdicts and hints.
 *
 * @module
 */

export {
  describeRuns,
  type RunDifference,
  type RunSpread,
  runsToResolve,
  tQuantile975,
  welchDifference,
} from './across-runs.js';
export {
  type BootstrapOptions,
  bootstrapQuantileChange,
  type QuantileChange,
  resampleQuantile,
} from './bootstrap.js';
export {
  comparabilityDiffs,
  describeDiff,
  type FieldDiff,
  targetDiffs,
} from './comparable.js';
export {
  type CompareInput,
  type CompareOptions,
  type CompareReport,
  compareRuns,
  type ImportedRunInput,
  type IntervalKind,
  type MetricDelta,
  type RunComparison,
  type RunInput,
  type RunRef,
  type Verdict,
} from './compare.js';
export { compareGroups } from './groups.js';
export { hintsFor } from './hints.js';
export {
  type ImportedSource,
  importedRun,
  importedRunName,
  importedRuns,
  loadCompareInput,
  loadCompareInputs,
  loadRun,
  loadRuns,
  pickedRuns,
} from './load.js';
export {
  COMPARE_METRIC_KEYS,
  COMPARE_METRICS,
  type CompareMetric,
  type Direction,
  type TestKind,
} from './metrics.js';
export { NOISE_FLOORS, type NoiseFloor, noiseFloorOf } from './noise-floor.js';
export {
  COMPARE_CSV_COLUMNS,
  formatChange,
  formatValue,
  intervalLabel,
  renderCompareCsv,
  renderCompareMarkdown,
  renderCompareTable,
} from './render.js';
export {
  compareReplicates,
  type ReplicateComparison,
  type ReplicateOptions,
  replicateDelta,
} from './replicates.js';
export { type RunSamples, samplesFromRecords } from './samples.js';
export {
  erfc,
  type Interval,
  type MannWhitneyResult,
  mannWhitneyU,
  newcombeDifference,
  normalCdf,
  quantileSorted,
  type RateObservation,
  rateRatioChange,
  seededRandom,
  sortedCopy,
  wilsonInterval,
  Z95,
} from './stats.js';
