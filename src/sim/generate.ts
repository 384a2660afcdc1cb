/**
 * One generation request over HTTP: parse and validate the OpenAI body, apply the injected
 * failure plan, queue the request in the engine, and stream (or collect) its tokens.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKind } from '../types.js';
import type { FailurePlan } from './failures.js';
import { sendError } from './http.js';
import type { LiveDriver } from './live.js';
import { pickReasoningLength, type ReasoningMode, splitOutput } from './reasoning.js';
import type { EngineRequest, RequestSink } from './request.js';
import { ResponsesStream, responsesBody, responsesUsage } from './responses.js';
import { hashString } from './rng.js';
import { EngineRejection } from './scheduler.js';
import * as sse from './sse.js';
import {
  chatPromptText,
  contentText,
  type MessageContent,
  outputToken,
  pickOutputLength,
  sequenceBlockHashes,
  tokenIds,
} from './text.js';
import { argumentFragment, DEFAULT_TOOL_CALL_FRACTION, decideToolCall, offeredTools } from './tools.js';
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

interface ParsedRequest {
  ids: number[];
  key: string;
  maxTokens?: number;
  ignoreEos: boolean;
  stream: boolean;
  includeUsage: boolean;
  /** vLLM's `priority` (0 when absent). */
  priority: number;
}

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
  // A tool call's finish reason, as vLLM reports it (a cut one stays 'length').
  const finishOf = (reason: string): string => (toolCall && reason === 'stop' ? 'tool_calls' : reason);
  const midpoint = Math.ceil(out.tokens / 2);
  let done = false;
  let text = '';
  let reasoningText = '';
  const responses = api === 'responses' ? new ResponsesStream(shape.id, model, shape.created) : undefined;

  const sink: RequestSink = {
    onToken(r: EngineRequest, _tMs: number, count: number) {
      if (done) return;
      // A step's tokens go out together, as vLLM streams one delta per step (several tokens
      // with speculative decoding): one chunk for its reasoning tokens, one for its answer tokens.
      const last = r.generated;
      const first = last - count + 1;
      let reasoningWords = '';
      let answerWords = '';
      for (let i = first; i <= last; i++) {
        if (i <= out.reasoning) reasoningWords += outputToken(textSeed, i - 1);
        else if (toolCall) answerWords += argumentFragment(textSeed, i - 1, out.reasoning, out.tokens - 1);
        else answerWords += outputToken(textSeed, i - 1);
      }
      const parts: [string, boolean][] = [];
      if (reasoningWords !== '') parts.push([reasoningWords, true]);
      if (answerWords !== '') parts.push([answerWords, false]);
      const atMidpoint = first <= midpoint && midpoint <= last;
      if (!parsed.stream) {
        reasoningText += reasoningWords;
        text += answerWords;
      } else if (responses) {
        for (const [words, reasoning] of parts)
          res.write(responses.token(words, reasoning, reasoning ? undefined : toolCall));
        if (plan.malformed && atMidpoint) res.write(sse.MALFORMED_EVENT);
      } else {
        if (first === 1 && api === 'chat') res.write(sse.roleChunk(shape));
        for (const [j, [words, reasoning]] of parts.entries()) {
          if (plan.emptyChoices) res.write(sse.emptyChoicesChunk(shape));
          const finish = last === r.outputTokens && j === parts.length - 1 ? finishOf(r.finishReason) : null;
          if (toolCall && !reasoning) {
            const opens = first <= out.reasoning + 1 && out.reasoning + 1 <= last;
            res.write(sse.toolCallChunk(shape, words, opens ? toolCall : undefined, finish));
          } else res.write(sse.tokenChunk(shape, words, finish, reasoning ? mode?.field : undefined));
        }
        if (plan.malformed && atMidpoint) res.write(sse.MALFORMED_EVENT);
      }
      if (!atMidpoint || last === r.outputTokens) return;
      if (plan.disconnect) {
        done = true;
        engine.abort(r.id, ctx.driver.now());
        // End the TCP connection after what was written flushes: the chunked body never terminates.
        req.socket.end();
      } else if (plan.errorObject && parsed.stream) {
        done = true;
        engine.abort(r.id, ctx.driver.now());
        const message = 'simulated engine failure during generation';
        res.end(responses ? responses.error(message) : sse.errorEvent(message) + sse.SSE_DONE);
      }
    },
    onFinish(r: EngineRequest) {
      if (done || r.finishedAs === 'abort') return;
      done = true;
      const reasoningTokens = Math.min(out.reasoning, r.generated);
      const usage: sse.Usage = {
        prompt_tokens: promptTokens,
        completion_tokens: r.generated,
        total_tokens: promptTokens + r.generated,
      };
      if (mode) usage.completion_tokens_details = { reasoning_tokens: reasoningTokens };
      if (responses && parsed.stream) {
        res.end(responses.finish(r.finishedAs!, responsesUsage(usage, reasoningTokens)));
      } else if (parsed.stream) {
        res.end((parsed.includeUsage ? sse.usageChunk(shape, usage) : '') + sse.SSE_DONE);
      } else if (plan.errorObject) {
        sendError(res, 500, 'simulated engine failure during generation', 'InternalServerError', 500);
      } else if (plan.malformed) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(sse.completeBody(shape, text, r.finishedAs!, usage)).slice(0, 40));
      } else if (api === 'responses') {
        const body = responsesBody(
          shape.id,
          model,
          shape.created,
          reasoningText,
          text,
          r.finishedAs!,
          responsesUsage(usage, reasoningTokens),
          toolCall,
        );
        const json = JSON.stringify(body);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
        res.end(json);
      } else {
        const reasoning = mode ? { field: mode.field, text: reasoningText } : undefined;
        const body = sse.completeBody(shape, text, finishOf(r.finishedAs!), usage, reasoning, toolCall);
        if (plan.emptyChoices) body.choices = [];
        const json = JSON.stringify(body);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
        res.end(json);
      }
    },
  };

  // The reply's blocks too: the next turn of a conversation carries this prompt and this reply.
  const hashes = engine.config.enablePrefixCaching
    ? sequenceBlockHashes(parsed.ids, textSeed, out.tokens, engine.config.blockSize)
    : [];
  if (parsed.stream) {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    if (responses) res.write(responses.start());
    else res.flushHeaders();
  }
  const id = shape.id;
  const enter = (): void => {
    if (res.destroyed || done) return;
    try {
      engine.add(
        {
          id,
          promptTokens,
          promptBlockHashes: hashes,
          outputTokens: out.tokens,
          finishReason: out.finishReason,
          sink,
          priority: parsed.priority,
          ...(lora !== undefined ? { lora } : {}),
        },
        ctx.driver.now(),
      );
    } catch (e) {
      if (!(e instanceof EngineRejection)) throw e;
      done = true;
      if (parsed.stream && responses) res.end(responses.error(e.message));
      else if (parsed.stream) res.end(sse.errorEvent(e.message, 'BadRequestError', 400) + sse.SSE_DONE);
      else sendError(res, 400, e.message, 'BadRequestError', 400);
      return;
    }
    ctx.driver.wake();
  };
  res.on('close', () => {
    if (!done) {
      done = true;
      engine.clientGone(id, ctx.driver.now());
    }
  });
  req.socket.setNoDelay(true);
  if (plan.stallMs) setTimeout(enter, plan.stallMs);
  else enter();
}
