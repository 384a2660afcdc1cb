/**
 * The simulated vLLM-like engine: a live OpenAI-compatible server (`startSim`), the engine
 * itself for in-process use, virtual time (`VirtualClock`, `VirtualEngine`, `simulateVirtual`) and profiles. `goodput sim` is in command.ts.
 *
 * @module
 */

export {
  type EngineConfig,
  type EngineOptions,
  kvCapacityBlocks,
  resolveEngineConfig,
} from './engine-config.js';
export { type FailureConfig, FailureInjector, type FailurePlan } from './failures.js';
export { type EmbeddedSim, startEmbeddedSim } from './isolated.js';
export { KvCache } from './kv-cache.js';
export { LiveDriver } from './live.js';
export {
  DEFAULT_PROFILE,
  GPU_PROFILES,
  type GpuProfile,
  kvBytesPerToken,
  loadProfileFile,
  MODEL_PROFILES,
  type ModelProfile,
  type ProfileFile,
  profileFromJson,
  profileToJson,
  resolveProfile,
  type SimProfile,
  type StepTimeRates,
} from './profiles.js';
export {
  parseReasoningField,
  parseReasoningLength,
  pickReasoningLength,
  REASONING_FIELDS,
  type ReasoningField,
  type ReasoningLength,
  type ReasoningMode,
  splitOutput,
} from './reasoning.js';
export type {
  EngineCounters,
  EngineRequest,
  EngineRequestInput,
  FinishReason,
  RequestSink,
} from './request.js';
export { hashString } from './rng.js';
export { attentionPairs, createRoofline, type Roofline, type StepCost, type StepSlice } from './roofline.js';
export { Engine, type EngineListener, EngineRejection, type StepEntry, type StepPlan } from './scheduler.js';
export { virtualSelfDescription } from './self-description.js';
export { type SimOptions, type SimServer, startSim, withoutBaseAdapter } from './server.js';
export {
  acceptChain,
  createDraftCost,
  DRAFTERS,
  expectedAcceptance,
  MAX_SPECULATIVE_TOKENS,
  parseSpeculativeConfig,
  type SpecMethod,
  type SpeculativeConfig,
} from './spec-decode.js';
export {
  chatPromptText,
  OUTPUT_WORDS,
  outputToken as outputTokenText,
  pickOutputLength,
  replyText,
  sequenceBlockHashes,
  tokenIds,
} from './text.js';
export {
  argumentFragment,
  DEFAULT_TOOL_CALL_FRACTION,
  decideToolCall,
  type OfferedTools,
  offeredTools,
  type SimToolCall,
} from './tools.js';
export {
  simulateVirtual,
  syntheticBlockHashes,
  VirtualClock,
  VirtualEngine,
  type VirtualOptions,
  type VirtualRequest,
  type VirtualResult,
  type VirtualTiming,
} from './virtual.js';
export { imageSize, imageTokenIds, imageTokens, imageUrlTokenIds } from './vision.js';
