/**
 * Metrics, pure (no I/O): per-request latencies from raw timestamps, mergeable latency
 * histograms, the streaming run accumulator that turns RequestRecords into a RunSummary
 * (vLLM-compatible keys, goodput, load honesty, prompt buckets), and the merge of several runs.
 *
 * @module
 */
export { type AccumulatorOptions, RunAccumulator, summarizeRecords } from './accumulator.js';
export {
  ADR_GATE_KEYS,
  type Better,
  COMPARE_ROW_IDS,
  HEADLINE_IDS,
  LAST_VALID_ROUND_SERIES,
  LATENCY_STATS,
  type LatencyStatKey,
  labelWithUnit,
  latencyMetricOf,
  METRICS,
  type MetricDef,
  type MetricUnit,
  metric,
  metricByAdrGateKey,
  metricByAdrName,
  metricById,
  promqlOf,
  ROUND_METRIC_SERIES,
  SCALAR_METRIC_NAMES,
} from './catalogue.js';
export {
  CAVEAT_KINDS,
  type Caveat,
  type CaveatKind,
  type CaveatSeverity,
  caveatedPointPhrase,
  GC_HEAP_FLAG,
  GC_PRETENURING_FLAG,
  runCaveats,
  WARMUP_ADVICE_S,
} from './caveats.js';
export { classView } from './classes.js';
export {
  errorRate,
  failedRequests,
  interruptedRequests,
  judgedRequests,
  meanAnswerTokens,
  meanReasoningTokens,
  timingsPrefixCacheHitRate,
  wastedOutputTokens,
} from './definitions.js';
export { type EfficiencyBase, efficiencyOf } from './efficiency.js';
export { EFFICIENCY_METRICS, EFFICIENCY_ROW_IDS } from './efficiency-metrics.js';
export { mergeGcPauses } from './gc-pauses.js';
export {
  emptyLatencyStats,
  HISTOGRAM_SIGNIFICANT_DIGITS,
  LatencyHistogram,
  STAT_PERCENTILES,
} from './histogram.js';
export { finite, type ImportedFigures, putLatency, record, toMs } from './import-common.js';
export {
  type ImportFile,
  importedName,
  importedValue,
  importResult,
  missingIds,
  pickBenchmark,
  resultNoun,
  TOOL_DESCRIPTIONS,
  TOOL_NAMES,
} from './imported.js';
export {
  LATENCIES,
  type LatencyDef,
  latencyDef,
  latencyLabel,
  latencyTitle,
  pushPerRequest,
} from './latencies.js';
export { mergeSummaries } from './merge.js';
export {
  normaliseEdges,
  OPEN_BUCKET_MAX,
  type PromptBucketing,
  PromptBuckets,
  promptBucketRange,
} from './prompt-buckets.js';
export {
  allocateChunkTokens,
  meetsSlo,
  metricsOf,
  phaseMetrics,
  type RequestMetrics,
  requestMetrics,
  tokenCount,
} from './request-metrics.js';
export {
  CLIENT_BOUND_LATE_SHARE,
  DEFAULT_LATE_SEND_TOLERANCE_MS,
  ratio,
  SUMMARY_LATENCIES,
  type SummaryExtras,
  VLLM_LATENCIES,
  vllmLatencyKeys,
} from './run-state.js';
export { RunningStats } from './running-stats.js';
export { DEFAULT_MAX_SECOND_BINS, SecondBins } from './second-bins.js';
export { outputLimitText, traceSendsText } from './sent.js';
export {
  checkShardSet,
  MERGE_WINDOW_GRACE_MS,
  shardOutcomes,
  shardSpanS,
  startSkewSpreadMs,
  timeDiffs,
} from './shards.js';
export { mergeStageLoads } from './stages.js';
export { mergeStartWindows, START_WINDOW_MS, StartWindowTally } from './start-window.js';
export { type VllmResult, vllmValue } from './vllm.js';
