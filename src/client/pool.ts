/**
 * Where a client's requests go and over what: the endpoint's URLs and headers, and the undici
 * Pool (or ProxyAgent) whose connector times each new connection. Undici calls the connector's
 * callback and then, synchronously, writes the first queued request on the new socket, so the
 * attempt that starts there takes that connect time (`takeConnectMs`).
 *
 * @module
 */

import type { Dispatcher } from 'undici';
import type { Clock } from '../types.js';
import { buildConnector, type Connector, Pool, ProxyAgent } from '../util/undici.js';
import { roundMs } from './attempt.js';
import { type ClientConfig, IDLE_CONNECTION_MS } from './config.js';
import type { ConnectionTracker } from './connections.js';
import { resolveProxy } from './proxy.js';
import { endpointUrl, modelsUrl } from './request.js';
import { sourcePlan, spreadOverSources } from './source-addresses.js';

/** The URLs a client sends to, and the headers of its GETs and POSTs. */
export interface Endpoint {
  url: URL;
  /** The POST path (with its query). */
  path: string;
  /** `/v1/models`: what the connection warm-up asks for. */
  models: URL;
  getHeaders: Record<string, string>;
  postHeaders: Record<string, string>;
}

export function endpointOf(cfg: ClientConfig): Endpoint {
  const url = new URL(endpointUrl(cfg.baseUrl, cfg.api));
  const getHeaders: Record<string, string> = { ...(cfg.headers ?? {}) };
  if (cfg.apiKey) getHeaders.authorization = `Bearer ${cfg.apiKey}`;
  const postHeaders: Record<string, string> = {
    'content-type': 'application/json',
    accept: cfg.api === 'embeddings' ? 'application/json' : 'text/event-stream',
    ...getHeaders,
  };
  return {
    url,
    path: url.pathname + url.search,
    models: new URL(modelsUrl(cfg.baseUrl)),
    getHeaders,
    postHeaders,
  };
}

/** Makes the client's dispatchers (a fresh one replaces a warm-up's abandoned pool). */
export interface ConnectionPools {
  /** The proxy the connections go through, if any. */
  proxy: string | undefined;
  make(): Dispatcher;
  /** The connect time of the connection opened just now (once), for the attempt it carries. */
  takeConnectMs(): number | undefined;
}

export function connectionPools(
  cfg: ClientConfig,
  url: URL,
  clock: Clock,
  tracker: ConnectionTracker,
): ConnectionPools {
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
  const make = (): Dispatcher =>
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
  return {
    proxy,
    make,
    takeConnectMs() {
      const ms = justConnectedMs;
      justConnectedMs = undefined;
      return ms;
    },
  };
}
