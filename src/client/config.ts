/**
 * The client's configuration and its public interface.
 *
 * @module
 */

import type { ApiKind, ConnectionWarmup, Ms, RequestRecord, Sampling, WorkItem } from '../types.js';
import type { ConnectionStats } from './connections.js';

export interface ClientConfig {
  /** Base URL, e.g. `http://host:8000` or `https://gw.example/api` (a trailing `/v1` is not doubled). */
  baseUrl: string;
  api: ApiKind;
  model: string;
  /** Sent as `Authorization: Bearer`; never appears in a record or a message. */
  apiKey?: string;
  /** Total time allowed for one attempt, from dispatch to the last byte. */
  timeoutMs: number;
  /** Time allowed from dispatch to the first content (or reasoning) chunk. */
  ttftTimeoutMs?: number;
  /** Retries on 429, 503, other 5xx and connection failures before any response byte. Default 1. */
  maxRetries?: number;
  /** Connection pool size (the runner passes its concurrency). Default: unbounded. */
  connections?: number;
  /**
   * `pooled` (default): connections kept alive and reused, idle ones closed after
   * IDLE_CONNECTION_MS. `per-request`: a new connection for every request, closed after it
   * (`Connection: close`), as vLLM's benchmark client does.
   */
  connectionMode?: 'pooled' | 'per-request';
  /**
   * Local addresses the connections leave from, in turn (`--source-addresses`; not through a
   * proxy). Absent: the kernel's choice, and for an IPv4 loopback target on Linux, 127.0.0.2 and
   * on once the default address runs out of ports (source-addresses.ts).
   */
  sourceAddresses?: string[];
  sampling: Sampling;
  /** Counts output tokens when the server sent no usage; without it, one token per content chunk. */
  countTokens?: (text: string) => number;
  /** Extra request headers (e.g. a gateway's routing header). */
  headers?: Record<string, string>;
  /** More secrets than the key (header values that are credentials): redacted like the key. */
  secrets?: string[];
  /** Header that carries each item's session-affinity id (WorkItem.affinityId); undefined: none sent. */
  sessionHeader?: string;
  /** Extra JSON body fields, merged last. */
  extraBody?: Record<string, unknown>;
  /** TCP (+TLS) connect timeout. Default min(timeoutMs, 10 s). */
  connectTimeoutMs?: number;
  /** Largest SSE event accepted. Default 4 MiB. */
  maxEventBytes?: number;
  /** First retry backoff; doubles per retry, with jitter. Default 250 ms. */
  retryBaseMs?: number;
  /** Longest wait before a retry (Retry-After beyond it: no retry). Default 60 s. */
  maxRetryWaitMs?: number;
  /**
   * Proxy URL (`http://user:pass@proxy:3128`). Undefined: from HTTPS_PROXY / HTTP_PROXY minus NO_PROXY
   * (never for loopback); null: never use a proxy.
   */
  proxyUrl?: string | null;
  /** Random source for the backoff jitter, in [0, 1). Default Math.random. */
  random?: () => number;
}

export interface SendOptions {
  /** Intended send time (open loop) or the time the slot became free (closed loop). */
  scheduledMs: Ms;
  /** Aborting it ends the request as 'cancelled' with code INTERRUPTED. */
  signal?: AbortSignal;
  /**
   * Multi-turn sessions: receives the reply's text (content and reasoning content as streamed,
   * at most MAX_REPLY_CHARS characters) before `send` resolves, so the next turn can carry it.
   * The text is handed over only: never part of the record, never written.
   */
  onReply?: (text: string) => void;
}

/** The longest reply text handed to `onReply`, in characters (a longer reply is cut). */
export const MAX_REPLY_CHARS = 1024 * 1024;

/** An idle pooled connection is closed after this long (ms), so a server with one thread per connection gets it back. */
export const IDLE_CONNECTION_MS = 4_000;

/** The longest a connection warm-up may take before the load starts without it (ms). */
export const WARMUP_BUDGET_MS = 2_000;

export interface WarmupOptions {
  /** Give up after this long (ms); default WARMUP_BUDGET_MS. */
  budgetMs?: number;
  /** Aborting it (Ctrl-C) ends the warm-up at once. */
  signal?: AbortSignal;
}

/** A streaming client of an OpenAI-compatible endpoint. */
export interface Client {
  /** Send one request and record what happened. Never throws: a failure is a record with `error.code`. */
  send(item: WorkItem, opts: SendOptions): Promise<RequestRecord>;
  /**
   * Open up to `n` keep-alive connections now (one `GET /v1/models` each), before the clock
   * starts, so TCP set-up is not charged to TTFT. Bounded: it gives up after `budgetMs`
   * (default WARMUP_BUDGET_MS) or when the signal aborts, and says what happened. Never throws.
   */
  warmup(n: number, opts?: WarmupOptions): Promise<ConnectionWarmup>;
  /** What the connections went through so far: open and served at once, waits for a first byte. */
  connectionStats(): ConnectionStats;
  /** Close the connections (in-flight requests are aborted). */
  close(): Promise<void>;
}
