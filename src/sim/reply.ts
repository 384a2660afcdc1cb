/**
 * One generation's reply over HTTP, once generate.ts has parsed and checked the request: it
 * enters the engine (after an injected stall), streams each step's tokens as vLLM streams them
 * (or collects them), plays the injected mid-stream failures, and ends the response with usage.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FailurePlan } from './failures.js';
import type { GenerateApi, GenerateContext } from './generate.js';
import { sendError } from './http.js';
import type { ReasoningMode } from './reasoning.js';
import type { EngineRequest, RequestSink } from './request.js';
import { ResponsesStream, responsesBody, responsesUsage } from './responses.js';
import { EngineRejection } from './scheduler.js';
import * as sse from './sse.js';
import { outputToken, sequenceBlockHashes } from './text.js';
import { argumentFragment, type SimToolCall } from './tools.js';

/** A request body as the engine takes it. */
export interface ParsedRequest {
  ids: number[];
  key: string;
  maxTokens?: number;
  ignoreEos: boolean;
  stream: boolean;
  includeUsage: boolean;
  /** vLLM's `priority` (0 when absent). */
  priority: number;
}

/** What the reply is built from. */
export interface ReplyInput {
  ctx: GenerateContext;
  api: GenerateApi;
  parsed: ParsedRequest;
  plan: FailurePlan;
  req: IncomingMessage;
  res: ServerResponse;
  shape: sse.ResponseShape;
  /** The drawn output: reasoning tokens first, then the answer, and why it stops. */
  out: { reasoning: number; tokens: number; finishReason: 'stop' | 'length' };
  mode: ReasoningMode | undefined;
  textSeed: number;
  promptTokens: number;
}

/** A request's reply: the engine's sink for its tokens, and the HTTP response they go to. */
export class Reply implements RequestSink {
  /** The tool call it answers with, when tools were offered and one is drawn. */
  toolCall: SimToolCall | undefined;
  /** Its LoRA adapter (absent: the base model). */
  lora: string | undefined;
  private done = false;
  private text = '';
  private reasoningText = '';
  private readonly midpoint: number;
  private readonly responses: ResponsesStream | undefined;

  constructor(private readonly r: ReplyInput) {
    this.midpoint = Math.ceil(r.out.tokens / 2);
    this.responses =
      r.api === 'responses' ? new ResponsesStream(r.shape.id, r.shape.model, r.shape.created) : undefined;
  }

  /** Opens the stream, enters the engine (after an injected stall) and tells it when the client goes. */
  start(): void {
    const { parsed, res, req, plan, ctx, shape } = this.r;
    if (parsed.stream) {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      if (this.responses) res.write(this.responses.start());
      else res.flushHeaders();
    }
    res.on('close', () => {
      if (!this.done) {
        this.done = true;
        ctx.driver.engine.clientGone(shape.id, ctx.driver.now());
      }
    });
    req.socket.setNoDelay(true);
    if (plan.stallMs) setTimeout(() => this.enter(), plan.stallMs);
    else this.enter();
  }

  private enter(): void {
    const { res, ctx, parsed, out, shape, textSeed, promptTokens } = this.r;
    if (res.destroyed || this.done) return;
    const { engine } = ctx.driver;
    // The reply's blocks too: the next turn of a conversation carries this prompt and this reply.
    const hashes = engine.config.enablePrefixCaching
      ? sequenceBlockHashes(parsed.ids, textSeed, out.tokens, engine.config.blockSize)
      : [];
    try {
      engine.add(
        {
          id: shape.id,
          promptTokens,
          promptBlockHashes: hashes,
          outputTokens: out.tokens,
          finishReason: out.finishReason,
          sink: this,
          priority: parsed.priority,
          ...(this.lora !== undefined ? { lora: this.lora } : {}),
        },
        ctx.driver.now(),
      );
    } catch (e) {
      if (!(e instanceof EngineRejection)) throw e;
      this.done = true;
      if (parsed.stream && this.responses) res.end(this.responses.error(e.message));
      else if (parsed.stream) res.end(sse.errorEvent(e.message, 'BadRequestError', 400) + sse.SSE_DONE);
      else sendError(res, 400, e.message, 'BadRequestError', 400);
      return;
    }
    ctx.driver.wake();
  }

  /** A tool call's finish reason, as vLLM reports it (a cut one stays 'length'). */
  private finishOf(reason: string): string {
    return this.toolCall && reason === 'stop' ? 'tool_calls' : reason;
  }

