/**
 * One HTTP attempt of a streamed completion, as an undici dispatch handler.
 *
 * It stamps raw times (`clock.now()` at each socket read), feeds the bytes to the SSE
 * parser, reads each event with one JSON.parse, and classifies how the attempt ended.
 * It never throws: it settles exactly once, through `fail()` (timers, aborts, bad data)
 * or the end of the response. Callbacks arriving after it settled are ignored.
 *
 * @module
 */

import type { Dispatcher } from 'undici';
import { codeForHttpStatus } from '../errors.js';
import type { ApiKind, Clock, Ms, Outcome, RequestError, RequestErrorCode, ServerTimings } from '../types.js';
import type { Redactor } from '../util/index.js';
import {
  classifyNetworkError,
  messageIn,
  parseRetryAfter,
  redirectMessage,
  serverErrorMessage,
  truncate,
} from './classify.js';
import {
  chatParts,
  embeddingsProblem,
  type OutputParts,
  responsesBodyParts,
  responsesStep,
  responsesUsage,
  serverTimings,
  type Usage,
} from './events.js';
import { SseParser } from './sse.js';

export type { Usage } from './events.js';

/** Round to microseconds (3 decimals of a millisecond). */
export function roundMs(ms: number): Ms {
  return Math.round(ms * 1000) / 1000;
}

/**
 * The most output text (characters) one attempt keeps to count its tokens: 4 Mi characters,
 * some million tokens, beyond any max_tokens. A reply longer than that is counted from the
 * kept part, scaled by the characters received (an estimate, stated in the README).
 */
export const MAX_KEPT_TEXT_CHARS = 4 * 1024 * 1024;

/** What every attempt of one client shares. */
export interface AttemptContext {
  clock: Clock;
  api: ApiKind;
  /** Keep the text of output chunks (to count tokens when the server sends no usage). */
  keepText: boolean;
  maxEventBytes: number;
  /** Removes the key (and a proxy password) from server text; applied before any cut. */
  redact: Redactor;
  /** The URL requests go to (a redirect's Location is resolved against it). */
  url: string;
  /** Connect time of the connection opened for the request being written now, if it was new. */
  takeConnectMs(): number | undefined;
  /** Called at every response start (the connection tracker looks for newly answered connections). */
  responded?: () => void;
}

const MODE_NONE = 0;
const MODE_SSE = 1;
const MODE_JSON = 2;
const MODE_ERROR_BODY = 3;
const MAX_ERROR_BODY = 64 * 1024;
const MAX_JSON_BODY = 16 * 1024 * 1024;
/** Largest token count a usage object may claim before it is taken as impossible. */
export const MAX_PLAUSIBLE_TOKENS = 100_000_000;
/** Characters of a non-JSON stream event or body kept in a message. */
const EVENT_EXCERPT_CHARS = 120;

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

/** One attempt: dispatch handler and, once settled, its result. */
export class StreamAttempt implements Dispatcher.DispatchHandler {
  readonly dispatchMs: Ms;
  sentMs: Ms;
  headersMs: Ms | undefined;
  firstTokenMs: Ms | undefined;
  endMs: Ms = 0;
  readonly chunkMs: Ms[] = [];
  readonly chunkChars: number[] = [];
  /** Reasoning characters of each chunk; created at the first chunk that carries reasoning. */
  chunkReasoningChars: number[] | undefined;
  /** Output text (answer and reasoning), kept to count tokens. */
  readonly texts: string[] | undefined;
  /** Reasoning text alone, kept to count reasoning tokens. */
  readonly reasoningTexts: string[] | undefined;
  /**
   * Characters of output text received, kept or not: past MAX_KEPT_TEXT_CHARS the text is no
   * longer kept (a server streaming 64 KiB deltas forever ran the heap out within the timeout),
   * and the count becomes an estimate (see record.ts).
   */
  textChars = 0;
  /** Characters of output text kept in `texts`. */
  keptChars = 0;
  /** The same two for reasoning text. */
  reasoningTextChars = 0;
  reasoningKeptChars = 0;
  /** Chunks that carried reasoning (the count of reasoning tokens without a tokenizer). */
  reasoningChunks = 0;
  httpStatus: number | undefined;
  error: RequestError | undefined;
  outcome: Outcome = 'success';
  usage: Usage | undefined;
  /** llama.cpp's per-request timings, when the server sent them (the last ones win). */
  timings: ServerTimings | undefined;
  finishReason: string | undefined;
  connectMs: number | undefined;
  /** The request was written to a socket. */
  started = false;
  /** Any byte of a response (status line included) arrived. */
  responded = false;
  retryAfterMs: number | undefined;
  /** Location header of a redirect answer. */
  location: string | undefined;
  settled = false;

