/**
 * The few HTTP exchanges doctor makes, timed, with the server's own error words kept.
 *
 * @module
 */

import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { serverErrorMessage } from '../client/index.js';
import { codeForHttpStatus, REQUEST_ERRORS } from '../errors.js';
import { closestIds, type Redactor, readBounded } from '../util/index.js';

export { closestIds };

export interface Channel {
  /** Base URL as it will be used (cleaned of query string and endpoint paths). */
  baseUrl: string;
  /** The key, trimmed; never printed. */
  apiKey?: string;
  /** Longest time one exchange may take, its whole body included. */
  timeoutMs: number;
  /** Stops every exchange (Ctrl-C, SIGTERM). */
  signal?: AbortSignal;
  /** Removes the key (whole or any long part) from what the server says; applied before any cut. */
  redact: Redactor;
  /** Extra request headers (--header), sent with every exchange. Never printed. */
  headers?: Record<string, string>;
  /** JSON fields merged last into every request body (--extra-body). */
  extraBody?: Record<string, unknown>;
}

/** The most doctor reads of one answer: its answers are a model list and 16-token completions. */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, at most {@link MAX_REPLY_BYTES} of it. */
  text: string;
  /** Set when the body was longer than {@link MAX_REPLY_BYTES} (not read further). */
  tooLarge?: boolean;
  ms: number;
}

/**
 * The signal of one exchange: it fires at the channel's timeout or when the channel's signal
 * does. `failure()` turns the reason into an error the network classifier names (TIMEOUT or
 * INTERRUPTED).
 */
export function exchangeSignal(channel: Channel): { signal: AbortSignal; failure(): Error } {
  const deadline = AbortSignal.timeout(channel.timeoutMs);
  const signal = channel.signal ? AbortSignal.any([deadline, channel.signal]) : deadline;
  return {
    signal,
    failure: () =>
      channel.signal?.aborted
        ? Object.assign(new Error('stopped'), { name: 'AbortError' })
        : Object.assign(new Error(`no whole answer within ${channel.timeoutMs / 1000} s`), {
            name: 'TimeoutError',
          }),
  };
}

/** The headers of every exchange: --header's, the JSON content type, the key as a Bearer token. */
export function authHeaders(channel: Channel): Record<string, string> {
  const h: Record<string, string> = { ...channel.headers, 'content-type': 'application/json' };
  if (channel.apiKey) h.authorization = `Bearer ${channel.apiKey}`;
  return h;
}

/** A request body with --extra-body's fields merged last (as run sends them). */
export function withExtraBody(channel: Channel, body: unknown): unknown {
  if (channel.extraBody === undefined || body === null || typeof body !== 'object') return body;
  return { ...body, ...channel.extraBody };
}

/**
 * One request with a bounded whole-body read: at most {@link MAX_REPLY_BYTES}, within the
 * channel's timeout (a server that trickles its answer is cut), stopped by the channel's
 * signal. Network failures, the timeout and the signal throw (the caller classifies them).
 */
export async function httpCall(
  channel: Channel,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
): Promise<HttpReply> {
  const t0 = performance.now();
  const ex = exchangeSignal(channel);
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      method,
      headers: authHeaders(channel),
      body: body === undefined ? undefined : JSON.stringify(withExtraBody(channel, body)),
      headersTimeout: channel.timeoutMs,
      bodyTimeout: channel.timeoutMs,
      signal: ex.signal,
    });
  } catch (e) {
    throw ex.signal.aborted ? ex.failure() : e;
  }
  const read = await readBounded(res.body, {
    maxBytes: MAX_REPLY_BYTES,
    timeoutMs: Math.max(1, channel.timeoutMs - (performance.now() - t0)),
    signal: ex.signal,
  });
  if (read.stopped === 'timeout' || read.stopped === 'aborted') throw ex.failure();
  return {
    status: res.statusCode,
    headers: res.headers,
    text: read.text,
    ...(read.stopped === 'limit' ? { tooLarge: true } : {}),
    ms: performance.now() - t0,
  };
}

/** Cause and fix for a non-2xx answer, in the server's own words. */
export function explainStatus(
  reply: HttpReply,
  channel: Channel,
  what: string,
): { cause: string; fix: string } {
  const code = codeForHttpStatus(reply.status);
  const said = serverErrorMessage(channel.redact(reply.text));
  const info = REQUEST_ERRORS[code];
  let fix = info.hint;
  if (reply.status === 401 && !channel.apiKey)
    fix = 'the server wants a key: set GOODPUT_API_KEY (or OPENAI_API_KEY)';
  if (reply.status === 429) {
    const ra = reply.headers['retry-after'];
    fix = `${info.hint}${ra ? ` (the server asked to retry after ${String(ra)} s)` : ' (the server sent no Retry-After)'}`;
  }
  return {
    cause: `${what} answered HTTP ${reply.status}: ${info.cause}${said ? ` — the server said: "${said}"` : ''}`,
    fix,
  };
}