  onToken(q: EngineRequest, _tMs: number, count: number): void {
    if (this.done) return;
    const { out, textSeed, parsed, plan } = this.r;
    // A step's tokens go out together, as vLLM streams one delta per step (several tokens
    // with speculative decoding): one chunk for its reasoning tokens, one for its answer tokens.
    const last = q.generated;
    const first = last - count + 1;
    let reasoningWords = '';
    let answerWords = '';
    for (let i = first; i <= last; i++) {
      if (i <= out.reasoning) reasoningWords += outputToken(textSeed, i - 1);
      else if (this.toolCall) answerWords += argumentFragment(textSeed, i - 1, out.reasoning, out.tokens - 1);
      else answerWords += outputToken(textSeed, i - 1);
    }
    const parts: [string, boolean][] = [];
    if (reasoningWords !== '') parts.push([reasoningWords, true]);
    if (answerWords !== '') parts.push([answerWords, false]);
    const atMidpoint = first <= this.midpoint && this.midpoint <= last;
    if (!parsed.stream) {
      this.reasoningText += reasoningWords;
      this.text += answerWords;
    } else this.writeStep(q, first, last, parts);
    if (parsed.stream && plan.malformed && atMidpoint) this.r.res.write(sse.MALFORMED_EVENT);
    if (atMidpoint && last !== q.outputTokens) this.failMidway(q);
  }

  /** One step's chunks on the stream: its reasoning, then its answer (or tool-call arguments). */
  private writeStep(q: EngineRequest, first: number, last: number, parts: [string, boolean][]): void {
    const { res, api, shape, plan, out, mode } = this.r;
    if (this.responses) {
      for (const [words, reasoning] of parts)
        res.write(this.responses.token(words, reasoning, reasoning ? undefined : this.toolCall));
      return;
    }
    if (first === 1 && api === 'chat') res.write(sse.roleChunk(shape));
    for (const [j, [words, reasoning]] of parts.entries()) {
      if (plan.emptyChoices) res.write(sse.emptyChoicesChunk(shape));
      const finish = last === q.outputTokens && j === parts.length - 1 ? this.finishOf(q.finishReason) : null;
      if (this.toolCall && !reasoning) {
        const opens = first <= out.reasoning + 1 && out.reasoning + 1 <= last;
        res.write(sse.toolCallChunk(shape, words, opens ? this.toolCall : undefined, finish));
      } else res.write(sse.tokenChunk(shape, words, finish, reasoning ? mode?.field : undefined));
    }
  }

  /** The injected mid-stream failures, at half the output: a disconnect, or an error object in the stream. */
  private failMidway(q: EngineRequest): void {
    const { plan, parsed, ctx, req, res } = this.r;
    if (plan.disconnect) {
      this.done = true;
      ctx.driver.engine.abort(q.id, ctx.driver.now());
      // End the TCP connection after what was written flushes: the chunked body never terminates.
      req.socket.end();
    } else if (plan.errorObject && parsed.stream) {
      this.done = true;
      ctx.driver.engine.abort(q.id, ctx.driver.now());
      const message = 'simulated engine failure during generation';
      res.end(this.responses ? this.responses.error(message) : sse.errorEvent(message) + sse.SSE_DONE);
    }
  }

  onFinish(q: EngineRequest): void {
    if (this.done || q.finishedAs === 'abort') return;
    this.done = true;
    const { out, promptTokens, mode, parsed, res, shape, plan, api } = this.r;
    const reasoningTokens = Math.min(out.reasoning, q.generated);
    const usage: sse.Usage = {
      prompt_tokens: promptTokens,
      completion_tokens: q.generated,
      total_tokens: promptTokens + q.generated,
    };
    if (mode) usage.completion_tokens_details = { reasoning_tokens: reasoningTokens };
    if (this.responses && parsed.stream) {
      res.end(this.responses.finish(q.finishedAs!, responsesUsage(usage, reasoningTokens)));
    } else if (parsed.stream) {
      res.end((parsed.includeUsage ? sse.usageChunk(shape, usage) : '') + sse.SSE_DONE);
    } else if (plan.errorObject) {
      sendError(res, 500, 'simulated engine failure during generation', 'InternalServerError', 500);
    } else if (plan.malformed) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(sse.completeBody(shape, this.text, q.finishedAs!, usage)).slice(0, 40));
    } else if (api === 'responses') {
      const body = responsesBody(
        shape.id,
        shape.model,
        shape.created,
        this.reasoningText,
        this.text,
        q.finishedAs!,
        responsesUsage(usage, reasoningTokens),
        this.toolCall,
      );
      sendBody(res, body);
    } else {
      const reasoning = mode ? { field: mode.field, text: this.reasoningText } : undefined;
      const finish = this.finishOf(q.finishedAs!);
      const body = sse.completeBody(shape, this.text, finish, usage, reasoning, this.toolCall);
      if (plan.emptyChoices) body.choices = [];
      sendBody(res, body);
    }
  }
}

function sendBody(res: ServerResponse, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}
