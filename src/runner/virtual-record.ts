/**
 * The record of a virtual request: what a live client would have recorded for the engine's
 * token times (`runner/virtual.ts` sends the requests).
 *
 * @module
 */

import type { RequestRecord, WorkItem } from '../types.js';

const us = (ms: number) => Math.round(ms * 1000) / 1000;

/** How a virtual request ended, as the client would have seen it. */
export type VirtualEnd =
  | { kind: 'finished'; finishReason: 'stop' | 'length' | 'abort' }
  /** The engine refused it: 400 (too long, a priority without the policy), or 404 (a model it does not serve). */
  | { kind: 'rejected'; message: string; httpStatus?: 404 }
  | { kind: 'cancelled'; afterMs: number }
  | { kind: 'interrupted'; message: string };

/**
 * One simulated request as the client would have recorded it: sent, first token, one chunk per
 * token, end. In reasoning mode (`reasoningTokens` given: the first that many output tokens are
 * reasoning), the chunks carry their phase as the live client records it (`chunkReasoningChars`)
 * and the reasoning tokens come from usage when the request finished, else counted.
 */
export function virtualRecord(
  item: WorkItem,
  times: {
    scheduledMs: number;
    sentMs: number;
    endMs: number;
    tokenMs: readonly number[];
    /** Tokens of each engine step, in order (speculative decoding emits several); absent: one each. */
    stepTokens?: readonly number[];
  },
  end: VirtualEnd,
  reasoningTokens?: number,
): RequestRecord {
  const sent = us(times.sentMs);
  const reasoned = reasoningTokens === undefined ? 0 : Math.min(reasoningTokens, times.tokenMs.length);
  const chunks = stepChunks(times.tokenMs, times.stepTokens, reasoned);
  const record: RequestRecord = {
    id: item.id,
    index: item.index,
    warmup: item.warmup,
    outcome: 'success',
    attempts: 1,
    scheduledMs: us(times.scheduledMs),
    sentMs: sent,
    firstSentMs: sent,
    headersMs: sent,
    endMs: us(times.endMs),
    chunkMs: chunks.ms,
    chunkChars: chunks.tokens,
    httpStatus: 200,
    promptTokens: item.promptTokens,
    serverPromptTokens: item.promptTokens,
    outputTokens: times.tokenMs.length,
    outputTokensSource: 'usage',
    maxTokens: item.maxTokens,
  };
  if (record.chunkMs.length > 0) record.firstTokenMs = record.chunkMs[0];
  if (item.sessionId !== undefined) record.sessionId = item.sessionId;
  if (item.turn !== undefined) record.turn = item.turn;
  if (item.class !== undefined) record.class = item.class;
  if (reasoned > 0) record.chunkReasoningChars = chunks.reasoning;
  switch (end.kind) {
    case 'finished':
      record.finishReason = end.finishReason;
      // usage.completion_tokens_details.reasoning_tokens, as the live engine reports it (0 included).
      if (reasoningTokens !== undefined) record.reasoningTokens = reasoned;
      return record;
    case 'rejected': {
      const httpStatus = end.httpStatus ?? 400;
      const code = httpStatus === 404 ? 'HTTP_NOT_FOUND' : 'HTTP_CLIENT_ERROR';
      return {
        ...record,
        outcome: 'error',
        httpStatus,
        error: { code, message: end.message, httpStatus },
        outputTokens: 0,
      };
    }
    case 'cancelled':
      // The user gave up: the record ends there with the tokens received so far.
      record.outcome = 'cancelled';
      record.error = { code: 'ABORTED', message: `cancelled after ${end.afterMs} ms (simulated user)` };
      return countedReasoning(record, reasoned);
    case 'interrupted':
      record.outcome = 'cancelled';
      record.error = { code: 'INTERRUPTED', message: end.message };
      return countedReasoning(record, reasoned);
  }
}

/**
 * The chunks the live engine streams for these token times: one per step (its `stepTokens`
 * tokens, one character each), split in two at the end of the first `reasoned` tokens as the
 * live engine sends a step's reasoning and answer tokens in separate chunks.
 */
function stepChunks(
  tokenMs: readonly number[],
  stepTokens: readonly number[] | undefined,
  reasoned: number,
): { ms: number[]; tokens: number[]; reasoning: number[] } {
  const out = { ms: [] as number[], tokens: [] as number[], reasoning: [] as number[] };
  const push = (ms: number, tokens: number, reasoning: number): void => {
    out.ms.push(us(ms));
    out.tokens.push(tokens);
    out.reasoning.push(reasoning);
  };
  let first = 0;
  for (let s = 0; first < tokenMs.length; s++) {
    const count = Math.min(stepTokens?.[s] ?? 1, tokenMs.length - first);
    const r = Math.max(0, Math.min(count, reasoned - first));
    if (r > 0) push(tokenMs[first]!, r, r);
    if (count > r) push(tokenMs[first]!, count - r, 0);
    first += count;
  }
  return out;
}

/** A request that ended without usage: its tokens (and reasoning tokens, if any) are the ones received. */
function countedReasoning(record: RequestRecord, reasoned: number): RequestRecord {
  record.outputTokensSource = 'counted';
  if (reasoned > 0) {
    record.reasoningTokens = reasoned;
    record.reasoningTokensSource = 'counted';
  }
  return record;
}
