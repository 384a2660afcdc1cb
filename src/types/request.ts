/** Requests and their records: the clocks, the work items, the per-request record. @module */

export const SCHEMA_VERSION = 1 as const;

/** Milliseconds on the run's monotonic clock (0 = the run's t0). */
export type Ms = number;

/** A monotonic clock in milliseconds. Injected wherever time matters, so tests can control it. */
export interface Clock {
  now(): Ms;
}

/**
 * The clock a load runs on: the wall clock (live time, `RunClock` in runner/) or the
 * simulated engine's clock (virtual time, `VirtualClock` in sim/). `runLoad` waits, keeps its
 * deadline and measures only through it, so both time modes run the same loop.
 */
export interface LoadClock extends Clock {
  /** Resolves true at `targetMs` (at once if it has passed), or false early when the signal aborts. */
  sleepUntil(targetMs: Ms, signal?: AbortSignal): Promise<boolean>;
  /** Calls `fn` at `targetMs` (the --duration deadline); returns a function that cancels it. */
  at(targetMs: Ms, fn: () => void): () => void;
  /** Awaits something outside the clock (a disk write): virtual time does not move meanwhile. */
  outside<T>(p: Promise<T>): Promise<T>;
  /** Wall-clock time: event-loop delay and timer lag can show that the client limited the load. */
  readonly realTime: boolean;
  /** Resolves as `work` does; virtual time fires its timers meanwhile, until `work` settles. */
  run<T>(work: Promise<T>): Promise<T>;
}

/**
 * Which OpenAI endpoint is called: `/v1/chat/completions` ('chat'), `/v1/completions`
 * ('completions'), `/v1/responses` ('responses', the Responses API, streamed) or
 * `/v1/embeddings` ('embeddings', not streamed: latency only, no tokens out).
 */
export type ApiKind = 'chat' | 'completions' | 'responses' | 'embeddings';

/** Every ApiKind, in the order help shows them. */
export const API_KINDS = [
  'chat',
  'completions',
  'responses',
  'embeddings',
] as const satisfies readonly ApiKind[];

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** An assistant reply that called tools (agent runs): its calls, sent back with the conversation. */
  toolCalls?: ToolCallMessage[];
  /** role 'tool': the id of the call this message is the result of. */
  toolCallId?: string;
}

/** A function the requests offer (`--tools`): sent as chat's `{type, function}` or the Responses API's `{type, name, …}`. */
export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters?: Record<string, unknown>;
}

/** `tool_choice`: let the model decide, force a call, forbid one, or force one function. */
export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

/** One tool call of an assistant reply, as a conversation carries it back. */
export interface ToolCallMessage {
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
}

/** Sampling parameters: fixed for a run and recorded, so that runs compare fairly. */
export interface Sampling {
  temperature: number;
  topP?: number;
  /** Default output limit per request; a WorkItem may carry its own. Sent as max_tokens and max_completion_tokens. */
  maxTokens: number;
  seed?: number;
  /** Ask the server to ignore end-of-sequence (vLLM's `ignore_eos`), so that outputs reach maxTokens. */
  ignoreEos: boolean;
}

/** One request to send, produced by the workload. */
export interface WorkItem {
  /** 0-based position in the workload, warmup included. */
  index: number;
  /** Unique within the run, e.g. "r-000042". */
  id: string;
  /** Warmup requests are sent and recorded but excluded from the summary. */
  warmup: boolean;
  /** For api 'chat'. */
  messages?: ChatMessage[];
  /** For api 'completions'. */
  prompt?: string;
  /** Prompt length counted by the client's tokenizer. */
  promptTokens: number;
  /** Output limit for this request. */
  maxTokens: number;
  /** Open loop: intended send time on the run clock. Closed loop: undefined (the runner stamps it). */
  scheduledMs?: Ms;
  /** The simulated user gives up this long after sending: the request is aborted. */
  cancelAfterMs?: number;
  /** Multi-turn sessions: the conversation this request is a turn of (e.g. "s-000003"). */
  sessionId?: string;
  /** Multi-turn sessions: 1-based turn index within the session; the request carries turns 1..turn-1 and their replies. */
  turn?: number;
  /** Images sent in the last user message (`--images`): data URLs and their encoded bytes. */
  images?: { url: string; bytes: number }[];
  /**
   * The conversation's session-affinity id (a session's turns, an agent run's steps), sent as
   * the `--session-header` (X-Session-ID) of the request; seeded, never a secret (workload/affinity.ts).
   */
  affinityId?: string;
  /** Tools offered (`--tools`, agent runs): one array shared by the run's items. */
  tools?: readonly ToolDefinition[];
  /** `tool_choice` sent with the tools (absent: the server's default, auto). */
  toolChoice?: ToolChoice;
  /** Agent runs: the run this model call is a step of (its sub-agents' calls carry the parent's run). */
  agentRun?: string;
  /** Agent runs: the tool latency waited, ms, between the previous step's reply and this call. */
  toolWaitMs?: number;
  /** Traffic classes (`--class`): the class this request belongs to. */
  class?: string;
  /** Sent as vLLM's `priority` field (its class's priority). */
  priority?: number;
  /** Sent as `model` instead of the run's (its class's model or LoRA adapter). */
  model?: string;
}

export type Outcome = 'success' | 'error' | 'cancelled';

/**
 * Stable codes for a failed request. `cause` and `hint` for each live in errors.ts
 * (REQUEST_ERRORS); doctor and the run's error summary use the same table.
 */
