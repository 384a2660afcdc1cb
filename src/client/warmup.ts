/**
 * The connection warm-up: up to n GETs of `/v1/models` at once, so the load starts on open
 * connections, bounded by a budget and by the caller's signal (Ctrl-C).
 *
 * @module
 */

import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import type { ConnectionWarmup } from '../types.js';
import { type ClientConfig, WARMUP_BUDGET_MS, type WarmupOptions } from './config.js';
import type { Endpoint } from './pool.js';

/**
 * Opens up to `n` connections (at most the pool's) on `dispatcher`. When the budget ran out or
 * a request failed, `abandon` is called before the result is taken: the caller replaces the pool.
 */
export async function warmConnections(
  dispatcher: Dispatcher,
  endpoint: Endpoint,
  cfg: ClientConfig,
  n: number,
  opts: WarmupOptions,
  abandon: () => void,
): Promise<ConnectionWarmup> {
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
          origin: endpoint.url.origin,
          method: 'GET',
          path: endpoint.models.pathname + endpoint.models.search,
          headers: endpoint.getHeaders,
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
  // undici reopens the connection of every abandoned warm-up request, idle, and may later send
  // on one that a server with few threads never serves: the load starts on a fresh pool instead,
  // whose connections open as the load needs them.
  if (reason === 'budget' || reason === 'errors') abandon();
  const result: ConnectionWarmup = { requested, ok, ms: Math.round(performance.now() - started) };
  if (reason) result.reason = reason;
  return result;
}
