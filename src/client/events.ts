/**
 * What one parsed stream event (or a non-streamed body) carries, per API, as plain data: the
 * answer text (content, tool-call names and arguments, Responses output text) and the
 * reasoning text apart, the usage, and how the stream ends. `StreamAttempt` stamps the times;
 * these functions only read JSON (no clock, no I/O), so they are table-tested alone.
 *
 * Responses API streaming (`POST /v1/responses`, `stream: true`): typed events, no `[DONE]`.
 * - answer: `response.output_text.delta`, `response.refusal.delta`,
 *   `response.function_call_arguments.delta` (a tool call), `response.custom_tool_call_input.delta`;
 * - reasoning: `response.reasoning_text.delta`, `response.reasoning_summary_text.delta`;
 * - end: `response.completed` (finish 'stop'), `response.incomplete` (its
 *   `incomplete_details.reason`; `max_output_tokens` is finish 'length'), each with the usage
 *   (`input_tokens`, `output_tokens`, `output_tokens_details.reasoning_tokens`);
 * - failure: `response.failed` (its `response.error.message`) and `error` events;
 * - every other type (created, in_progress, output_item.*, content_part.*, *.done) carries no output.
 *
 * llama.cpp adds `timings` (prompt tokens processed and cached, times) to its last chunk:
 * `serverTimings` reads it.
 *
 * @module
 */

import type { ServerTimings } from '../types.js';
import { truncate } from './classify.js';

/** The usage object of an OpenAI response, as far as the client reads it (chat/completions names). */
export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

/** Output text found in one event or body, by phase. */
export interface OutputParts {
  /** Answer pieces: content, tool-call names and arguments, output text. */
  answer: string[];
  /** Reasoning pieces: reasoning_content / reasoning, Responses reasoning deltas. */
  reasoning: string[];
  /** Tool calls this event opens (a streamed call's first delta carries its `id`), when any. */
  toolCalls?: number;
}

function text(value: unknown, into: string[]): void {
  if (typeof value === 'string' && value.length > 0) into.push(value);
}

/**
 * Output of a chat `delta` (streamed) or `message` (non-streamed): content and tool calls
 * (function name and arguments of each) are answer; `reasoning_content`, else `reasoning`, is
 * reasoning (servers send one of the two; never counted twice).
 */
export function chatParts(delta: Record<string, unknown>): OutputParts {
  const parts: OutputParts = { answer: [], reasoning: [] };
  text(delta.content, parts.answer);
  const calls = delta.tool_calls;
  if (Array.isArray(calls)) {
    for (const call of calls) {
      if (call === null || typeof call !== 'object') continue;
      // A call's first delta (or a non-streamed message's call) carries its id; later deltas do not.
      if (typeof (call as Record<string, unknown>).id === 'string')
        parts.toolCalls = (parts.toolCalls ?? 0) + 1;
      const fn = (call as Record<string, unknown>).function;
      if (fn === null || typeof fn !== 'object') continue;
      text((fn as Record<string, unknown>).name, parts.answer);
      text((fn as Record<string, unknown>).arguments, parts.answer);
    }
  }
  text(delta.reasoning_content !== undefined ? delta.reasoning_content : delta.reasoning, parts.reasoning);
  return parts;
}

const RESPONSES_ANSWER = new Set([
  'response.output_text.delta',
  'response.refusal.delta',
  'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta',
]);
const RESPONSES_REASONING = new Set([
  'response.reasoning_text.delta',
  'response.reasoning_summary_text.delta',
]);

/** What one Responses API stream event means. */
export type ResponsesStep =
  | { kind: 'output'; parts: OutputParts }
  | { kind: 'end'; finishReason: string; usage?: Record<string, unknown> }
  | { kind: 'failed'; message: string }
  | { kind: 'other' };

/** Reads one Responses API stream event (its `type` field, else the SSE event name). */
export function responsesStep(event: Record<string, unknown>, eventType: string): ResponsesStep {
  const type = typeof event.type === 'string' ? event.type : eventType;
  if (RESPONSES_ANSWER.has(type) || RESPONSES_REASONING.has(type)) {
    const parts: OutputParts = { answer: [], reasoning: [] };
    text(event.delta, RESPONSES_ANSWER.has(type) ? parts.answer : parts.reasoning);
    return { kind: 'output', parts };
  }
  if (type === 'response.output_item.added') {
    const item = event.item as { type?: unknown } | null | undefined;
    if (item?.type === 'function_call' || item?.type === 'custom_tool_call')
      return { kind: 'output', parts: { answer: [], reasoning: [], toolCalls: 1 } };
    return { kind: 'other' };
  }
  const response = (event.response ?? {}) as Record<string, unknown>;
  if (type === 'response.completed' || type === 'response.incomplete') {
    const details = response.incomplete_details as { reason?: unknown } | null | undefined;
    const reason = typeof details?.reason === 'string' ? details.reason : undefined;
    const finishReason =
      type === 'response.completed'
        ? 'stop'
        : reason === 'max_output_tokens'
          ? 'length'
          : (reason ?? 'incomplete');
    const usage = response.usage;
    return usage !== null && typeof usage === 'object'
      ? { kind: 'end', finishReason, usage: usage as Record<string, unknown> }
      : { kind: 'end', finishReason };
  }
  if (type === 'response.failed' || type === 'error') {
    const err = (response.error ?? event) as { message?: unknown };
    return { kind: 'failed', message: typeof err.message === 'string' ? err.message : type };
  }
  return { kind: 'other' };
}

