/**
 * The runner: the load generator (closed and open loop, warmup, stop rules, cancellation,
 * pacing, lag) and runBenchmark, one whole run from config to result directory.
 *
 * @module
 */
export { runBenchmark } from './benchmark.js';
export {
  type BenchmarkConfig,
  type BenchmarkConfigInput,
  type BenchmarkWorkload,
  benchmarkConfig,
  DEFAULT_LOAD,
  DEFAULT_SEED,
  DEFAULT_WORKLOAD,
} from './config.js';
export type { BenchmarkIo, BenchmarkResult } from './io.js';
export { createRunClient, describeConnectionWarmup, type RunClientConfig } from './live-client.js';
export {
  CLIENT_BOUND_DISPATCH_LAG_MS,
  CLIENT_BOUND_LOOP_DELAY_MS,
  LATE_SEND_TOLERANCE_MS,
  type LoadResult,
  type RunLoadOptions,
  runLoad,
  type SendFn,
  type StopReason,
} from './load.js';
export { unmeasurableError } from './outcome.js';
export {
  buildRunMeta,
  type PipelineOptions,
  type RecordSinkFn,
  type RunMetaParts,
  runPipeline,
} from './pipeline.js';
export { type ProgressMode, progressMode } from './progress.js';
export { type RebuildOptions, type RebuiltRun, rebuildSummary } from './rebuild.js';
export {
  createRunWorkload,
  runTokenizer,
  type WorkloadConfig,
  warmWorkload,
  workloadShape,
} from './run-workload.js';
export { checkShard, inShard, parseShard, peakInFlight, shardItem, shardLoad } from './sharding/shard.js';
export { type PreparedTarget, pickModel, prepareTarget, type TargetOptions } from './target.js';
export { RunClock, sleepUntil } from './timer.js';
export { type VirtualEnd, virtualRecord } from './virtual-record.js';
export { MAX_WORKERS, resolveWorkerCount } from './workers/index.js';
