/**
 * One generation request over HTTP: parse and validate the OpenAI body, draw its output (length,
 * reasoning, a tool call) and hand it to its Reply (reply.ts), which queues it in the engine and
 * streams (or collects) its tokens under the injected failure plan.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKind } from '../types.js';
import type { FailurePlan } from './failures.js';
import { sendError } from './http.js';
import type { LiveDriver } from './live.js';
import { pickReasoningLength, type ReasoningMode, splitOutput } from './reasoning.js';
import { type ParsedRequest, Reply } from './reply.js';
import { hashString } from './rng.js';
import type * as sse from './sse.js';
import { chatPromptText, contentText, type MessageContent, pickOutputLength, tokenIds } from './text.js';
import { DEFAULT_TOOL_CALL_FRACTION, decideToolCall, offeredTools } from './tools.js';
import { imageTokenIds } from './vision.js';

/** What a generation needs from its server. */
export interface GenerateContext {
  driver: LiveDriver;
  model: string;
  /** LoRA adapters served beside `model` (lora.ts): a request naming one runs with it. */
  adapters?: ReadonlySet<string>;
  seed: number;
  meanOutputTokens: number;
  /** Reasoning mode (chat and Responses): reasoning tokens before each answer. */
  reasoning?: ReasoningMode;
  /** Share of requests offering tools (tool_choice auto) answered with a tool call (tools.ts). */
  toolCallFraction?: number;
  nextId(): number;
}

/** The APIs that generate text (embeddings are served by embeddings.ts). */
export type GenerateApi = Exclude<ApiKind, 'embeddings'>;

/** A prompt's text token ids, then its images' (vision.ts); the text's own array when it has none. */
function withImageTokens(ids: number[], messages: readonly unknown[]): number[] {
  const images = imageTokenIds(messages);
  return images.length === 0 ? ids : [...ids, ...images];
}

function parseBody(api: GenerateApi, body: Record<string, unknown>): ParsedRequest | string {
  let text: string;
  let ids: number[];
  if (api === 'responses') {
    const input = body.input;
    const instructions = typeof body.instructions === 'string' ? body.instructions : '';
    if (typeof input === 'string') text = instructions + input;
    else if (Array.isArray(input) && input.length > 0)
      text = instructions + chatPromptText(input as { content?: MessageContent }[]);
    else return 'input must be a string or a non-empty array of messages';
    ids = withImageTokens(tokenIds(text), Array.isArray(input) ? input : []);
  } else if (api === 'chat') {
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      return 'messages must be a non-empty array';
    text = chatPromptText(body.messages as { content?: MessageContent }[]);
    ids = withImageTokens(tokenIds(text), body.messages);
  } else {
    const p = body.prompt;
    if (typeof p === 'string') text = p;
    else if (Array.isArray(p) && p.every((x) => typeof x === 'number')) text = p.join(',');
    else if (Array.isArray(p)) text = contentText(p.map((x) => ({ text: String(x) })));
    else return 'prompt must be a string, an array of strings or an array of token ids';
    ids = Array.isArray(p) && p.every((x) => typeof x === 'number') ? (p as number[]) : tokenIds(text);
  }
  const limit =
    api === 'responses' ? body.max_output_tokens : (body.max_completion_tokens ?? body.max_tokens);
  if (limit !== undefined && limit !== null && !(Number.isInteger(limit) && (limit as number) >= 1))
    return 'max_tokens must be a positive integer';
  if (body.priority !== undefined && !Number.isSafeInteger(body.priority))
    return 'priority must be an integer';
  const opts = body.stream_options as { include_usage?: unknown } | undefined;
  return {
    ids,
    key: `${text}\u0000${String(body.seed ?? '')}`,
    maxTokens: (limit ?? undefined) as number | undefined,
    ignoreEos: body.ignore_eos === true,
    stream: body.stream === true,
    // The Responses API always reports usage (in response.completed).
    includeUsage: api === 'responses' || opts?.include_usage === true,
    priority: typeof body.priority === 'number' ? body.priority : 0,
  };
}

const ID_PREFIX: Record<GenerateApi, string> = { chat: 'chatcmpl', completions: 'cmpl', responses: 'resp' };

/**
 * Handle POST /v1/chat/completions, /v1/completions or /v1/responses once the body is parsed
 * and the model checked.
 */
export function generate(
  ctx: GenerateContext,
  api: GenerateApi,
  body: Record<string, unknown>,
  plan: FailurePlan,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const parsed = parseBody(api, body);
  if (typeof parsed === 'string') {
    sendError(res, 400, parsed, 'BadRequestError', 400);
    return;
  }
  const { engine } = ctx.driver;
  const promptTokens = parsed.ids.length;
  const maxTokens = parsed.maxTokens ?? Math.max(1, engine.config.maxModelLen - promptTokens);
  // Reasoning mode (not for completions, which have no reasoning field): reasoning first.
  const mode = api === 'completions' ? undefined : ctx.reasoning;
  const out = splitOutput(
    mode ? pickReasoningLength(mode.length, ctx.seed, parsed.key) : 0,
    maxTokens,
    (answerMax) =>
      pickOutputLength({
        seed: ctx.seed,
        key: parsed.key,
        maxTokens: answerMax,
        ignoreEos: parsed.ignoreEos,
        meanOutputTokens: ctx.meanOutputTokens,
      }),
  );
  const why = engine.check(promptTokens, maxTokens, parsed.priority);
  if (why) {
    sendError(res, 400, why, 'BadRequestError', 400);
    return;
  }

  const n = ctx.nextId();
  // An adapter's name comes back as the response's model, as vLLM answers (the server checked it).
  const lora = typeof body.model === 'string' && ctx.adapters?.has(body.model) ? body.model : undefined;
  const model = lora ?? ctx.model;
  const shape: sse.ResponseShape = {
    api,
    id: `${ID_PREFIX[api]}-${n.toString(16).padStart(12, '0')}`,
    created: Math.floor(Date.now() / 1000),
    model,
  };
  const textSeed = hashString(parsed.key, ctx.seed);
  const toolCall =
    api === 'completions'
      ? undefined
      : decideToolCall(
          offeredTools(body),
          ctx.toolCallFraction ?? DEFAULT_TOOL_CALL_FRACTION,
          ctx.seed,
          parsed.key,
          textSeed,
        );
  const reply = new Reply({ ctx, api, parsed, plan, req, res, shape, out, mode, textSeed, promptTokens });
  if (toolCall) reply.toolCall = toolCall;
  if (lora !== undefined) reply.lora = lora;
  reply.start();
}
