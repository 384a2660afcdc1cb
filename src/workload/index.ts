/**
 * Workload: seeded randomness, token counting (o200k by default, or a model's own Hugging Face
 * tokenizer and chat template), exact-length synthetic prompts, datasets,
 * open-loop arrival times, and the lazy, deterministic sequence of WorkItems of a run.
 *
 * @module
 */
export { conversationAffinityId } from './affinity.js';
export {
  AGENT_TRACE_LIMITS,
  type AgentTrace,
  type AgentTraceFormat,
  type AgentTraceRun,
  type AgentTraceStep,
} from './agent-trace.js';
export { AGENT_TRACE_BOUNDS, loadAgentTrace, parseAgentTrace } from './agent-trace-file.js';
export type { AgentReplaySource } from './agent-trace-source.js';
export {
  AGENT_DEFAULTS,
  type AgentFlags,
  type AgentSource,
  agentRunId,
  agentTraceWorkload,
  agentWorkload,
  syntheticTools,
} from './agents.js';
export { ArrivalSchedule, arrivalOffsets, WarmupArrivals, warmupArrivalsOf } from './arrivals.js';
export {
  CLASS_KEYS,
  type ClassInputs,
  checkClasses,
  classToolChoice,
  parseTrafficClass,
} from './class-spec.js';
export { classDealer, dealUsers } from './classes.js';
export {
  type Conversation,
  type ConversationTurn,
  conversationFromMessages,
  conversationFromShareGpt,
  parseTraceTurns,
} from './conversation.js';
export {
  type Dataset,
  type DatasetEntry,
  type DatasetFormat,
  detectDatasetFormat,
  type LoadDatasetOptions,
  loadDataset,
  MAX_DATASET_BYTES,
  MAX_DATASET_LINE_BYTES,
  MAX_SHAREGPT_BYTES,
  parseJsonlDataset,
  parseShareGptDataset,
} from './dataset.js';
export { HF_PROMPT_COLUMNS, HF_REPLY_COLUMNS, type JsonlKind, jsonlKindOf } from './dataset-formats.js';
export { isParquetFile, loadParquetDataset, MAX_PARQUET_BYTES } from './dataset-parquet.js';
export { loadImageFolder } from './image-folder.js';
export {
  checkImages,
  encodePng,
  MAX_IMAGE_SIDE,
  MAX_IMAGES,
  parseImageSize,
  type RequestImage,
  syntheticImage,
} from './images.js';
export {
  drawLength,
  LENGTH_DIST_KINDS,
  type LengthDist,
  type LengthHistogram,
  lengthDistSpec,
  meanLength,
  parseLengthDist,
} from './length-dist.js';
export {
  type LengthColumn,
  loadLengthDist,
  MAX_HISTOGRAM_BYTES,
  parseHistogramCsv,
  traceHistogram,
} from './length-dist-file.js';
export { MAX_PARTS, Part, type PartSpec, parseShard } from './partition.js';
export { checkPrefixGroups, type PrefixChoice, PrefixGroups } from './prefix-groups.js';
export { type BuildPrompt, fitPromptFrame, type PromptFrame } from './prompt-frame.js';
export { createRng, type Rng } from './rng.js';
export {
  checkSessionSpec,
  createSessionSource,
  type SessionScript,
  type SessionSource,
  sessionId,
} from './sessions.js';
export {
  nextActiveMs,
  StagedArrivals,
  StageTally,
  type StageWindow,
  stageWindows,
  targetAt,
} from './stages.js';
export {
  promptLength,
  type SyntheticPromptOptions,
  scanWordPool,
  shortestPromptLength,
  syntheticPrompt,
  type WordPool,
  wordPool,
} from './synthetic.js';
export {
  countPromptTokens,
  createTokenizer,
  DEFAULT_TOKENIZER,
  type PromptParts,
  promptText,
  TOKENIZER_NAMES,
  type Tokenizer,
  type TokenizerFile,
  type TokenizerName,
} from './tokenizer.js';
export {
  MAX_CHAT_TEMPLATE_BYTES,
  MAX_TOKENIZER_CONFIG_BYTES,
  MAX_TOKENIZER_JSON_BYTES,
  resolveTokenizer,
  type TokenizerChoice,
} from './tokenizer-file.js';
export {
  type AnalyzeOptions,
  analyzeTrace,
  type LengthDistribution,
  prefixCacheBound,
  type RateBin,
  type TraceAnalysis,
} from './trace/analyze.js';
export { loadTrace, MAX_TRACE_BYTES, parseTrace, type TraceReadOptions } from './trace/load.js';
export {
  AZURE_COLUMNS,
  BAILIAN_BLOCK_SIZE,
  BURSTGPT_COLUMNS,
  DEFAULT_COLUMNS,
  parseDateTimeMs,
  type TraceColumns,
  type TraceTimeUnit,
} from './trace/parse.js';
export { DEFAULT_TRACE_BLOCK_SIZE, TracePrompts } from './trace/prompts.js';
export { renderTraceAnalysis, traceAnalysisJson } from './trace/render.js';
export type { TraceReplayOptions } from './trace/replay.js';
export { entryHashIds, type Trace } from './trace/trace.js';
export { createWorkload, requestId, type Workload, type WorkloadOptions } from './workload.js';
