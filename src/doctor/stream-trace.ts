/**
 * Reads one streamed completion and keeps what doctor needs to judge it: when each read
 * and each event arrived, what the events carried, and what the stream left out.
 *
 * @module
 */

import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { endpointUrl, SseParser } from '../client/index.js';
import type { ApiKind } from '../types.js';
import { type Redactor, readBounded, redactAndCut } from '../util/index.js';
import { authHeaders, type Channel, exchangeSignal, withExtraBody } from './http.js';

/** Most bytes of a smoke stream read (a few dozen tokens take a few KiB). */
const MAX_STREAM_BYTES = 4 * 1024 * 1024;
/** Most bytes of an error body read: enough for any error object. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface StreamTrace {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Non-2xx body, kept for the error message (not yet redacted: redact before cutting it). */
  errorBody?: string;
  /** Time of every socket read, ms from send. */
  readMs: number[];
  events: number;
  /** Time of every chunk that carried content or reasoning, ms from send. */
  contentMs: number[];
  /** Index of the socket read that delivered each of those chunks. */
  contentReads: number[];
  text: string;
  doneSeen: boolean;
  finishReason?: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  /** Where the usage came: on the chunk with finish_reason, or a separate chunk with empty choices. */
  usageWhere?: 'finish-chunk' | 'separate-chunk' | 'other';
  emptyChoicesChunks: number;
  comments: number;
  reasoningField?: 'reasoning_content' | 'reasoning';
  /** A stream event's error object, redacted, then cut to 300 characters. */
  errorObject?: string;
  badJsonEvents: number;
  parserError?: string;
  totalMs: number;
}

type Delta = { content?: unknown; reasoning_content?: unknown; reasoning?: unknown };
type Chunk = {
  choices?: Array<{ delta?: Delta; text?: unknown; finish_reason?: string | null }>;
  usage?: StreamTrace['usage'] | null;
  error?: unknown;
};

function observe(trace: StreamTrace, data: string, t: number, read: number, redact: Redactor): void {
  trace.events++;
  if (data === '[DONE]') {
    trace.doneSeen = true;
    return;
  }
  let chunk: Chunk;
  try {
    chunk = JSON.parse(data);
  } catch {
    trace.badJsonEvents++;
    return;
  }
  if (chunk.error) {
    trace.errorObject = redactAndCut(JSON.stringify(chunk.error), 300, redact);
    return;
  }
  const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
  if (choices.length === 0) trace.emptyChoicesChunks++;
  let carried = false;
  for (const c of choices) {
    const d = c.delta ?? {};
    for (const field of ['reasoning_content', 'reasoning'] as const) {
      if (typeof d[field] === 'string' && d[field] !== '') {
        trace.reasoningField = field;
        carried = true;
      }
    }
    const piece = typeof d.content === 'string' ? d.content : typeof c.text === 'string' ? c.text : '';
    if (piece !== '') {
      trace.text += piece;
      carried = true;
    }
    if (c.finish_reason) trace.finishReason = c.finish_reason;
  }
  if (carried) {
    trace.contentMs.push(t);
    trace.contentReads.push(read);
  }
  if (chunk.usage) {
    trace.usage = chunk.usage;
    trace.usageWhere =
      choices.length === 0
        ? 'separate-chunk'
        : choices.some((c) => c.finish_reason)
          ? 'finish-chunk'
          : 'other';
  }
}

/**
 * Sends one streamed request with `body` merged over the defaults and traces the answer. The
 * whole exchange is bounded by the channel's timeout and stopped by its signal (both throw,
 * classified as TIMEOUT / INTERRUPTED); the stream by {@link MAX_STREAM_BYTES}.
 */
export async function traceStream(
  channel: Channel,
  api: ApiKind,
  body: Record<string, unknown>,
): Promise<StreamTrace> {
  const trace: StreamTrace = {
    status: 0,
    headers: {},
    readMs: [],
    events: 0,
    contentMs: [],
    contentReads: [],
    text: '',
    doneSeen: false,
    emptyChoicesChunks: 0,
    comments: 0,
    badJsonEvents: 0,
    totalMs: 0,
  };
  const t0 = performance.now();
  const ex = exchangeSignal(channel);
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(endpointUrl(channel.baseUrl, api), {
      method: 'POST',
      headers: { ...authHeaders(channel), accept: 'text/event-stream' },
      body: JSON.stringify(
        withExtraBody(channel, { stream: true, stream_options: { include_usage: true }, ...body }),
      ),
      headersTimeout: channel.timeoutMs,
      bodyTimeout: channel.timeoutMs,
      signal: ex.signal,
    });
  } catch (e) {
    throw ex.signal.aborted ? ex.failure() : e;
  }
  trace.status = res.statusCode;
  trace.headers = res.headers;
  if (res.statusCode < 200 || res.statusCode >= 300) {
    const read = await readBounded(res.body, {
      maxBytes: MAX_ERROR_BODY_BYTES,
      timeoutMs: Math.max(1, channel.timeoutMs - (performance.now() - t0)),
      signal: ex.signal,
    });
    if (read.stopped === 'timeout' || read.stopped === 'aborted') throw ex.failure();
    trace.errorBody = read.text;
    trace.totalMs = performance.now() - t0;
    return trace;
  }
  const parser = new SseParser((data) =>
    observe(trace, data, performance.now() - t0, trace.readMs.length - 1, channel.redact),
  );
  let tail = '';
  let bytes = 0;
  try {
    for await (const chunk of res.body) {
      trace.readMs.push(performance.now() - t0);
      const buf = chunk as Buffer;
      bytes += buf.length;
      if (bytes > MAX_STREAM_BYTES) {
        res.body.destroy();
        trace.parserError = `the stream went on past ${MAX_STREAM_BYTES / 1024 / 1024} MiB for a ${String(body.max_tokens ?? '')}-token answer (not read further)`;
        break;
      }
      // Comments are invisible to the event parser; count `:` lines on the raw text.
      const text = tail + buf.toString('utf8');
      const lines = text.split(/\r\n|\r|\n/);
      tail = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith(':')) trace.comments++;
      parser.push(buf);
    }
  } catch (e) {
    // The whole-exchange deadline or the signal stopped a stream that trickles or never ends.
    throw ex.signal.aborted ? ex.failure() : e;
  }
  parser.end();
  if (parser.error && !trace.parserError) trace.parserError = parser.error;
  trace.totalMs = performance.now() - t0;
  return trace;
}

/**
 * True when the chunks clearly arrived all at once although generation took time: a proxy
 * or server buffered the stream. Needs several content chunks to judge.
 */
export function looksBuffered(trace: StreamTrace): boolean {
  const n = trace.contentMs.length;
  if (n < 4) return false;
  const spread = trace.contentMs[n - 1]! - trace.contentMs[0]!;
  const readsWithContent = new Set(trace.contentReads).size;
  return spread < Math.max(2, 0.05 * trace.totalMs) && readsWithContent <= 2;
}
