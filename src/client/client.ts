/**
 * The streaming client: an undici Pool sized to the run's concurrency (keep-alive,
 * pipelining 1), one StreamAttempt per HTTP attempt, retries with backoff that honours
 * Retry-After, a transparent resend when a reused idle connection turns out closed by
 * the server, and the timers (total, TTFT, the simulated user's cancel, the run's stop).
 *
 * @module
 */

import type { AttemptRecord, Clock, RequestErrorCode, RequestRecord, WorkItem } from '../types.js';
import { makeRedactor, unwatchAbort, watchAbort } from '../util/index.js';
import { type AttemptContext, roundMs, StreamAttempt } from './attempt.js';
import { type Client, type ClientConfig, MAX_REPLY_CHARS, type SendOptions } from './config.js';
import { ConnectionTracker } from './connections.js';
import { connectionPools, endpointOf } from './pool.js';
import { PROXIED_CONNECT_CODES, proxyLabel, proxySecret } from './proxy.js';
import { internalFailure, scrub, toRecord } from './record.js';
import { requestBody, requestHeaders } from './request.js';
import { warmConnections } from './warmup.js';

/** The per-send state the timers and the abort signal act on. */
interface SendState {
  current: StreamAttempt | undefined;
  stop: { code: RequestErrorCode; message: string } | undefined;
  wake: (() => void) | undefined;
}

/**
 * Create a client for one endpoint.
 *
 * @example
 * ```ts
 * const client = createClient({ baseUrl: sim.url, api: 'chat', model: sim.model, timeoutMs: 30_000,
 *   sampling: { temperature: 0, maxTokens: 64, ignoreEos: true }, connections: 8 }, clock);
 * await client.warmup(8);
 * const record = await client.send(item, { scheduledMs: clock.now() });
 * await client.close();
 * ```
 */
export function createClient(cfg: ClientConfig, clock: Clock): Client {
  const endpoint = endpointOf(cfg);
  const { url, path } = endpoint;
  const retry = retryPolicy(cfg);
  const perRequest = cfg.connectionMode === 'per-request';
  const tracker = new ConnectionTracker(clock);
  const pools = connectionPools(cfg, url, clock, tracker);
  const { proxy } = pools;
  let dispatcher = pools.make();
  const redact = makeRedactor([cfg.apiKey, proxySecret(proxy), ...(cfg.secrets ?? [])]);

  const ctx: AttemptContext = {
    clock,
    api: cfg.api,
    keepText: cfg.countTokens !== undefined,
    maxEventBytes: cfg.maxEventBytes ?? 4 * 1024 * 1024,
    redact,
    url: url.href,
    takeConnectMs: () => pools.takeConnectMs(),
  };
  // Session turns keep the reply's text for the next turn.
  const keepingCtx: AttemptContext = { ...ctx, keepText: true };
  const inFlight = new Set<StreamAttempt>();
  let closed = false;

  async function sendInner(item: WorkItem, opts: SendOptions): Promise<RequestRecord> {
    const body = requestBody(cfg.api, cfg.model, item, cfg.sampling, cfg.extraBody);
    const headers = requestHeaders(endpoint.postHeaders, item, cfg.sessionHeader);
    const stops = stopRules(item, opts.signal, closed);
    const attemptCtx = opts.onReply !== undefined ? keepingCtx : ctx;
    const dispatch = (attempt: StreamAttempt) =>
      dispatcher.dispatch(
        { origin: url.origin, method: 'POST', path, headers, body, reset: perRequest },
        attempt,
      );
    let done: Attempts;
    try {
      done = await attemptUntilDone(stops.state, retry, proxy, () =>
        runAttempt(cfg, attemptCtx, stops.state, inFlight, dispatch),
      );
    } finally {
      stops.release();
    }
    const record = finishRecord(item, opts, done, stops.state, cfg, clock);
    scrub(record, redact);
    if (opts.onReply && done.last.texts) opts.onReply(replyText(done.last.texts));
    return record;
  }

  return {
    async send(item, opts) {
      try {
        return await sendInner(item, opts);
      } catch (err) {
        return internalFailure(item, opts, roundMs(clock.now()), err, redact);
      }
    },
    async warmup(n, opts = {}) {
      return warmConnections(dispatcher, endpoint, cfg, n, opts, () => {
        const abandoned = dispatcher;
        dispatcher = pools.make();
        void abandoned.destroy().catch(() => undefined);
      });
    },
    connectionStats: () => tracker.stats(),
    async close() {
      if (closed) return;
      closed = true;
      const busy = inFlight.size > 0;
      for (const a of [...inFlight]) a.fail('INTERRUPTED', 'the client was closed', 'cancelled');
      await (busy ? dispatcher.destroy() : dispatcher.close());
    },
  };
}

