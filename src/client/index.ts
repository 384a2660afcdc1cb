/**
 * The HTTP + SSE client: sends streamed completion requests to an OpenAI-compatible
 * endpoint and records raw timestamps and counts (no metrics here). A failed request is a
 * RequestRecord with a stable `error.code`, never a throw.
 *
 * @module
 */

export {
  classifyNetworkError,
  parseRetryAfter,
  redirectMessage,
  serverErrorMessage,
} from './classify.js';
export { createClient } from './client.js';
export {
  type Client,
  type ClientConfig,
  IDLE_CONNECTION_MS,
  MAX_REPLY_CHARS,
  type SendOptions,
  WARMUP_BUDGET_MS,
  type WarmupOptions,
} from './config.js';
export { CONNECTION_WAIT_MS, type ConnectionStats } from './connections.js';
export { type ListModelsOptions, listModels } from './models.js';
export { proxyLabel, resolveProxy } from './proxy.js';
export { endpointUrl, modelsUrl, requestBody } from './request.js';
export {
  connectionsWithinFiles,
  describeLocalLimits,
  type LocalLimits,
  readLocalLimits,
  type SourcePlan,
  sourcePlan,
} from './source-addresses.js';
export { type SseEventHandler, SseParser, type SseParserOptions } from './sse.js';
