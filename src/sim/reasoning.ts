/**
 * The simulated engine's reasoning mode: every chat (and Responses) request first streams a
 * number of reasoning tokens, in `delta.reasoning_content` (DeepSeek-R1, Qwen3 on vLLM) or
 * `delta.reasoning` (gpt-oss, newer vLLM), then its answer. Reasoning tokens count against
 * max_tokens and in usage.completion_tokens, and usage reports them in
 * `completion_tokens_details.reasoning_tokens`, as OpenAI does.
 *
 * `--reasoning-tokens` spells the length: `N` (every request reasons exactly N tokens),
 * `exp:N` (exponential, mean N, at least 1) or `A-B` (uniform from A to B). Seeded per request
 * like the output lengths, so a run is repeatable.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import { createSimRng, hashString } from './rng.js';

/** How many reasoning tokens each request produces. */
export type ReasoningLength =
  | { kind: 'fixed'; tokens: number }
  | { kind: 'exp'; mean: number }
  | { kind: 'uniform'; min: number; max: number };

/** The delta field reasoning text is streamed in. */
export type ReasoningField = 'reasoning_content' | 'reasoning';
export const REASONING_FIELDS: readonly ReasoningField[] = ['reasoning_content', 'reasoning'];

export interface ReasoningMode {
  length: ReasoningLength;
  field: ReasoningField;
}

const MAX_REASONING_TOKENS = 1_000_000;
const HINT = 'write --reasoning-tokens N (exactly N), exp:N (exponential, mean N) or A-B (uniform), e.g. 200';

function count(text: string, raw: string): number {
  if (!/^\d+$/.test(text)) {
    throw new GoodputError('E_USAGE', `--reasoning-tokens '${raw}' is not a token count`, HINT);
  }
  const n = Number(text);
  if (n > MAX_REASONING_TOKENS) {
    throw new GoodputError(
      'E_USAGE',
      `--reasoning-tokens '${raw}' is above ${MAX_REASONING_TOKENS}`,
      'use a length a model could reason, e.g. 2000',
    );
  }
  return n;
}

/**
 * Parses `--reasoning-tokens`. Throws E_USAGE (with the accepted forms as hint) on anything else.
 *
 * @example
 * parseReasoningLength('200');     // { kind: 'fixed', tokens: 200 }
 * parseReasoningLength('exp:300'); // { kind: 'exp', mean: 300 }
 * parseReasoningLength('100-400'); // { kind: 'uniform', min: 100, max: 400 }
 */
export function parseReasoningLength(raw: string): ReasoningLength {
  const text = raw.trim();
  if (text.startsWith('exp:')) {
    const mean = count(text.slice(4), raw);
    if (mean < 1)
      throw new GoodputError('E_USAGE', `--reasoning-tokens '${raw}' needs a mean of at least 1`, HINT);
    return { kind: 'exp', mean };
  }
  const dash = text.indexOf('-');
  if (dash > 0) {
    const min = count(text.slice(0, dash), raw);
    const max = count(text.slice(dash + 1), raw);
    if (min > max)
      throw new GoodputError('E_USAGE', `--reasoning-tokens '${raw}': ${min} is above ${max}`, HINT);
    return { kind: 'uniform', min, max };
  }
  return { kind: 'fixed', tokens: count(text, raw) };
}

/** A ReasoningField from a flag value; E_USAGE naming both accepted names otherwise. */
export function parseReasoningField(raw: string): ReasoningField {
  if ((REASONING_FIELDS as readonly string[]).includes(raw)) return raw as ReasoningField;
  throw new GoodputError(
    'E_USAGE',
    `--reasoning-field '${raw}' is not a reasoning field`,
    `use ${REASONING_FIELDS.join(' or ')}`,
  );
}

/** The reasoning length of one request, seeded by the server seed and the request's key. */
export function pickReasoningLength(length: ReasoningLength, seed: number, key: string): number {
  if (length.kind === 'fixed') return length.tokens;
  const u = createSimRng(hashString(key, seed ^ 0x5bd1e995)).next();
  if (length.kind === 'exp') return 1 + Math.floor(-length.mean * Math.log(1 - u));
  return length.min + Math.floor(u * (length.max - length.min + 1));
}

/**
 * Splits a request's output into reasoning and answer: reasoning first (capped at maxTokens:
 * a model cut off while thinking gives no answer), then `answer` tokens with their finish reason.
 */
export function splitOutput(
  reasoning: number,
  maxTokens: number,
  answer: (maxAnswerTokens: number) => { tokens: number; finishReason: 'stop' | 'length' },
): { reasoning: number; tokens: number; finishReason: 'stop' | 'length' } {
  if (reasoning >= maxTokens) return { reasoning: maxTokens, tokens: maxTokens, finishReason: 'length' };
  const a = answer(maxTokens - reasoning);
  return { reasoning, tokens: reasoning + a.tokens, finishReason: a.finishReason };
}