/** When and how often a failed attempt is tried again. */
interface RetryPolicy {
  maxRetries: number;
  baseMs: number;
  maxWaitMs: number;
  random: () => number;
}

function retryPolicy(cfg: ClientConfig): RetryPolicy {
  return {
    maxRetries: Math.max(0, cfg.maxRetries ?? 1),
    baseMs: cfg.retryBaseMs ?? 250,
    maxWaitMs: cfg.maxRetryWaitMs ?? 60_000,
    random: cfg.random ?? Math.random,
  };
}

/**
 * What ends a request early: the run's signal (or a closed client) and the simulated user's
 * cancel; `release` takes them off once the request is done.
 */
function stopRules(
  item: WorkItem,
  signal: AbortSignal | undefined,
  closed: boolean,
): { state: SendState; release(): void } {
  const state: SendState = { current: undefined, stop: undefined, wake: undefined };
  const stopWith = (code: RequestErrorCode, message: string) => {
    if (state.stop) return;
    state.stop = { code, message };
    state.current?.fail(code, message, 'cancelled');
    state.wake?.();
  };
  const onAbort = () => stopWith('INTERRUPTED', 'the run stopped while the request was in flight');
  if (signal?.aborted || closed) onAbort();
  // The run's signal is watched by every request in flight: no listener of its own each.
  if (signal) watchAbort(signal, onAbort);
  let cancelTimer: NodeJS.Timeout | undefined;
  if (item.cancelAfterMs !== undefined && item.cancelAfterMs >= 0) {
    const after = item.cancelAfterMs;
    cancelTimer = setTimeout(() => stopWith('ABORTED', `the user gave up after ${after} ms`), after);
  }
  return {
    state,
    release() {
      clearTimeout(cancelTimer);
      if (signal) unwatchAbort(signal, onAbort);
    },
  };
}

/** One HTTP attempt under its timers (total, TTFT); resolves when it settles, never rejects. */
function runAttempt(
  cfg: ClientConfig,
  ctx: AttemptContext,
  state: SendState,
  inFlight: Set<StreamAttempt>,
  dispatch: (attempt: StreamAttempt) => void,
): Promise<StreamAttempt> {
  return new Promise((resolve) => {
    let total: NodeJS.Timeout | undefined;
    let ttft: NodeJS.Timeout | undefined;
    const attempt = new StreamAttempt(ctx, (settled) => {
      clearTimeout(total);
      clearTimeout(ttft);
      inFlight.delete(settled);
      resolve(settled);
    });
    state.current = attempt;
    if (state.stop) {
      attempt.fail(state.stop.code, state.stop.message, 'cancelled');
      return;
    }
    inFlight.add(attempt);
    total = setTimeout(
      () => attempt.fail('TIMEOUT', `no complete response within ${cfg.timeoutMs} ms`),
      cfg.timeoutMs,
    );
    const ttftTimeoutMs = cfg.ttftTimeoutMs;
    // Embeddings stream no tokens: only the total timeout applies.
    if (ttftTimeoutMs !== undefined && ttftTimeoutMs > 0 && cfg.api !== 'embeddings') {
      ttft = setTimeout(() => {
        if (attempt.firstTokenMs === undefined) {
          attempt.fail('TTFT_TIMEOUT', `no first token within ${ttftTimeoutMs} ms`);
        }
      }, ttftTimeoutMs);
    }
    try {
      dispatch(attempt);
    } catch (err) {
      attempt.onResponseError(undefined as never, err as Error);
    }
  });
}

