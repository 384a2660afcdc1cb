/**
 * goodput as a library: run a benchmark, read, compare and gate its results, start the
 * simulated engine. This entry is curated: engine internals, the CLI and helpers stay inside
 * (import a module's own index from the source if you need one; it may change without notice).
 *
 * @example
 * import { benchmarkConfig, compareRuns, evaluateThresholds, loadRun, parseThresholds, runBenchmark } from 'goodput';
 * const { summary, dir } = await runBenchmark(benchmarkConfig({ load: { requests: 50 } }), { cwd: process.cwd() });
 * const gate = evaluateThresholds(parseThresholds(['p99(ttft)<500', 'error_rate<0.01']), summary);
 *
 * @module
 */

// Compare runs (statistics, verdicts) and merge the runs of several load generators.
export {
  type CompareOptions,
  type CompareReport,
  compareGroups,
  compareReplicates,
  compareRuns,
  loadRun,
  loadRuns,
  NOISE_FLOORS,
  type ReplicateComparison,
  renderCompareMarkdown,
  renderCompareTable,
} from './compare/index.js';
// Coded errors and exit codes.
export { ExitCode, GoodputError, isGoodputError, REQUEST_ERRORS } from './errors.js';
// The experiment's metrics matrix: across-run statistics and verdicts, the reading, the winner.
export {
  analyzeExperiment,
  type ExperimentAnalysis,
  renderExperimentCsv,
  renderExperimentJson,
  renderExperimentMarkdown,
  renderExperimentTable,
} from './experiment/analysis/index.js';
// Experiments: configurations (servers goodput starts, running servers, or the embedded engine's
// flags in virtual time) measured with one workload in repeated interleaved runs.
export {
  type ConfigurationSpec,
  type ExperimentIo,
  type ExperimentResult,
  type ExperimentSpec,
  embeddedConfiguration,
  runExperiment,
} from './experiment/index.js';
// Gate: threshold grammar and evaluation, CI output.
export {
  evaluateThresholds,
  type GateResult,
  parseThresholds,
  renderGateLines,
  renderJunit,
  type Threshold,
} from './gate/index.js';
// The metric catalogue and the one definition of each count.
export { errorRate, METRICS, type MetricDef, mergeSummaries, metric } from './metrics/index.js';
export { loadChartAssets, readReportRun, renderHtmlReport } from './report/html/index.js';
// Reports of a run.
export { renderRunTable } from './report/index.js';
// Read result directories, validated against the schemas (a damaged or foreign file is a GoodputError).
export {
  RESULT_FILES,
  type RunPaths,
  readRecords,
  readServerSamples,
  readSummary,
  runPaths,
  writeSummary,
} from './results/index.js';
// The schemas themselves: results/index.ts leaves them out, so that writing a run loads no zod.
export { RequestRecordSchema, RunSummarySchema, ServerSampleSchema } from './results/schema.js';
// Run a benchmark: one whole run from a config to a result directory (the embedded engine without a url).
export {
  type BenchmarkConfig,
  type BenchmarkConfigInput,
  type BenchmarkIo,
  type BenchmarkResult,
  benchmarkConfig,
  DEFAULT_LOAD,
  DEFAULT_WORKLOAD,
  runBenchmark,
} from './runner/index.js';
// What a server says of itself (engine, version, models, settings, GPU model).
export { describeServer } from './server-metrics/index.js';
// The simulated engine as an OpenAI-compatible server on loopback.
export { type SimOptions, type SimServer, startSim } from './sim/index.js';

// Data contracts.
export {
  type Finding,
  type LatencyStats,
  type LoadSpec,
  type RequestError,
  type RequestErrorCode,
  type RequestRecord,
  type RunMeta,
  type RunSummary,
  type Sampling,
  SCHEMA_VERSION,
  type ServerSample,
  type ServerSummary,
  type Slo,
  type WorkloadSpec,
} from './types.js';