  private readonly ctx: AttemptContext;
  private readonly onSettled: (attempt: StreamAttempt) => void;
  private controller: Dispatcher.DispatchController | undefined;
  private mode = MODE_NONE;
  private parser: SseParser | undefined;
  private body: Buffer[] | undefined;
  private bodyBytes = 0;
  private readAt = 0;
  private readAtRounded = -1;
  private sawDone = false;
  private dataEvents = 0;
  private emptyChoiceEvents = 0;
  private streamError: string | undefined;
  private ending = false;

  constructor(ctx: AttemptContext, onSettled: (attempt: StreamAttempt) => void) {
    this.ctx = ctx;
    this.onSettled = onSettled;
    this.dispatchMs = roundMs(ctx.clock.now());
    this.sentMs = this.dispatchMs;
    this.texts = ctx.keepText ? [] : undefined;
    this.reasoningTexts = ctx.keepText ? [] : undefined;
  }

  /** End the attempt now (timeout, cancel, abort, bad data); aborts the HTTP request if it is under way. */
  fail(code: RequestErrorCode, message: string, outcome: Outcome = 'error'): void {
    if (this.settled) return;
    this.error = { code, message };
    if (this.httpStatus !== undefined && code.startsWith('HTTP_')) this.error.httpStatus = this.httpStatus;
    this.outcome = outcome;
    this.endMs = roundMs(this.ctx.clock.now());
    this.parser?.stop();
    this.settle();
    this.controller?.abort(new Error(`goodput: ${code}`));
  }

  private settle(): void {
    this.settled = true;
    this.onSettled(this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.settled) {
      controller.abort(new Error('goodput: request ended before it was sent'));
      return;
    }
    this.controller = controller;
    this.started = true;
    this.sentMs = roundMs(this.ctx.clock.now());
    this.connectMs = this.ctx.takeConnectMs();
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (this.settled) return;
    this.responded = true;
    this.headersMs = roundMs(this.ctx.clock.now());
    this.ctx.responded?.();
    this.httpStatus = statusCode;
    if (statusCode >= 200 && statusCode < 300) {
      const type = String(headers['content-type'] ?? '');
      if (type.includes('application/json')) {
        this.mode = MODE_JSON;
        this.body = [];
      } else {
        this.mode = MODE_SSE;
        this.parser = new SseParser(this.onEvent, { maxEventBytes: this.ctx.maxEventBytes });
      }
    } else {
      this.mode = MODE_ERROR_BODY;
      this.body = [];
      if (statusCode >= 300 && statusCode < 400) {
        const loc = headers.location;
        this.location = Array.isArray(loc) ? loc[0] : loc;
      }
      if (statusCode === 429 || statusCode === 503)
        this.retryAfterMs = parseRetryAfter(headers['retry-after']);
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.readAt = this.ctx.clock.now();
    this.readAtRounded = -1;
    this.bodyBytes += chunk.length;
    if (this.mode === MODE_SSE) {
      const parser = this.parser!;
      parser.push(chunk);
      if (parser.error !== undefined && !this.settled) this.fail('BAD_SSE', parser.error);
      return;
    }
    const limit = this.mode === MODE_JSON ? MAX_JSON_BODY : MAX_ERROR_BODY;
    if (this.bodyBytes - chunk.length < limit) this.body!.push(chunk);
    else if (this.mode === MODE_JSON) this.fail('BAD_JSON', `response body exceeded ${limit} bytes`);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.endMs = roundMs(this.ctx.clock.now());
    if (this.mode === MODE_ERROR_BODY) this.endHttpError();
    else {
      const error = this.mode === MODE_JSON ? this.endJson() : this.endSse();
      if (this.settled) return;
      if (error) {
        this.error = error;
        this.outcome = 'error';
      }
    }
    if (!this.settled) this.settle();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return;
    this.endMs = roundMs(this.ctx.clock.now());
    this.error = classifyNetworkError(err);
    this.outcome = 'error';
    this.settle();
  }

  /** The SSE event callback (an arrow property: bound once per attempt, not per event). */
  private readonly onEvent = (data: string, eventType: string): void => {
    if (this.settled) return;
    if (data === '[DONE]') {
      this.sawDone = true;
      return;
    }
    if (data.length === 0) return;
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(data);
    } catch {
      if (this.ending && !this.sawDone) {
        this.fail('STREAM_TRUNCATED', 'the stream ended inside an event');
      } else {
        this.fail('BAD_JSON', `stream event is not JSON: ${this.excerpt(data)}`);
      }
      return;
    }
    if (event === null || typeof event !== 'object') {
      this.fail('BAD_JSON', `stream event is not a JSON object: ${this.excerpt(data)}`);
      return;
    }
    this.dataEvents++;
    if ((event.error !== undefined && event.error !== null) || eventType === 'error') {
      this.streamError ??= this.cut(messageIn(event) ?? data);
      return;
    }
    if (this.streamError !== undefined) return;
    if (this.ctx.api === 'responses') {
      this.onResponsesEvent(event, eventType);
      return;
    }
    const usage = event.usage;
    if (usage !== null && typeof usage === 'object') {
      const why = impossibleUsage(usage as Record<string, unknown>);
      if (why !== undefined) {
        this.fail('IMPOSSIBLE_VALUE', why);
        return;
      }
      this.usage = usage as Usage;
    }
    this.timings = serverTimings(event) ?? this.timings;
    const choices = event.choices as Record<string, unknown>[] | undefined;
    if (!Array.isArray(choices) || choices.length === 0) {
      if (usage === null || typeof usage !== 'object') this.emptyChoiceEvents++;
      return;
    }
    const choice = choices[0];
    if (choice === null || typeof choice !== 'object' || Array.isArray(choice)) {
      this.fail(
        'IMPOSSIBLE_VALUE',
        `choices[0] is ${choice === null ? 'null' : typeof choice}, not an object`,
      );
      return;
    }
    const finish = choice.finish_reason;
    if (typeof finish === 'string' && finish) this.finishReason = this.cut(finish, 64);
    if (this.ctx.api === 'chat') {
      const delta = (choice.delta ?? choice.message) as Record<string, unknown> | undefined;
      if (delta && typeof delta === 'object') this.output(chatParts(delta));
    } else {
      const chars = this.take(choice.text);
      if (chars > 0) this.chunk(chars, 0);
    }
  };

