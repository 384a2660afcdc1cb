/**
 * zod schema of a requests.jsonl line (RequestRecord) and of a request's error code, which
 * summary.json's error counts use too. Split from schema.ts by topic, with the same
 * compile-time check that each schema infers exactly the writer's type.
 *
 * @module
 */

import { z } from 'zod';
import { REQUEST_ERRORS } from '../errors.js';
import type { RequestErrorCode, RequestRecord } from '../types.js';

const num = z.number();
const int = z.number().int().nonnegative();

/** Every request error code: the keys of REQUEST_ERRORS, which lists each one with its cause and fix. */
const REQUEST_ERROR_CODES = Object.keys(REQUEST_ERRORS) as [RequestErrorCode, ...RequestErrorCode[]];

export const requestErrorCode = z.enum(REQUEST_ERROR_CODES);
const requestError = z.object({ code: requestErrorCode, message: z.string(), httpStatus: int.optional() });

export const RequestRecordSchema = z.object({
  id: z.string(),
  index: int,
  warmup: z.boolean(),
  outcome: z.enum(['success', 'error', 'cancelled']),
  error: requestError.optional(),
  attempts: int,
  failedAttempts: z
    .array(
      z.object({
        attempt: int,
        sentMs: num,
        endMs: num,
        error: requestError,
        retryAfterMs: num.optional(),
      }),
    )
    .optional(),
  scheduledMs: num,
  sentMs: num,
  firstSentMs: num,
  headersMs: num.optional(),
  firstTokenMs: num.optional(),
  endMs: num,
  chunkMs: z.array(num),
  chunkChars: z.array(num),
  chunkReasoningChars: z.array(num).optional(),
  httpStatus: int.optional(),
  promptTokens: int,
  serverPromptTokens: int.optional(),
  serverTimings: z
    .object({
      promptTokens: int,
      cachedTokens: int,
      promptMs: num.optional(),
      predictedTokens: int.optional(),
      predictedMs: num.optional(),
    })
    .optional(),
  outputTokens: int,
  outputTokensSource: z.enum(['usage', 'counted']),
  reasoningTokens: int.optional(),
  reasoningTokensSource: z.enum(['usage', 'counted']).optional(),
  maxTokens: int,
  finishReason: z.string().optional(),
  connectMs: num.optional(),
  resends: int.optional(),
  sessionId: z.string().optional(),
  turn: int.optional(),
  toolCalls: int.optional(),
  agentRun: z.string().optional(),
  toolWaitMs: num.optional(),
  class: z.string().optional(),
});

// Compile-time: each schema infers exactly the writer's type (see schema.ts).
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameTypes: [
  Same<z.infer<typeof RequestRecordSchema>, RequestRecord>,
  Same<z.infer<typeof requestErrorCode>, RequestErrorCode>,
] = [true, true];
void sameTypes;