/**
 * A Responses usage object in the chat/completions names the record reads: input_tokens →
 * prompt_tokens, output_tokens → completion_tokens, output_tokens_details.reasoning_tokens →
 * completion_tokens_details.reasoning_tokens (so one impossible-value check covers both).
 */
export function responsesUsage(usage: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (usage.input_tokens !== undefined) out.prompt_tokens = usage.input_tokens;
  if (usage.output_tokens !== undefined) out.completion_tokens = usage.output_tokens;
  if (usage.total_tokens !== undefined) out.total_tokens = usage.total_tokens;
  const details = usage.output_tokens_details;
  if (details !== undefined && details !== null) {
    out.completion_tokens_details =
      typeof details === 'object'
        ? { reasoning_tokens: (details as Record<string, unknown>).reasoning_tokens }
        : details;
  }
  return out;
}

/** Output of a non-streamed Responses body: its `output` items (message text, reasoning, function calls). */
export function responsesBodyParts(doc: Record<string, unknown>): OutputParts {
  const parts: OutputParts = { answer: [], reasoning: [] };
  const output = doc.output;
  if (!Array.isArray(output)) return parts;
  for (const item of output) {
    if (item === null || typeof item !== 'object') continue;
    const it = item as Record<string, unknown>;
    if (it.type === 'function_call') {
      parts.toolCalls = (parts.toolCalls ?? 0) + 1;
      text(it.name, parts.answer);
      text(it.arguments, parts.answer);
      continue;
    }
    const into = it.type === 'reasoning' ? parts.reasoning : parts.answer;
    for (const key of ['content', 'summary'] as const) {
      const list = it[key];
      if (!Array.isArray(list)) continue;
      for (const c of list) if (c && typeof c === 'object') text((c as Record<string, unknown>).text, into);
    }
  }
  return parts;
}

/**
 * Why an embeddings body is not one (no `data` list, or an item without an `embedding`), or
 * undefined when it is. The vectors are not kept: only their presence is checked.
 */
export function embeddingsProblem(doc: Record<string, unknown>): string | undefined {
  const data = doc.data;
  if (!Array.isArray(data) || data.length === 0) return 'the response carried no data';
  for (const [i, d] of data.entries()) {
    const e = d && typeof d === 'object' ? (d as Record<string, unknown>).embedding : undefined;
    if (!(Array.isArray(e) || typeof e === 'string')) return `data[${i}] has no embedding`;
  }
  return undefined;
}

/** Largest token count or time (ms) a `timings` field may claim; beyond it the field is not read. */
const MAX_TIMING = 1e9;

function timing(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_TIMING ? v : undefined;
}

/**
 * llama.cpp's `timings` object (tools/server: on the last streamed chunk, and on a
 * non-streamed body): `prompt_n` tokens processed, `cache_n` tokens reused from the cache,
 * `prompt_ms`, `predicted_n`, `predicted_ms`. Undefined when the event carries none, or when
 * prompt_n or cache_n is not a token count; other fields are kept only when they are sane.
 */
export function serverTimings(event: Record<string, unknown>): ServerTimings | undefined {
  const t = event.timings;
  if (t === null || typeof t !== 'object' || Array.isArray(t)) return undefined;
  const o = t as Record<string, unknown>;
  const promptTokens = timing(o.prompt_n);
  const cachedTokens = timing(o.cache_n);
  if (
    promptTokens === undefined ||
    cachedTokens === undefined ||
    !Number.isInteger(promptTokens) ||
    !Number.isInteger(cachedTokens)
  )
    return undefined;
  const out: ServerTimings = { promptTokens, cachedTokens };
  const promptMs = timing(o.prompt_ms);
  const predictedTokens = timing(o.predicted_n);
  const predictedMs = timing(o.predicted_ms);
  if (promptMs !== undefined) out.promptMs = promptMs;
  if (predictedTokens !== undefined && Number.isInteger(predictedTokens))
    out.predictedTokens = predictedTokens;
  if (predictedMs !== undefined) out.predictedMs = predictedMs;
  return out;
}

/** Largest token count a usage object may claim before it is taken as impossible. */
export const MAX_PLAUSIBLE_TOKENS = 100_000_000;

/**
 * Why a usage object cannot be true (a count that is not a non-negative integer below
 * {@link MAX_PLAUSIBLE_TOKENS}), or undefined when it can. Absent and null counts are fine.
 */
export function impossibleUsage(usage: Record<string, unknown>): string | undefined {
  for (const key of ['prompt_tokens', 'completion_tokens', 'total_tokens'] as const) {
    const v = usage[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_PLAUSIBLE_TOKENS) {
      return `usage.${key} is ${truncate(JSON.stringify(v) ?? String(v), 40)}, not a token count`;
    }
  }
  const details = usage.completion_tokens_details;
  if (details !== undefined && details !== null) {
    if (typeof details !== 'object') return 'usage.completion_tokens_details is not an object';
    const r = (details as Record<string, unknown>).reasoning_tokens;
    if (
      r !== undefined &&
      r !== null &&
      (typeof r !== 'number' || !Number.isInteger(r) || r < 0 || r > MAX_PLAUSIBLE_TOKENS)
    ) {
      return `usage.completion_tokens_details.reasoning_tokens is ${truncate(JSON.stringify(r) ?? String(r), 40)}, not a token count`;
    }
  }
  return undefined;
}
