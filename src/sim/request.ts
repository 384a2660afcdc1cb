/**
 * A request inside the engine, its sink (where its tokens go), and the engine's counters.
 *
 * @module
 */

export type FinishReason = 'stop' | 'length' | 'abort';

/** Receives a request's tokens as the engine produces them (the HTTP stream, or a virtual-time recorder). */
export interface RequestSink {
  /**
   * New output tokens were sampled at `tMs` (engine time): `count` of them (1, or up to k+1 with
   * speculative decoding), `req.generated` being the 1-based index of the last.
   */
  onToken(req: EngineRequest, tMs: number, count: number): void;
  /** The request left the engine (finished, or aborted). */
  onFinish(req: EngineRequest, tMs: number): void;
}

/** What the caller gives the engine. */
export interface EngineRequestInput {
  id: string;
  promptTokens: number;
  /**
   * Chained hashes of the full blocks of the prompt, then of the prompt and output together
   * (prefix caching: generated blocks are cached too); empty disables reuse for this request.
   */
  promptBlockHashes?: number[];
  /** Output length at which the request stops (its EOS position, or max_tokens with ignore_eos). */
  outputTokens: number;
  /** Why it stops at outputTokens: 'length' (hit max_tokens) or 'stop' (EOS). */
  finishReason: 'stop' | 'length';
  sink: RequestSink;
  /** vLLM's `priority` (lower is served first; 0 when absent). Only the 'priority' scheduling policy takes a non-zero one. */
  priority?: number;
  /** The LoRA adapter it runs with (one of the engine's loraModules); absent: the base model. */
  lora?: string;
}

export interface EngineRequest extends EngineRequestInput {
  /** Arrival order, for deterministic tie-breaking. */
  seq: number;
  arrivalMs: number;
  status: 'waiting' | 'running' | 'finished';
  /** Tokens whose KV is computed and held. */
  computed: number;
  /** Output tokens sampled so far. */
  generated: number;
  blocks: number[];
  /** Prompt blocks already registered in (or taken from) the prefix cache. */
  registeredBlocks: number;
  firstScheduledMs?: number;
  firstTokenMs?: number;
  lastTokenMs?: number;
  finishedMs?: number;
  finishedAs?: FinishReason;
  preemptions: number;
  /** Prompt tokens served from the prefix cache at the first admission. */
  cachedPromptTokens: number;
  /** The client went away but the engine keeps generating (--no-abort-on-disconnect). */
  detached: boolean;
}

/** Cumulative engine counters, the in-process twin of /metrics. */
export interface EngineCounters {
  steps: number;
  /** Prompt tokens of requests that got their first token (vLLM's prompt_tokens_total). */
  promptTokens: number;
  generationTokens: number;
  /** Prefill tokens actually computed, recomputation after preemption included. */
  computedPrefillTokens: number;
  preemptions: number;
  prefixCacheQueries: number;
  prefixCacheHits: number;
  finished: { stop: number; length: number; abort: number };
  /** Tokens generated after the client had gone (wasted work). */
  abandonedTokens: number;
  rejected: number;
  /** Engine time spent in steps, ms. */
  busyMs: number;
  /** Speculative decoding (vLLM's spec_decode_* counters): verifications with drafts, tokens drafted, accepted. */
  specDrafts: number;
  specDraftTokens: number;
  specAcceptedTokens: number;
  /** Accepted tokens by draft position (index i: drafts whose first i+1 tokens were kept); length k. */
  specAcceptedByPosition: number[];
}

export function emptyCounters(): EngineCounters {
  return {
    steps: 0,
    promptTokens: 0,
    generationTokens: 0,
    computedPrefillTokens: 0,
    preemptions: 0,
    prefixCacheQueries: 0,
    prefixCacheHits: 0,
    finished: { stop: 0, length: 0, abort: 0 },
    abandonedTokens: 0,
    rejected: 0,
    busyMs: 0,
    specDrafts: 0,
    specDraftTokens: 0,
    specAcceptedTokens: 0,
    specAcceptedByPosition: [],
  };
}
