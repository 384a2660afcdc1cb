/**
 * From the final attempt to the RequestRecord: output tokens from usage, else counted
 * (the server sent none, or the user cancelled and the tokens received are wasted).
 *
 * @module
 */

import type { AttemptRecord, Ms, RequestRecord, WorkItem } from '../types.js';
import type { Redactor } from '../util/index.js';
import { roundMs, type StreamAttempt } from './attempt.js';
import type { SendOptions } from './config.js';

/**
 * Tokens of the kept text, scaled to every character received when the attempt stopped
 * keeping text (MAX_KEPT_TEXT_CHARS): a reply that long is counted as an estimate, at the
 * tokens per character of its first 4 Mi characters.
 */
function scaled(tokens: number, kept: number, received: number): number {
  return kept > 0 && received > kept ? Math.round((tokens * received) / kept) : tokens;
}

/** Tokens received, counted by the client: with the tokenizer when there is one, else one per chunk. */
function countedTokens(a: StreamAttempt, countTokens: ((text: string) => number) | undefined): number {
  if (countTokens && a.texts) {
    if (a.texts.length === 0) return 0;
    try {
      return scaled(countTokens(a.texts.join('')), a.keptChars, a.textChars);
    } catch {
      return a.chunkMs.length;
    }
  }
  return a.chunkMs.length;
}

/** Reasoning tokens received, counted by the client: with the tokenizer when there is one, else one per reasoning chunk. */
function countedReasoningTokens(
  a: StreamAttempt,
  countTokens: ((text: string) => number) | undefined,
): number {
  if (countTokens && a.reasoningTexts) {
    try {
      return scaled(countTokens(a.reasoningTexts.join('')), a.reasoningKeptChars, a.reasoningTextChars);
    } catch {
      return a.reasoningChunks;
    }
  }
  return a.reasoningChunks;
}

/** Build the record of one request from its final attempt and the attempts that failed before it. */
export function toRecord(
  item: WorkItem,
  scheduledMs: Ms,
  firstSentMs: Ms | undefined,
  a: StreamAttempt,
  attempts: number,
  failed: AttemptRecord[],
  countTokens: ((text: string) => number) | undefined,
): RequestRecord {
  const usage = a.usage;
  const usageTokens = usage?.completion_tokens;
  const fromUsage = a.outcome !== 'cancelled' && typeof usageTokens === 'number';
  const record: RequestRecord = {
    id: item.id,
    index: item.index,
    warmup: item.warmup,
    outcome: a.outcome,
    attempts,
    scheduledMs: roundMs(scheduledMs),
    sentMs: a.sentMs,
    firstSentMs: firstSentMs ?? a.sentMs,
    endMs: a.endMs,
    chunkMs: a.chunkMs,
    chunkChars: a.chunkChars,
    promptTokens: item.promptTokens,
    outputTokens: fromUsage ? (usageTokens as number) : countedTokens(a, countTokens),
    outputTokensSource: fromUsage ? 'usage' : 'counted',
    maxTokens: item.maxTokens,
  };
  if (a.error) record.error = a.error;
  if (failed.length > 0) record.failedAttempts = failed;
  if (a.headersMs !== undefined) record.headersMs = a.headersMs;
  if (a.firstTokenMs !== undefined) record.firstTokenMs = a.firstTokenMs;
  if (a.httpStatus !== undefined) record.httpStatus = a.httpStatus;
  if (typeof usage?.prompt_tokens === 'number') record.serverPromptTokens = usage.prompt_tokens;
  if (a.timings) record.serverTimings = a.timings;
  if (a.chunkReasoningChars) record.chunkReasoningChars = a.chunkReasoningChars;
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens;
  if (fromUsage && typeof reasoning === 'number') {
    record.reasoningTokens = reasoning;
  } else if (a.reasoningChunks > 0) {
    // No count from the server (or the user cancelled): the reasoning received, counted.
    record.reasoningTokens = Math.min(record.outputTokens, countedReasoningTokens(a, countTokens));
    record.reasoningTokensSource = 'counted';
  }
  if (a.finishReason !== undefined) record.finishReason = a.finishReason;
  if (a.connectMs !== undefined) record.connectMs = a.connectMs;
  if (a.toolCalls > 0) record.toolCalls = a.toolCalls;
  sessionFields(item, record);
  return record;
}

/** A session turn's record says which session and turn it was (an agent step: which run, after how long a tool wait; a traffic class's request: which class). */
export function sessionFields(item: WorkItem, record: RequestRecord): RequestRecord {
  if (item.sessionId !== undefined) record.sessionId = item.sessionId;
  if (item.turn !== undefined) record.turn = item.turn;
  if (item.agentRun !== undefined) record.agentRun = item.agentRun;
  if (item.toolWaitMs !== undefined) record.toolWaitMs = item.toolWaitMs;
  if (item.class !== undefined) record.class = item.class;
  return record;
}

/**
 * Remove the key (and a proxy password) from every message of a record, a last pass: server
 * text was already redacted before it was cut, this also covers socket and internal messages.
 */
export function scrub(record: RequestRecord, redact: Redactor): void {
  if (record.error) record.error.message = redact(record.error.message);
  for (const f of record.failedAttempts ?? []) f.error.message = redact(f.error.message);
  if (record.finishReason !== undefined) record.finishReason = redact(record.finishReason);
}

/** The record of a request that failed inside the client itself (a bug: never a throw through the runner). */
export function internalFailure(
  item: WorkItem,
  opts: SendOptions,
  nowMs: number,
  err: unknown,
  redact: Redactor,
): RequestRecord {
  const message = redact(`internal client error: ${(err as Error)?.message ?? String(err)}`);
  return sessionFields(item, {
    id: item.id,
    index: item.index,
    warmup: item.warmup,
    outcome: 'error',
    error: { code: 'UNKNOWN', message },
    attempts: 1,
    scheduledMs: roundMs(opts.scheduledMs),
    sentMs: nowMs,
    firstSentMs: nowMs,
    endMs: nowMs,
    chunkMs: [],
    chunkChars: [],
    promptTokens: item.promptTokens,
    outputTokens: 0,
    outputTokensSource: 'counted',
    maxTokens: item.maxTokens,
  });
}