  /** One Responses API event: output deltas are chunks; completed/incomplete end the stream with usage. */
  private onResponsesEvent(event: Record<string, unknown>, eventType: string): void {
    const step = responsesStep(event, eventType);
    if (step.kind === 'output') {
      this.output(step.parts);
    } else if (step.kind === 'failed') {
      this.streamError ??= this.cut(step.message);
    } else if (step.kind === 'end') {
      this.finishReason = this.cut(step.finishReason, 64);
      this.sawDone = true;
      if (step.usage) {
        const usage = responsesUsage(step.usage);
        const why = impossibleUsage(usage);
        if (why !== undefined) {
          this.fail('IMPOSSIBLE_VALUE', why.replace('usage.completion_tokens', 'usage.output_tokens'));
          return;
        }
        this.usage = usage as Usage;
      }
    }
  }

  /** Output text of one event: a chunk when it carries any, with its reasoning characters apart. */
  private output(parts: OutputParts): number {
    let answer = 0;
    let reasoning = 0;
    for (const t of parts.answer) answer += this.take(t);
    for (const t of parts.reasoning) {
      reasoning += this.take(t);
      if (this.reasoningTexts && typeof t === 'string') {
        this.reasoningTextChars += t.length;
        if (this.reasoningKeptChars + t.length <= MAX_KEPT_TEXT_CHARS) {
          this.reasoningTexts.push(t);
          this.reasoningKeptChars += t.length;
        }
      }
    }
    if (answer + reasoning > 0) this.chunk(answer + reasoning, reasoning);
    return answer + reasoning;
  }

  /** Server text for a message: the key removed first, then cut to one bounded line. */
  private cut(text: string, max?: number): string {
    return truncate(this.ctx.redact(text), max);
  }

  /** A bounded excerpt of a body or event that was not what it should be. */
  private excerpt(text: string): string {
    return this.cut(text, EVENT_EXCERPT_CHARS);
  }

  private take(value: unknown): number {
    if (typeof value !== 'string' || value.length === 0) return 0;
    if (this.texts) {
      this.textChars += value.length;
      if (this.keptChars + value.length <= MAX_KEPT_TEXT_CHARS) {
        this.texts.push(value);
        this.keptChars += value.length;
      }
    }
    return value.length;
  }

  private chunk(chars: number, reasoningChars: number): void {
    if (this.readAtRounded < 0) this.readAtRounded = roundMs(this.readAt);
    if (this.firstTokenMs === undefined) this.firstTokenMs = this.readAtRounded;
    if (reasoningChars > 0) {
      this.reasoningChunks++;
      this.chunkReasoningChars ??= new Array<number>(this.chunkMs.length).fill(0);
    }
    this.chunkReasoningChars?.push(reasoningChars);
    this.chunkMs.push(this.readAtRounded);
    this.chunkChars.push(chars);
  }

