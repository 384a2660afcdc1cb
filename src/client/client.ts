/**
 * The streaming client: an undici Pool sized to the run's concurrency (keep-alive,
 * pipelining 1), one StreamAttempt per HTTP attempt, retries with backoff that honours
 * Retry-After, a transparent resend when a reused idle connection turns out closed by
 * the server, and the timers (total, TTFT, the simulated user's cancel, the run's stop).
 *
 * @module
 */

import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import type {
  AttemptRecord,
  Clock,
  ConnectionWarmup,
  RequestErrorCode,
  RequestRecord,
  WorkItem,
} from '../types.js';
import { makeRedactor } from '../util/index.js';
import { buildConnector, type Connector, Pool, ProxyAgent } from '../util/undici.js';
import { type AttemptContext, roundMs, StreamAttempt } from './attempt.js';
import {
  type Client,
  type ClientConfig,
  IDLE_CONNECTION_MS,
  MAX_REPLY_CHARS,
  type SendOptions,
  WARMUP_BUDGET_MS,
} from './config.js';
import { ConnectionTracker } from './connections.js';
import { PROXIED_CONNECT_CODES, proxyLabel, proxySecret, resolveProxy } from './proxy.js';
import { internalFailure, scrub, toRecord } from './record.js';
import { endpointUrl, modelsUrl, requestBody, requestHeaders } from './request.js';
import { sourcePlan, spreadOverSources } from './source-addresses.js';

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
  const url = new URL(endpointUrl(cfg.baseUrl, cfg.api));
  const path = url.pathname + url.search;
  const models = new URL(modelsUrl(cfg.baseUrl));
  const maxRetries = Math.max(0, cfg.maxRetries ?? 1);
  const retryBaseMs = cfg.retryBaseMs ?? 250;
  const maxRetryWaitMs = cfg.maxRetryWaitMs ?? 60_000;
  const random = cfg.random ?? Math.random;

  const getHeaders: Record<string, string> = { ...(cfg.headers ?? {}) };
  if (cfg.apiKey) getHeaders.authorization = `Bearer ${cfg.apiKey}`;
  const postHeaders: Record<string, string> = {
    'content-type': 'application/json',
    accept: cfg.api === 'embeddings' ? 'application/json' : 'text/event-stream',
    ...getHeaders,
  };

  const perRequest = cfg.connectionMode === 'per-request';
  const tracker = new ConnectionTracker(clock);
  // Connect time: undici calls the connector's callback and then, synchronously, writes the
  // first queued request on the new socket, so the attempt's onRequestStart can take it.
  let justConnectedMs: number | undefined;
  const timed =
    (inner: Connector): Connector =>
    (options, callback) => {
      const t0 = clock.now();
      inner(options, (err, socket) => {
        if (err) {
          callback(err, null);
          return;
        }
        justConnectedMs = roundMs(clock.now() - t0);
        tracker.add(socket!, justConnectedMs);
        try {
          callback(null, socket!);
        } finally {
          justConnectedMs = undefined;
        }
      });
    };
  const poolOptions = {
    connections: cfg.connections ?? null,
    pipelining: 1,
    // An idle connection is let go after 4 s (under the 5 s of llama.cpp, uvicorn and node, and
    // sooner when the server says so): a server with one thread per connection gets it back.
    keepAliveTimeout: IDLE_CONNECTION_MS,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: 0,
    bodyTimeout: 0,
  };
  // Source addresses (direct connections only): the ones given, or the loopback spread.
  const sources = sourcePlan(url.hostname, cfg.sourceAddresses);
  const sourced = (inner: Connector) => (sources ? spreadOverSources(inner, sources) : inner);
  const proxy = cfg.proxyUrl === null ? undefined : (cfg.proxyUrl ?? resolveProxy(url));
  const makeDispatcher = (): Dispatcher =>
    proxy
      ? new ProxyAgent({
          uri: proxy,
          ...poolOptions,
          // Each origin's pool times the tunnel (TCP to the proxy + CONNECT + TLS) as its connect.
          factory: (origin, opts) =>
            new Pool(origin, {
              ...opts,
              connect: timed((opts as { connect: Connector }).connect),
            }),
        })
      : new Pool(url.origin, {
          ...poolOptions,
          connect: timed(
            sourced(buildConnector({ timeout: cfg.connectTimeoutMs ?? Math.min(cfg.timeoutMs, 10_000) })),
          ),
        });
  let dispatcher = makeDispatcher();
  const redact = makeRedactor([cfg.apiKey, proxySecret(proxy), ...(cfg.secrets ?? [])]);

  const ctx: AttemptContext = {
    clock,
    api: cfg.api,
    keepText: cfg.countTokens !== undefined,
    maxEventBytes: cfg.maxEventBytes ?? 4 * 1024 * 1024,
    redact,
    url: url.href,
    takeConnectMs() {
      const ms = justConnectedMs;
      justConnectedMs = undefined;
      return ms;
    },
  };
  // Session turns keep the reply's text for the next turn.
  const keepingCtx: AttemptContext = { ...ctx, keepText: true };
  const inFlight = new Set<StreamAttempt>();
  let closed = false;

  function runAttempt(
    state: SendState,
    body: string,
    headers: Record<string, string>,
    keepText: boolean,
  ): Promise<StreamAttempt> {
    return new Promise((resolve) => {
      let total: NodeJS.Timeout | undefined;
      let ttft: NodeJS.Timeout | undefined;
      const attempt = new StreamAttempt(keepText ? keepingCtx : ctx, (settled) => {
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
        dispatcher.dispatch(
          { origin: url.origin, method: 'POST', path, headers, body, reset: perRequest },
          attempt,
        );
      } catch (err) {
        attempt.onResponseError(undefined as never, err as Error);
      }
    });
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

  function retryWaitMs(retry: number, retryAfterMs: number | undefined): number | undefined {
    const exp = retryBaseMs * 2 ** (retry - 1);
    const wait = retryAfterMs ?? exp / 2 + (random() * exp) / 2;
    return wait > maxRetryWaitMs ? undefined : wait;
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

  async function sendInner(item: WorkItem, opts: SendOptions): Promise<RequestRecord> {
    const body = requestBody(cfg.api, cfg.model, item, cfg.sampling, cfg.extraBody);
    const headers = requestHeaders(postHeaders, item, cfg.sessionHeader);
    const state: SendState = { current: undefined, stop: undefined, wake: undefined };
    const stopWith = (code: RequestErrorCode, message: string) => {
      if (state.stop) return;
      state.stop = { code, message };
      state.current?.fail(code, message, 'cancelled');
      state.wake?.();
    };
    const onAbort = () => stopWith('INTERRUPTED', 'the run stopped while the request was in flight');
    const signal = opts.signal;
    if (signal?.aborted || closed) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let cancelTimer: NodeJS.Timeout | undefined;
    if (item.cancelAfterMs !== undefined && item.cancelAfterMs >= 0) {
      const after = item.cancelAfterMs;
      cancelTimer = setTimeout(() => stopWith('ABORTED', `the user gave up after ${after} ms`), after);
    }
    const failed: AttemptRecord[] = [];
    let attempts = 0;
    let resends = 0;
    let firstSentMs: number | undefined;
    let last!: StreamAttempt;
    try {
      for (;;) {
        attempts++;
        const a = await runAttempt(state, body, headers, opts.onReply !== undefined);
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
        if (attempts > maxRetries || !isRetryable(a)) break;
        const wait = retryWaitMs(attempts, a.retryAfterMs);
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
    } finally {
      clearTimeout(cancelTimer);
      signal?.removeEventListener('abort', onAbort);
    }
    const record = toRecord(item, opts.scheduledMs, firstSentMs, last, attempts, failed, cfg.countTokens);
    if (resends > 0) record.resends = resends;
    if (state.stop && record.outcome !== 'cancelled') {
      // Stopped while waiting to retry: the request ends cancelled, its attempts are all recorded.
      record.outcome = 'cancelled';
      record.error = { code: state.stop.code, message: state.stop.message };
      record.endMs = roundMs(clock.now());
    }
    scrub(record, redact);
    if (opts.onReply && last.texts) {
      let text = '';
      for (const t of last.texts) {
        text += t;
        if (text.length >= MAX_REPLY_CHARS) break;
      }
      opts.onReply(text.length > MAX_REPLY_CHARS ? text.slice(0, MAX_REPLY_CHARS) : text);
    }
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
      const started = performance.now();
      const requested = Math.max(0, Math.min(n, cfg.connections ?? n));
      const budgetMs = Math.max(1, Math.min(opts.budgetMs ?? WARMUP_BUDGET_MS, cfg.timeoutMs ?? Infinity));
      // One signal ends every warm-up request: the budget running out, or the caller's (Ctrl-C).
      const stop = new AbortController();
      setMaxListeners(0, stop.signal);
      let reason: ConnectionWarmup['reason'];
      const end = (why: 'budget' | 'aborted') => {
        reason ??= why;
        stop.abort(new Error(why === 'budget' ? 'warm-up budget reached' : 'run stopped'));
      };
      const onAbort = () => end('aborted');
      const timer = setTimeout(() => end('budget'), budgetMs);
      if (opts.signal?.aborted) onAbort();
      else opts.signal?.addEventListener('abort', onAbort, { once: true });
      const stopped = new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve()));
      let ok = 0;
      const open: Promise<void>[] = [];
      for (let i = 0; i < requested && !stop.signal.aborted; i++) {
        open.push(
          dispatcher
            .request({
              origin: url.origin,
              method: 'GET',
              path: models.pathname + models.search,
              headers: getHeaders,
              headersTimeout: budgetMs,
              bodyTimeout: budgetMs,
              signal: stop.signal,
            })
            .then(async (res) => {
              await res.body.dump({ limit: 128 * 1024, signal: stop.signal });
              if (res.statusCode < 500) ok++;
            })
            .catch(() => undefined),
        );
      }
      // Whatever a request does with the abort, the warm-up itself ends at the budget or the signal.
      await Promise.race([Promise.all(open), stopped]);
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (ok < requested) reason ??= 'errors';
      else reason = undefined;
      if (reason === 'budget' || reason === 'errors') {
        // undici reopens the connection of every abandoned warm-up request, idle, and may later
        // send on one that a server with few threads never serves: start the load on a fresh
        // pool instead, whose connections open as the load needs them.
        const abandoned = dispatcher;
        dispatcher = makeDispatcher();
        void abandoned.destroy().catch(() => undefined);
      }
      const result: ConnectionWarmup = { requested, ok, ms: Math.round(performance.now() - started) };
      if (reason) result.reason = reason;
      return result;
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
