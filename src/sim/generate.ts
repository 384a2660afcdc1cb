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
import type { EngineRequest, RequestSink } from './request.js';
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

/** What a generation needs from its server. */
export interface GenerateContext {
  driver: LiveDriver;
  model: string;
  seed: number;
  meanOutputTokens: number;
  nextId(): number;
}

interface ParsedRequest {
  ids: number[];
  key: string;
  maxTokens?: number;
  ignoreEos: boolean;
  stream: boolean;
  includeUsage: boolean;
}

function parseBody(api: ApiKind, body: Record<string, unknown>): ParsedRequest | string {
  let text: string;
  let ids: number[];
  if (api === 'chat') {
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      return 'messages must be a non-empty array';
    text = chatPromptText(body.messages as { content?: MessageContent }[]);
    ids = tokenIds(text);
  } else {
    const p = body.prompt;
    if (typeof p === 'string') text = p;
    else if (Array.isArray(p) && p.every((x) => typeof x === 'number')) text = p.join(',');
    else if (Array.isArray(p)) text = contentText(p.map((x) => ({ text: String(x) })));
    else return 'prompt must be a string, an array of strings or an array of token ids';
    ids = Array.isArray(p) && p.every((x) => typeof x === 'number') ? (p as number[]) : tokenIds(text);
  }
  const limit = body.max_completion_tokens ?? body.max_tokens;
  if (limit !== undefined && limit !== null && !(Number.isInteger(limit) && (limit as number) >= 1))
    return 'max_tokens must be a positive integer';
  const opts = body.stream_options as { include_usage?: unknown } | undefined;
  return {
    ids,
    key: `${text}\u0000${String(body.seed ?? '')}`,
    maxTokens: (limit ?? undefined) as number | undefined,
    ignoreEos: body.ignore_eos === true,
    stream: body.stream === true,
    includeUsage: opts?.include_usage === true,
  };
}

/** Handle POST /v1/chat/completions or /v1/completions once the body is parsed and the model checked. */
export function generate(
  ctx: GenerateContext,
  api: ApiKind,
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
  const out = pickOutputLength({
    seed: ctx.seed,
    key: parsed.key,
    maxTokens,
    ignoreEos: parsed.ignoreEos,
    meanOutputTokens: ctx.meanOutputTokens,
  });
  const why = engine.check(promptTokens, maxTokens);
  if (why) {
    sendError(res, 400, why, 'BadRequestError', 400);
    return;
  }

  const n = ctx.nextId();
  const shape: sse.ResponseShape = {
    api,
    id: `${api === 'chat' ? 'chatcmpl' : 'cmpl'}-${n.toString(16).padStart(12, '0')}`,
    created: Math.floor(Date.now() / 1000),
    model: ctx.model,
  };
  const textSeed = hashString(parsed.key, ctx.seed);
  const midpoint = Math.ceil(out.tokens / 2);
  let done = false;
  let text = '';

  const sink: RequestSink = {
    onToken(r: EngineRequest) {
      if (done) return;
      const i = r.generated;
      const word = outputToken(textSeed, i - 1);
      if (!parsed.stream) {
        text += word;
      } else {
        if (i === 1 && api === 'chat') res.write(sse.roleChunk(shape));
        if (plan.emptyChoices) res.write(sse.emptyChoicesChunk(shape));
        res.write(sse.tokenChunk(shape, word, i === r.outputTokens ? r.finishReason : null));
        if (plan.malformed && i === midpoint) res.write(sse.MALFORMED_EVENT);
      }
      if (i !== midpoint || i === r.outputTokens) return;
      if (plan.disconnect) {
        done = true;
        engine.abort(r.id, ctx.driver.now());
        // End the TCP connection after what was written flushes: the chunked body never terminates.
        req.socket.end();
      } else if (plan.errorObject && parsed.stream) {
        done = true;
        engine.abort(r.id, ctx.driver.now());
        res.end(sse.errorEvent('simulated engine failure during generation') + sse.SSE_DONE);
      }
    },
    onFinish(r: EngineRequest) {
      if (done || r.finishedAs === 'abort') return;
      done = true;
      const usage = {
        prompt_tokens: promptTokens,
        completion_tokens: r.generated,
        total_tokens: promptTokens + r.generated,
      };
      if (parsed.stream) {
        res.end((parsed.includeUsage ? sse.usageChunk(shape, usage) : '') + sse.SSE_DONE);
      } else if (plan.errorObject) {
        sendError(res, 500, 'simulated engine failure during generation', 'InternalServerError', 500);
      } else if (plan.malformed) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(sse.completeBody(shape, text, r.finishedAs!, usage)).slice(0, 40));
      } else {
        const body = sse.completeBody(shape, text, r.finishedAs!, usage);
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
    res.flushHeaders();
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
        },
        ctx.driver.now(),
      );
    } catch (e) {
      if (!(e instanceof EngineRejection)) throw e;
      done = true;
      if (parsed.stream) res.end(sse.errorEvent(e.message, 'BadRequestError', 400) + sse.SSE_DONE);
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
