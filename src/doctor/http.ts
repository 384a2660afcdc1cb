/**
 * The few HTTP exchanges doctor makes, timed, with the server's own error words kept.
 *
 * @module
 */

import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { redactKey, serverErrorMessage } from '../client/index.js';
import { codeForHttpStatus, REQUEST_ERRORS } from '../errors.js';
import { editDistance } from '../util/index.js';

export interface Channel {
  /** Base URL as it will be used (cleaned of query string and endpoint paths). */
  baseUrl: string;
  /** The key, trimmed; never printed. */
  apiKey?: string;
  timeoutMs: number;
}

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  ms: number;
}

export function authHeaders(channel: Channel): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json' };
  if (channel.apiKey) h.authorization = `Bearer ${channel.apiKey}`;
  return h;
}

/** One request with a whole-body read. Network failures throw (the caller classifies them). */
export async function httpCall(
  channel: Channel,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
): Promise<HttpReply> {
  const t0 = performance.now();
  const res = await request(url, {
    method,
    headers: authHeaders(channel),
    body: body === undefined ? undefined : JSON.stringify(body),
    headersTimeout: channel.timeoutMs,
    bodyTimeout: channel.timeoutMs,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, ms: performance.now() - t0 };
}

/** Cause and fix for a non-2xx answer, in the server's own words. */
export function explainStatus(
  reply: HttpReply,
  channel: Channel,
  what: string,
): { cause: string; fix: string } {
  const code = codeForHttpStatus(reply.status);
  const said = redactKey(serverErrorMessage(reply.text), channel.apiKey);
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

/** Ids closest to the one asked for: case differences first, then by edit distance. */
export function closestIds(wanted: string, ids: string[], max = 3): string[] {
  const lower = wanted.toLowerCase();
  const scored = ids.map((id) => {
    const l = id.toLowerCase();
    let score = editDistance(lower, l) + 1;
    if (l === lower) score = 0;
    else if (l.endsWith(`/${lower}`) || lower.endsWith(`/${l}`)) score = 0.5;
    return { id, score };
  });
  const limit = Math.max(3, Math.floor(wanted.length / 3));
  return scored
    .filter((s) => s.score <= limit)
    .sort((a, b) => a.score - b.score)
    .slice(0, max)
    .map((s) => s.id);
}