export type RequestErrorCode =
  | 'CONNECTION_REFUSED'
  | 'DNS_FAILURE'
  | 'TLS_FAILURE'
  | 'CONNECT_TIMEOUT'
  | 'CONNECTION_RESET'
  | 'PROXY_FAILURE'
  | 'SOCKETS_EXHAUSTED'
  | 'TIMEOUT'
  | 'TTFT_TIMEOUT'
  | 'HTTP_REDIRECT'
  | 'HTTP_UNAUTHORIZED'
  | 'HTTP_FORBIDDEN'
  | 'HTTP_NOT_FOUND'
  | 'HTTP_RATE_LIMITED'
  | 'HTTP_CLIENT_ERROR'
  | 'HTTP_SERVER_ERROR'
  | 'HTTP_UNAVAILABLE'
  | 'BAD_JSON'
  | 'BAD_SSE'
  | 'EMPTY_STREAM'
  | 'STREAM_TRUNCATED'
  | 'STREAM_ERROR_OBJECT'
  | 'EMPTY_CHOICES'
  | 'IMPOSSIBLE_VALUE'
  | 'ABORTED'
  | 'INTERRUPTED'
  | 'UNKNOWN';

export interface RequestError {
  code: RequestErrorCode;
  /** What happened, in the server's or the socket's own words where there are any. Never contains the key. */
  message: string;
  httpStatus?: number;
}

/** An attempt that failed and was retried (the final attempt is the record itself). */
export interface AttemptRecord {
  attempt: number;
  sentMs: Ms;
  endMs: Ms;
  error: RequestError;
  /** Parsed Retry-After, when the server sent one. */
  retryAfterMs?: number;
}

/**
 * What the client observed for one request: raw timestamps and counts, no derived metrics.
 * A failed request is a record with `outcome: 'error'`, never an exception.
 */
/** What llama.cpp's server says of one request (`timings`: prompt_n, cache_n, prompt_ms, predicted_n, predicted_ms). */
export interface ServerTimings {
  /** prompt_n: prompt tokens the server processed for this request. */
  promptTokens: number;
  /** cache_n: prompt tokens it reused from its cache instead (prefix reuse). */
  cachedTokens: number;
  /** prompt_ms: time spent processing the prompt. */
  promptMs?: number;
  /** predicted_n: tokens generated. */
  predictedTokens?: number;
  /** predicted_ms: time spent generating them. */
  predictedMs?: number;
}

export interface RequestRecord {
  id: string;
  index: number;
  warmup: boolean;
  outcome: Outcome;
  /** Set for outcome 'error' and 'cancelled' (code ABORTED or INTERRUPTED). */
  error?: RequestError;
  /** Attempts made, the final one included (1 = no retry). */
  attempts: number;
  failedAttempts?: AttemptRecord[];
  /** Intended send time (open loop) or the time the slot became free (closed loop). */
  scheduledMs: Ms;
  /** Send time of the final attempt. */
  sentMs: Ms;
  /** Send time of the first attempt (equals sentMs when there was no retry). */
  firstSentMs: Ms;
  headersMs?: Ms;
  /** First chunk carrying output: answer (content, tool calls) or reasoning. */
  firstTokenMs?: Ms;
  /** Last byte of the response, or the moment of failure or abort. */
  endMs: Ms;
  /** Arrival time of every chunk carrying answer or reasoning output (first = firstTokenMs). */
  chunkMs: Ms[];
  /** Characters of answer + reasoning output in each of those chunks (same length as chunkMs). */
  chunkChars: number[];
  /**
   * Characters of reasoning (`reasoning_content` / `reasoning`, Responses reasoning deltas) in
   * each chunk, same length as chunkMs; the rest of chunkChars is answer (content, tool-call
   * names and arguments). Absent when no chunk carried reasoning.
   */
  chunkReasoningChars?: number[];
  httpStatus?: number;
  /** Prompt tokens counted by the client. */
  promptTokens: number;
  /** usage.prompt_tokens, when the server reported it. */
  serverPromptTokens?: number;
  /**
   * llama.cpp's `timings` (its last streamed chunk, or the body): prompt tokens it processed,
   * prompt tokens it took from its cache (cache_n), and the times it spent, ms. Absent from
   * other engines.
   */
  serverTimings?: ServerTimings;
  /** usage.completion_tokens when reported, else tokens counted by the client. */
  outputTokens: number;
  outputTokensSource: 'usage' | 'counted';
  /**
   * Reasoning tokens: usage.completion_tokens_details.reasoning_tokens (Responses:
   * usage.output_tokens_details.reasoning_tokens) when reported, else counted by the client
   * when reasoning was streamed. Part of outputTokens.
   */
  reasoningTokens?: number;
  /** Where reasoningTokens came from; absent means 'usage' (older records). */
  reasoningTokensSource?: 'usage' | 'counted';
  maxTokens: number;
  finishReason?: string;
  /** TCP (+TLS) connect time when this request had to open a new connection. */
  connectMs?: number;
  /**
   * Transparent resends (0 or 1, absent when 0): the request was written on an idle keep-alive
   * connection that the server had already closed, before any byte of a response; not a retry.
   */
  resends?: number;
  /** Multi-turn sessions: the session this request is a turn of (WorkItem.sessionId). */
  sessionId?: string;
  /** Multi-turn sessions: 1-based turn index within the session (WorkItem.turn). */
  turn?: number;
  /** Tool calls in the reply (streamed `tool_calls` deltas that open a call, Responses `function_call` items). */
  toolCalls?: number;
  /** Agent runs: the run this model call is a step of (WorkItem.agentRun). */
  agentRun?: string;
  /** Agent runs: the tool latency waited before this call, ms (WorkItem.toolWaitMs). */
  toolWaitMs?: number;
  /** Traffic classes: the class of the request (WorkItem.class). */
  class?: string;
}