  private endSse(): RequestError | undefined {
    const parser = this.parser!;
    this.ending = true;
    parser.end();
    if (this.settled) return undefined;
    if (parser.error !== undefined) return endError('BAD_SSE', parser.error);
    if (this.streamError !== undefined) return endError('STREAM_ERROR_OBJECT', this.streamError);
    if (this.dataEvents === 0 && !this.sawDone) {
      if (this.bodyBytes === 0) return endError('EMPTY_STREAM', 'the response body was empty');
      if (parser.dataLines === 0) {
        return endError('BAD_SSE', `no server-sent events in a ${this.bodyBytes}-byte body`);
      }
      return endError('EMPTY_STREAM', 'the stream carried no events');
    }
    const terminated = this.sawDone || this.finishReason !== undefined;
    if (this.chunkMs.length === 0) {
      if (this.emptyChoiceEvents > 0 && this.emptyChoiceEvents === this.dataEvents) {
        return endError('EMPTY_CHOICES', 'every stream event had an empty choices list');
      }
      if (!terminated) return endError('STREAM_TRUNCATED', 'the stream ended before any content');
      if (!this.usage?.completion_tokens)
        return endError('EMPTY_STREAM', 'the stream ended without any content');
      return undefined;
    }
    if (!terminated)
      return endError('STREAM_TRUNCATED', 'the stream ended without [DONE] or a finish_reason');
    return undefined;
  }

  private endJson(): RequestError | undefined {
    // The server ignored stream: true and answered one JSON document.
    const text = Buffer.concat(this.body!).toString('utf8');
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(text);
    } catch {
      return endError('BAD_JSON', `response is not JSON: ${this.excerpt(text)}`);
    }
    if (doc === null || typeof doc !== 'object') return endError('BAD_JSON', 'response is not an object');
    if (doc.error !== undefined && doc.error !== null) {
      return endError('STREAM_ERROR_OBJECT', this.cut(messageIn(doc) ?? text));
    }
    const api = this.ctx.api;
    this.timings = serverTimings(doc);
    if (doc.usage && typeof doc.usage === 'object') {
      const raw = doc.usage as Record<string, unknown>;
      const usage = api === 'responses' ? responsesUsage(raw) : raw;
      // Embeddings produce no output tokens: a count of 0 from the server's own answer.
      if (api === 'embeddings') usage.completion_tokens = 0;
      const why = impossibleUsage(usage);
      if (why !== undefined) return endError('IMPOSSIBLE_VALUE', why);
      this.usage = usage as Usage;
    }
    if (api === 'embeddings') {
      const problem = embeddingsProblem(doc);
      if (problem !== undefined) return endError('EMPTY_CHOICES', problem);
      this.usage ??= { completion_tokens: 0 };
      this.finishReason = 'stop';
      return undefined;
    }
    this.readAt = this.ctx.clock.now();
    this.readAtRounded = -1;
    if (api === 'responses') {
      if (this.output(responsesBodyParts(doc)) === 0)
        return endError('EMPTY_STREAM', 'the response carried no output');
      const status = doc.status;
      if (typeof status === 'string')
        this.finishReason = status === 'completed' ? 'stop' : this.cut(status, 64);
      return undefined;
    }
    const choices = doc.choices as Record<string, unknown>[] | undefined;
    if (!Array.isArray(choices) || choices.length === 0) {
      return endError('EMPTY_CHOICES', 'the response carried no choices');
    }
    const choice = choices[0];
    if (choice === null || typeof choice !== 'object' || Array.isArray(choice)) {
      return endError(
        'IMPOSSIBLE_VALUE',
        `choices[0] is ${choice === null ? 'null' : typeof choice}, not an object`,
      );
    }
    if (typeof choice.finish_reason === 'string') this.finishReason = this.cut(choice.finish_reason, 64);
    const message = (choice.message ?? {}) as Record<string, unknown>;
    const parts: OutputParts =
      api === 'chat'
        ? chatParts(message)
        : { answer: typeof choice.text === 'string' ? [choice.text] : [], reasoning: [] };
    if (this.output(parts) === 0) return endError('EMPTY_STREAM', 'the response carried no content');
    return undefined;
  }

  private endHttpError(): void {
    const status = this.httpStatus ?? 0;
    let message: string;
    if (status >= 300 && status < 400) {
      message = redirectMessage(status, this.location, this.ctx.url, this.ctx.redact);
    } else {
      const said = serverErrorMessage(Buffer.concat(this.body!).toString('utf8'), this.ctx.redact);
      message = `HTTP ${status}${said ? `: ${said}` : ''}`;
    }
    this.error = { code: codeForHttpStatus(status), message, httpStatus: status };
    this.outcome = 'error';
  }
}

function endError(code: RequestErrorCode, message: string): RequestError {
  return { code, message };
}
