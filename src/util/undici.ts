/**
 * The parts of undici goodput uses, required one file each instead of through its entry
 * module, which also loads fetch, WebSocket, the caches, the mocks and SQLite's cache store:
 * about 7 MB less peak RSS for every run (bench/one-request-memory.bench.mjs). `request` is
 * undici's own top-level `request` (its API function on the global dispatcher, or on
 * `dispatcher` when given), for absolute URLs.
 *
 * @module
 */

import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const load = createRequire(import.meta.url);

export const Pool = load('undici/lib/dispatcher/pool') as typeof Undici.Pool;
export const ProxyAgent = load('undici/lib/dispatcher/proxy-agent') as typeof Undici.ProxyAgent;
export const buildConnector = load('undici/lib/core/connect') as typeof Undici.buildConnector;
/** A connector as buildConnector makes it. */
export type Connector = Undici.buildConnector.connector;

const api = load('undici/lib/api') as {
  request: (
    this: Undici.Dispatcher,
    opts: Undici.Dispatcher.RequestOptions,
  ) => Promise<Undici.Dispatcher.ResponseData>;
};
// What undici's entry does first: every dispatcher gets the API methods (request, stream, …).
Object.assign((load('undici/lib/dispatcher/dispatcher') as { prototype: object }).prototype, api);
const { getGlobalDispatcher } = load('undici/lib/global') as { getGlobalDispatcher: () => Undici.Dispatcher };

/** undici's `request(url, options)`: the response of one request to an absolute URL. */
export function request(
  url: string | URL,
  options: Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> &
    Partial<Pick<Undici.Dispatcher.RequestOptions, 'method'>> & { dispatcher?: Undici.Dispatcher } = {},
): Promise<Undici.Dispatcher.ResponseData> {
  const target = new URL(url);
  const { dispatcher = getGlobalDispatcher(), ...rest } = options;
  return api.request.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: target.search ? `${target.pathname}${target.search}` : target.pathname,
    method: options.method || (options.body ? 'PUT' : 'GET'),
  });
}
