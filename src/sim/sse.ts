/**
 * OpenAI-compatible response bodies as vLLM writes them: streamed chunks (SSE `data:` lines),
 * the usage chunk with `choices: []`, non-streaming bodies, and OpenAI's error shape.
 *
 * @module
 */

import type { ApiKind } from '../types.js';

/** What every chunk of one response repeats. */
export interface ResponseShape {
  api: ApiKind;
  id: string;
  created: number;
  model: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Reasoning mode: the reasoning tokens among completion_tokens. */
  completion_tokens_details?: { reasoning_tokens: number };
}

export const SSE_DONE = 'data: [DONE]\n\n';

function event(body: unknown): string {
  return `data: ${JSON.stringify(body)}\n\n`;
}

function chunkObject(s: ResponseShape, choices: unknown[]): Record<string, unknown> {
  return {
    id: s.id,
    object: s.api === 'chat' ? 'chat.completion.chunk' : 'text_completion',
    created: s.created,
    model: s.model,
    choices,
  };
}

/** The first chat chunk: the assistant role with empty content (vLLM sends it before any token). */
export function roleChunk(s: ResponseShape): string {
  return event(
    chunkObject(s, [
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
    ]),
  );
}

/**
 * One token of output; the last one carries its finish_reason. A reasoning token (chat, in
 * reasoning mode) goes in `delta[reasoningField]` instead of `delta.content`.
 */
export function tokenChunk(
  s: ResponseShape,
  text: string,
  finishReason: string | null,
  reasoningField?: string,
): string {
  const choice =
    s.api === 'chat'
      ? {
          index: 0,
          delta: reasoningField ? { [reasoningField]: text } : { content: text },
          logprobs: null,
          finish_reason: finishReason,
        }
      : { index: 0, text, logprobs: null, finish_reason: finishReason, stop_reason: null };
  return event(chunkObject(s, [choice]));
}

/**
 * One step of a tool call's arguments (chat), as vLLM streams it: the call's first delta names
 * it (`index`, `id`, `type`, `function.name`) with the first fragment, later ones carry
 * `index` and `function.arguments` only.
 */
export function toolCallChunk(
  s: ResponseShape,
  fragment: string,
  opening: { id: string; name: string } | undefined,
  finishReason: string | null,
): string {
  const call = opening
    ? { index: 0, id: opening.id, type: 'function', function: { name: opening.name, arguments: fragment } }
    : { index: 0, function: { arguments: fragment } };
  return event(
    chunkObject(s, [
      { index: 0, delta: { tool_calls: [call] }, logprobs: null, finish_reason: finishReason },
    ]),
  );
}

/** The final usage chunk (`stream_options.include_usage`): no choices, usage only. */
export function usageChunk(s: ResponseShape, usage: Usage): string {
  return event({ ...chunkObject(s, []), usage });
}

/** A chunk with an empty choices array and no usage (seen from some gateways). */
export function emptyChoicesChunk(s: ResponseShape): string {
  return event(chunkObject(s, []));
}

/** A deliberately broken SSE data line. */
export const MALFORMED_EVENT = 'data: {"id": "broken", "choices": [{"delta": {"content": " x"\n\n';

/** OpenAI's error object. */
export function openAiError(
  message: string,
  type: string,
  code: string | number | null,
  param: string | null = null,
) {
  return { error: { message, type, param, code } };
}

/** An error object inside a 200 stream (as vLLM sends when generation fails mid-stream). */
export function errorEvent(
  message: string,
  type = 'InternalServerError',
  code: number | string = 500,
): string {
  return event(openAiError(message, type, code));
}

/** A complete non-streaming response body. */
export function completeBody(
  s: ResponseShape,
  text: string,
  finishReason: string,
  usage: Usage,
  reasoning?: { field: string; text: string },
  toolCall?: { id: string; name: string },
): Record<string, unknown> {
  const message: Record<string, unknown> = toolCall
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: toolCall.id, type: 'function', function: { name: toolCall.name, arguments: text } },
        ],
      }
    : { role: 'assistant', content: text };
  if (reasoning && reasoning.text !== '') message[reasoning.field] = reasoning.text;
  const choice =
    s.api === 'chat'
      ? {
          index: 0,
          message,
          logprobs: null,
          finish_reason: finishReason,
        }
      : { index: 0, text, logprobs: null, finish_reason: finishReason, stop_reason: null };
  return {
    id: s.id,
    object: s.api === 'chat' ? 'chat.completion' : 'text_completion',
    created: s.created,
    model: s.model,
    choices: [choice],
    usage,
  };
}
