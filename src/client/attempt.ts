/**
 * One HTTP attempt of a streamed completion, as an undici dispatch handler.
 *
 * It stamps raw times (`clock.now()` at each socket read), feeds the bytes to the SSE
 * parser, reads each event with one JSON.parse (stream-events.ts), and classifies how the
 * attempt ended (stream-end.ts). What the stream carried is the StreamOutput it extends.
 * It never throws: it settles exactly once, through `fail()` (timers, aborts, bad data)
 * or the end of the response. Callbacks arriving after it settled are ignored.
 *
 * @module
 */

import type { Dispatcher } from 'undici';
import { codeForHttpStatus } from '../errors.js';
import type { ApiKind, Clock, Ms, Outcome, RequestError, RequestErrorCode } from '../types.js';
import type { Redactor } from '../util/index.js';
import { ChunkReader } from './chunk-scan.js';
import { classifyNetworkError, parseRetryAfter, redirectMessage, serverErrorMessage } from './classify.js';
import { SseParser } from './sse.js';
import { readJsonBody, sseEndError } from './stream-end.js';
import { readScannedChunk, readStreamEvent } from './stream-events.js';
import { roundMs, StreamOutput } from './stream-output.js';

export type { Usage } from './events.js';
export { MAX_KEPT_TEXT_CHARS, roundMs } from './stream-output.js';

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
}

const MODE_NONE = 0;
const MODE_SSE = 1;
const MODE_JSON = 2;
const MODE_ERROR_BODY = 3;
const MAX_ERROR_BODY = 64 * 1024;
const MAX_JSON_BODY = 16 * 1024 * 1024;

/** One attempt: dispatch handler and, once settled, its result. */
export class StreamAttempt extends StreamOutput implements Dispatcher.DispatchHandler {
  readonly dispatchMs: Ms;
  sentMs: Ms;
  headersMs: Ms | undefined;
  endMs: Ms = 0;
  httpStatus: number | undefined;
  error: RequestError | undefined;
  outcome: Outcome = 'success';
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
  /** Chat and completions streams: reads the common chunk without JSON.parse. */
  private chunks: ChunkReader | undefined;
  private body: Buffer[] | undefined;
  private bodyBytes = 0;
  private ending = false;

  constructor(ctx: AttemptContext, onSettled: (attempt: StreamAttempt) => void) {
    super(ctx.keepText, ctx.redact);
    this.ctx = ctx;
    this.onSettled = onSettled;
    this.dispatchMs = roundMs(ctx.clock.now());
    this.sentMs = this.dispatchMs;
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
    this.httpStatus = statusCode;
    if (statusCode >= 200 && statusCode < 300) {
      const type = String(headers['content-type'] ?? '');
      if (type.includes('application/json')) {
        this.mode = MODE_JSON;
        this.body = [];
      } else {
        this.mode = MODE_SSE;
        this.parser = new SseParser(this.onEvent, { maxEventBytes: this.ctx.maxEventBytes });
        const api = this.ctx.api;
        if (api === 'chat' || api === 'completions') this.chunks = new ChunkReader(api);
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
    this.stampRead(this.ctx.clock.now());
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
    // The common chunk, read without JSON.parse; anything else takes the full parse below.
    if (this.chunks !== undefined && eventType !== 'error') {
      const chunk = this.chunks.read(data);
      if (chunk !== undefined) {
        readScannedChunk(this, chunk);
        return;
      }
    }
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
    const problem = readStreamEvent(this, event, eventType, this.ctx.api, data);
    if (problem !== undefined) this.fail(problem.code, problem.message);
  };

  private endSse(): RequestError | undefined {
    const parser = this.parser!;
    this.ending = true;
    parser.end();
    if (this.settled) return undefined;
    return sseEndError(this, parser, this.bodyBytes);
  }

  private endJson(): RequestError | undefined {
    const text = Buffer.concat(this.body!).toString('utf8');
    const clock = this.ctx.clock;
    return readJsonBody(this, text, this.ctx.api, () => clock.now());
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