/** The attempts of one request: the last one, how many, and the failed ones retried. */
interface Attempts {
  last: StreamAttempt;
  attempts: number;
  /** Transparent resends on a stale keep-alive connection (not counted as attempts). */
  resends: number;
  firstSentMs: number | undefined;
  failed: AttemptRecord[];
}

/** Attempts until one succeeds, is cancelled, or may not be retried (resending once on a stale connection). */
async function attemptUntilDone(
  state: SendState,
  retry: RetryPolicy,
  proxy: string | undefined,
  run: () => Promise<StreamAttempt>,
): Promise<Attempts> {
  const failed: AttemptRecord[] = [];
  let attempts = 0;
  let resends = 0;
  let firstSentMs: number | undefined;
  let last!: StreamAttempt;
  for (;;) {
    attempts++;
    const a = await run();
    if (proxy && a.error && !a.started && PROXIED_CONNECT_CODES.has(a.error.code)) {
      a.error = { code: 'PROXY_FAILURE', message: `${proxyLabel(proxy)}: ${a.error.message}` };
    }
    firstSentMs ??= a.sentMs;
    last = a;
    if (!a.error || a.outcome === 'cancelled' || state.stop) break;
    if (resends === 0 && isStaleConnection(a)) {
      resends++;
      attempts--;
      continue;
    }
    if (attempts > retry.maxRetries || !isRetryable(a)) break;
    const wait = retryWaitMs(retry, attempts, a.retryAfterMs);
    if (wait === undefined) break;
    const failedAttempt: AttemptRecord = {
      attempt: attempts,
      sentMs: a.sentMs,
      endMs: a.endMs,
      error: a.error,
    };
    if (a.retryAfterMs !== undefined) failedAttempt.retryAfterMs = a.retryAfterMs;
    failed.push(failedAttempt);
    await sleep(wait, state);
    if (state.stop) break;
  }
  return { last, attempts, resends, firstSentMs, failed };
}

function isRetryable(a: StreamAttempt): boolean {
  const code = a.error!.code;
  if (code.startsWith('HTTP_')) {
    const status = a.httpStatus ?? 0;
    return status === 429 || status >= 500;
  }
  if (a.responded) return false;
  return code === 'CONNECTION_REFUSED' || code === 'CONNECT_TIMEOUT' || code === 'CONNECTION_RESET';
}

/** An idle keep-alive connection the server had closed: written, nothing came back, not a fresh socket. */
function isStaleConnection(a: StreamAttempt): boolean {
  return a.error!.code === 'CONNECTION_RESET' && a.started && !a.responded && a.connectMs === undefined;
}

function retryWaitMs(retry: RetryPolicy, n: number, retryAfterMs: number | undefined): number | undefined {
  const random = retry.random;
  const exp = retry.baseMs * 2 ** (n - 1);
  const wait = retryAfterMs ?? exp / 2 + (random() * exp) / 2;
  return wait > retry.maxWaitMs ? undefined : wait;
}

function sleep(ms: number, state: SendState): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      state.wake = undefined;
      resolve();
    };
    const timer = setTimeout(done, ms);
    state.wake = done;
  });
}

/** The request's record from its attempts; stopped while waiting to retry, it ends cancelled. */
function finishRecord(
  item: WorkItem,
  opts: SendOptions,
  done: Attempts,
  state: SendState,
  cfg: ClientConfig,
  clock: Clock,
): RequestRecord {
  const { last, attempts, resends, firstSentMs, failed } = done;
  const record = toRecord(item, opts.scheduledMs, firstSentMs, last, attempts, failed, cfg.countTokens);
  if (resends > 0) record.resends = resends;
  if (state.stop && record.outcome !== 'cancelled') {
    // Stopped while waiting to retry: the request ends cancelled, its attempts are all recorded.
    record.outcome = 'cancelled';
    record.error = { code: state.stop.code, message: state.stop.message };
    record.endMs = roundMs(clock.now());
  }
  return record;
}

/** The reply's text for the next session turn, cut at MAX_REPLY_CHARS. */
function replyText(texts: readonly string[]): string {
  let text = '';
  for (const t of texts) {
    text += t;
    if (text.length >= MAX_REPLY_CHARS) break;
  }
  return text.length > MAX_REPLY_CHARS ? text.slice(0, MAX_REPLY_CHARS) : text;
}
