/**
 * Coded errors with hints, and the process exit codes.
 *
 * Two kinds of failure live here:
 * - a failed *request* is data: a RequestRecord whose `error.code` is a RequestErrorCode;
 *   REQUEST_ERRORS says its cause and its fix, for the run's error summary and for doctor;
 * - a failed *command* (bad flag, bad config, unreadable file) throws GoodputError, which
 *   carries a stable code, a message naming the cause, a hint naming the fix, and the exit code.
 *
 * Library code never calls process.exit; the CLI maps GoodputError.exitCode.
 *
 * @module
 */

import type { RequestErrorCode } from './types.js';

/** Process exit codes, documented in the README. */
export const ExitCode = {
  OK: 0,
  /** Unexpected internal failure. */
  ERROR: 1,
  /** Invalid usage: unknown flag, bad value, invalid config or ADR. */
  USAGE: 2,
  /** The endpoint could not be measured: every request failed, or it was unreachable. */
  UNMEASURABLE: 3,
  /** A gate threshold was breached. */
  THRESHOLD_BREACH: 4,
  /** An ADR rule was violated (adr lint / check / enforce). */
  ADR_VIOLATION: 5,
  /** compare: candidate significantly worse on a metric named by --fail-on-worse. */
  REGRESSION: 6,
  /**
   * The results could not be written where asked (disk full, permissions, I/O error): the load
   * was stopped and what was measured was saved where the message says.
   */
  WRITE_FAILED: 7,
  /** doctor: the first failing stage class. */
  DOCTOR_CONFIG: 10,
  DOCTOR_REACHABILITY: 11,
  DOCTOR_MODELS: 12,
  DOCTOR_NON_STREAMING: 13,
  DOCTOR_STREAMING: 14,
  DOCTOR_CONFORMANCE: 15,
  DOCTOR_LOAD: 16,
  /** Stopped by Ctrl-C (SIGINT): what was measured has been written. */
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Stable codes of command-level errors. */
export type GoodputErrorCode =
  | 'E_USAGE'
  | 'E_CONFIG'
  | 'E_KEY'
  | 'E_DATASET'
  | 'E_IO'
  | 'E_NO_MODEL'
  | 'E_UNREACHABLE'
  | 'E_ALL_FAILED'
  | 'E_RESULT'
  | 'E_INCOMPARABLE'
  | 'E_THRESHOLD'
  | 'E_ADR'
  | 'E_STORE'
  | 'E_SIM'
  | 'E_FD_LIMIT'
  | 'E_INTERNAL';

const DEFAULT_EXIT: Record<GoodputErrorCode, ExitCode> = {
  E_USAGE: ExitCode.USAGE,
  E_CONFIG: ExitCode.USAGE,
  E_KEY: ExitCode.USAGE,
  E_DATASET: ExitCode.USAGE,
  E_IO: ExitCode.WRITE_FAILED,
  E_NO_MODEL: ExitCode.UNMEASURABLE,
  E_UNREACHABLE: ExitCode.UNMEASURABLE,
  E_ALL_FAILED: ExitCode.UNMEASURABLE,
  E_RESULT: ExitCode.USAGE,
  E_INCOMPARABLE: ExitCode.USAGE,
  E_THRESHOLD: ExitCode.USAGE,
  E_ADR: ExitCode.ADR_VIOLATION,
  E_STORE: ExitCode.ERROR,
  E_SIM: ExitCode.USAGE,
  E_FD_LIMIT: ExitCode.USAGE,
  E_INTERNAL: ExitCode.ERROR,
};

/** A command-level failure: stable code, the cause, and a hint that names the fix. */
export class GoodputError extends Error {
  readonly code: GoodputErrorCode;
  readonly hint: string;
  readonly exitCode: ExitCode;

  constructor(
    code: GoodputErrorCode,
    message: string,
    hint: string,
    options?: { exitCode?: ExitCode; cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GoodputError';
    this.code = code;
    this.hint = hint;
    this.exitCode = options?.exitCode ?? DEFAULT_EXIT[code];
  }
}

export function isGoodputError(e: unknown): e is GoodputError {
  return e instanceof GoodputError;
}

/**
 * The process ran out of file descriptors (EMFILE, ENFILE) where it did not expect to: E_FD_LIMIT,
 * naming the limit (`ulimit -n`) and the load that needs more, never "this is a bug". Exit 2 (the
 * limit and the load are the user's to match) unless `exitCode` says otherwise (7 when results
 * could not be written).
 */
export function outOfFilesError(opts: {
  /** What could not be opened, e.g. `opening DIR/requests.jsonl` (the cause's message otherwise). */
  what: string;
  /** The soft limit, when known. */
  openFiles?: number;
  /** The load that needs the descriptors, e.g. `--concurrency 400` (default: the load in general). */
  load?: string;
  /** Said after the fix: where what was measured is. */
  saved?: string;
  cause?: unknown;
  exitCode?: ExitCode;
}): GoodputError {
  const limit = opts.openFiles !== undefined ? ` (its limit, ulimit -n, is ${opts.openFiles})` : '';
  const load = opts.load ?? 'the load (--concurrency, --rate, --connections pooled:N)';
  return new GoodputError(
    'E_FD_LIMIT',
    `this process ran out of file descriptors${limit}: ${opts.what}`,
    `raise the open-file limit in the shell that starts goodput (ulimit -n 4096, up to ulimit -Hn) or lower ${load}: every connection takes one${opts.saved ? `; ${opts.saved}` : ''}`,
    { cause: opts.cause, ...(opts.exitCode !== undefined ? { exitCode: opts.exitCode } : {}) },
  );
}

export interface RequestErrorInfo {
  /** What usually causes it. */
  cause: string;
  /** What to do about it. */
  hint: string;
}

/** Cause and fix for every request error code; used by run's error summary and by doctor. */
export const REQUEST_ERRORS: Record<RequestErrorCode, RequestErrorInfo> = {
  CONNECTION_REFUSED: {
    cause: 'nothing is listening at that host and port',
    hint: 'check that the server is running and that --url names the right host and port',
  },
  DNS_FAILURE: {
    cause: 'the host name in the base URL does not resolve',
    hint: 'check the spelling of the host in --url, or use an IP address',
  },
  TLS_FAILURE: {
    cause: 'the TLS handshake failed (certificate, protocol or an http/https mix-up)',
    hint: 'use http:// for a plain server, or fix the certificate (NODE_EXTRA_CA_CERTS for a private CA)',
  },
  CONNECT_TIMEOUT: {
    cause: 'the TCP connection was not established in time (firewall, wrong host, overloaded server)',
    hint: 'check that the host is reachable from this machine; a proxy may be required (HTTPS_PROXY)',
  },
  CONNECTION_RESET: {
    cause: 'the server or a proxy closed the connection before the response ended',
    hint: 'check the server log for crashes or restarts, and proxy timeouts for long streams',
  },
  PROXY_FAILURE: {
    cause: 'the proxy named in HTTPS_PROXY / HTTP_PROXY refused or failed the request',
    hint: 'fix the proxy settings, or add the host to NO_PROXY',
  },
  SOCKETS_EXHAUSTED: {
    cause:
      'this machine ran out of local ports (EADDRNOTAVAIL, EADDRINUSE) or this process out of file descriptors (EMFILE, ENFILE) for a new connection, or a --source-addresses entry is not an address of this machine',
    hint: 'spread the connections over more source addresses (--source-addresses; a 127.x.x.x target spreads over 127.0.0.2… by itself on Linux), raise the open-file limit (ulimit -n) or widen net.ipv4.ip_local_port_range, or lower the load',
  },
  TIMEOUT: {
    cause: 'the request did not finish within --timeout',
    hint: 'raise --timeout, lower --max-tokens, or lower the load: the server may be saturated',
  },
  TTFT_TIMEOUT: {
    cause: 'no first token arrived within --ttft-timeout',
    hint: 'the queue or prefill is too slow: lower the load or the prompt length, or raise --ttft-timeout',
  },
  HTTP_REDIRECT: {
    cause: 'the server answered with a redirect (3xx); goodput does not follow redirects',
    hint: 'set --url to the address the message names (redirected to X; set --url to it)',
  },
  HTTP_UNAUTHORIZED: {
    cause: 'the server rejected the API key (401)',
    hint: 'set GOODPUT_API_KEY (or OPENAI_API_KEY) to a valid key, without spaces or a trailing newline',
  },
  HTTP_FORBIDDEN: {
    cause: 'the key is valid but not allowed to use this model or endpoint (403)',
    hint: 'use a key with access to the model, or pick a model the key may use (goodput doctor lists them)',
  },
  HTTP_NOT_FOUND: {
    cause: 'the path or the model does not exist on the server (404)',
    hint: 'check --model against GET /v1/models, and that --url does not already end in /v1',
  },
  HTTP_RATE_LIMITED: {
    cause: 'the server or gateway is rate limiting (429)',
    hint: 'lower --concurrency or --rate, or raise the quota; goodput honours Retry-After with --max-retries',
  },
  HTTP_CLIENT_ERROR: {
    cause: 'the server rejected the request (4xx)',
    hint: "read the server's message: a parameter may be unsupported (e.g. ignore_eos, stream_options)",
  },
  HTTP_SERVER_ERROR: {
    cause: 'the server failed while handling the request (5xx)',
    hint: 'check the server log; some servers answer 500 to a malformed request',
  },
  HTTP_UNAVAILABLE: {
    cause: 'the server is overloaded or starting (503)',
    hint: 'wait for /health, lower the load; goodput honours Retry-After with --max-retries',
  },
  BAD_JSON: {
    cause: 'a response or stream event was not valid JSON',
    hint: 'check that --url points at an OpenAI-compatible server and that no proxy rewrites the body',
  },
  BAD_SSE: {
    cause: 'the response stream was not valid server-sent events',
    hint: 'check that the server supports stream: true and that no proxy rewrites the stream',
  },
  EMPTY_STREAM: {
    cause: 'the stream ended without any content',
    hint: 'check max_tokens and the prompt; a gateway may drop streamed bodies',
  },
  STREAM_TRUNCATED: {
    cause: 'the stream ended without [DONE] or a finish_reason',
    hint: 'check server and proxy timeouts for long streams, and the server log for crashes',
  },
  STREAM_ERROR_OBJECT: {
    cause: 'the server sent an error object inside a 200 stream',
    hint: "read the server's message: usually a context-length, parameter or overload error",
  },
  EMPTY_CHOICES: {
    cause: 'the response carried no choices',
    hint: 'the server answered without output: check the model and the request parameters',
  },
  IMPOSSIBLE_VALUE: {
    cause:
      'the server sent a value that cannot be true (a null choice, a negative, huge or non-numeric token count)',
    hint: 'the server or a gateway in between is broken: check its version and logs; no figure was taken from it',
  },
  ABORTED: {
    cause: 'the simulated user gave up (--cancel-after-ms / --cancel-rate)',
    hint: 'intended: these count as SLO misses and their tokens as wasted',
  },
  INTERRUPTED: {
    cause: 'the run was stopped (Ctrl-C or the duration ended) while the request was in flight',
    hint: 'intended: what was measured before the stop is kept',
  },
  UNKNOWN: {
    cause: 'an unexpected failure',
    hint: 'run goodput doctor against the same --url to find which step fails',
  },
};

/** Map an HTTP status to its request error code. */
export function codeForHttpStatus(status: number): RequestErrorCode {
  if (status >= 300 && status < 400) return 'HTTP_REDIRECT';
  if (status === 401) return 'HTTP_UNAUTHORIZED';
  if (status === 403) return 'HTTP_FORBIDDEN';
  if (status === 404) return 'HTTP_NOT_FOUND';
  if (status === 429) return 'HTTP_RATE_LIMITED';
  if (status === 503) return 'HTTP_UNAVAILABLE';
  if (status >= 500) return 'HTTP_SERVER_ERROR';
  return 'HTTP_CLIENT_ERROR';
}
