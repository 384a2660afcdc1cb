/**
 * Turning what went wrong into stable request error codes: socket and TLS errors,
 * HTTP error bodies (the server's own message, from the OpenAI error JSON), Retry-After.
 * Also the key scrubber: no message leaves the client carrying the API key.
 *
 * @module
 */

import type { RequestError, RequestErrorCode } from '../types.js';
import { noRedaction, type Redactor } from '../util/index.js';
import { SOCKET_EXHAUSTION_CODES } from './source-addresses.js';

const MAX_MESSAGE_CHARS = 300;

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA', 'EAI_SERVICE']);
const RESET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
]);
const CONNECT_TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
]);
const TLS_CODES = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
]);

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
  name?: unknown;
}

/** The innermost error with a code (undici wraps socket errors in `cause`; happy-eyeballs throws AggregateError). */
function rootError(err: unknown): ErrorLike {
  let current = err as ErrorLike;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    if (Array.isArray(current.errors) && current.errors.length > 0 && typeof current.code !== 'string') {
      current = current.errors[0] as ErrorLike;
      continue;
    }
    const cause = current.cause as ErrorLike | undefined;
    if (
      cause &&
      typeof cause === 'object' &&
      (typeof cause.code === 'string' || cause.cause || cause.errors)
    ) {
      // Prefer the socket's own code over undici's generic wrapper.
      if (typeof current.code !== 'string' || current.code === 'UND_ERR_SOCKET') {
        current = cause;
        continue;
      }
    }
    break;
  }
  return current ?? {};
}

function codeOf(e: ErrorLike): string {
  return typeof e.code === 'string' ? e.code : '';
}

/**
 * Classify a socket-level failure (connect, DNS, TLS, reset, proxy) into a RequestError.
 * Doctor reuses it for its reachability stage.
 *
 * @example
 * ```ts
 * classifyNetworkError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
 * // → { code: 'CONNECTION_REFUSED', message: 'ECONNREFUSED: connect ECONNREFUSED' }
 * ```
 */
export function classifyNetworkError(err: unknown): RequestError {
  const outer = (err ?? {}) as ErrorLike;
  const root = rootError(err);
  const code = codeOf(root) || codeOf(outer);
  const text = `${typeof root.message === 'string' ? root.message : ''} ${
    typeof outer.message === 'string' ? outer.message : ''
  }`;
  const message = truncate(`${code ? `${code}: ` : ''}${firstMessage(root, outer)}`);
  const name = String(root.name ?? outer.name ?? '');
  if (!code && name === 'TimeoutError') return { code: 'TIMEOUT', message };
  if (!code && name === 'AbortError') return { code: 'INTERRUPTED', message };
  return { code: codeFor(code, text), message };
}

function firstMessage(root: ErrorLike, outer: ErrorLike): string {
  if (typeof root.message === 'string' && root.message) {
    // OpenSSL: "80CC…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/…" → the reason.
    const openssl = /SSL routines:[^:]*:([^:]+)/.exec(root.message);
    return openssl ? openssl[1]! : root.message;
  }
  if (typeof outer.message === 'string' && outer.message) return outer.message;
  return String(outer.name ?? 'unknown error');
}

function codeFor(code: string, text: string): RequestErrorCode {
  if (code === 'ECONNREFUSED') return 'CONNECTION_REFUSED';
  if (SOCKET_EXHAUSTION_CODES.has(code)) return 'SOCKETS_EXHAUSTED';
  if (DNS_CODES.has(code)) return 'DNS_FAILURE';
  if (/proxy/i.test(text) || code.startsWith('UND_ERR_PRX')) return 'PROXY_FAILURE';
  if (
    TLS_CODES.has(code) ||
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    /\bSSL\b|TLS/.test(text)
  ) {
    return 'TLS_FAILURE';
  }
  if (CONNECT_TIMEOUT_CODES.has(code)) return 'CONNECT_TIMEOUT';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'TIMEOUT';
  if (RESET_CODES.has(code)) return 'CONNECTION_RESET';
  if (code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') return 'INTERRUPTED';
  return 'UNKNOWN';
}

/** Shorten a message for a record (one line, bounded). */
export function truncate(message: string, max = MAX_MESSAGE_CHARS): string {
  const oneLine = message.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/**
 * Parse a Retry-After header: delay in seconds (`"2"`, `"0.5"`) or an HTTP date.
 * Returns milliseconds from `nowEpochMs`, or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: unknown, nowEpochMs = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!/[a-z]/i.test(text)) return undefined; // an HTTP date names its day and month
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowEpochMs);
}

/**
 * The server's own words from an error body: OpenAI `{"error":{"message"}}`, vLLM
 * `{"object":"error","message"}`, FastAPI `{"detail"}`, or the text itself, truncated.
 * The redactor runs on the words found, before the cut, so no part of a key survives a cut.
 */
export function serverErrorMessage(body: string, redact: Redactor = noRedaction): string {
  const text = body.trim();
  if (text === '') return '';
  try {
    const parsed = JSON.parse(text) as unknown;
    const found = messageIn(parsed);
    if (found) return truncate(redact(found));
  } catch {
    // not JSON: the text itself
  }
  return truncate(redact(text));
}

/** Endpoint paths a redirect target may end in; the rest is the base URL to pass as --url. */
const ENDPOINT_SUFFIX = /\/v1\/(chat\/completions|completions|models)\/?$/;

/**
 * The message of a redirect answer (3xx): where the server sent us and the `--url` that goes
 * there directly, so the user need not guess. goodput never follows redirects (a POST would
 * be replayed or turned into a GET, and the key sent to another host). The Location is
 * resolved against the request URL and redacted before it is cut. Doctor reuses it.
 *
 * @example
 * ```ts
 * redirectMessage(301, 'https://api.example/v1/chat/completions', 'http://api.example/v1/chat/completions');
 * // → 'HTTP 301: redirected to https://api.example/v1/chat/completions; set --url to https://api.example'
 * ```
 */
export function redirectMessage(
  status: number,
  location: string | undefined,
  requestUrl: string,
  redact: Redactor = noRedaction,
): string {
  const raw = (location ?? '').trim();
  if (raw === '') return `HTTP ${status}: a redirect without a Location header; check --url`;
  let target: string;
  try {
    target = new URL(raw, requestUrl).href;
  } catch {
    return `HTTP ${status}: redirected to ${truncate(redact(raw), 200)}, which is not a URL; check --url`;
  }
  const clean = truncate(redact(target), 200);
  const base = truncate(redact(target.replace(/[?#].*$/, '').replace(ENDPOINT_SUFFIX, '')), 200);
  return `HTTP ${status}: redirected to ${clean}; set --url to ${base}`;
}

/** Find a human message in a parsed error object, tolerant of the shapes servers use. */
export function messageIn(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!value || typeof value !== 'object') return undefined;
  const obj = value as Record<string, unknown>;
  if (obj.error !== undefined && obj.error !== null) {
    const inner = messageIn(obj.error);
    if (inner) return inner;
  }
  for (const key of ['message', 'detail', 'msg', 'error_description']) {
    const v = obj[key];
    if (typeof v === 'string' && v) return v;
    if (Array.isArray(v) && v.length > 0) return JSON.stringify(v);
  }
  return undefined;
}
