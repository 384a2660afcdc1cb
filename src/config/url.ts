/**
 * One normalisation of a base URL, used by `run` (flag, env and file resolution) and by
 * `doctor` alike: what cannot be meant is refused with the fixed URL in the hint, what can be
 * corrected safely is corrected and said.
 *
 * @module
 */

import { GoodputError } from '../errors.js';

/** A base URL as goodput will use it, and what was corrected on the way. */
export interface NormalizedBaseUrl {
  /** No trailing slash, no endpoint path, no query, fragment or credentials. */
  baseUrl: string;
  /** Corrections made, in words (e.g. an endpoint path dropped). */
  notes: string[];
}

/** Endpoint paths goodput appends itself; a base URL ending with one is cut back to its base. */
const ENDPOINT_PATHS = ['/v1/chat/completions', '/v1/completions', '/chat/completions', '/completions'];

const refuse = (where: string, cause: string, fixed: string, extra = '') =>
  new GoodputError('E_USAGE', `${where}: ${cause}`, `use --url ${fixed}${extra}`);

/**
 * Normalises the base URL `raw` that came from `where` (e.g. "--url", "GOODPUT_BASE_URL").
 * Refused (E_USAGE, exit 2, the hint names the fixed URL): not http(s), unparsable (a port
 * beyond 65535), credentials (`user:pass@`, never echoed), a `?query`, a `#fragment`.
 * Corrected and noted: an endpoint path already at the end (`/v1/chat/completions`…).
 * Trailing slashes are dropped silently; a `/v1` is kept (the client does not double it).
 *
 * @example
 * normalizeBaseUrl('http://h:8000/v1/chat/completions', '--url');
 * // { baseUrl: 'http://h:8000', notes: ['--url ended with the endpoint path /v1/chat/completions …'] }
 */
export function normalizeBaseUrl(raw: string, where: string): NormalizedBaseUrl {
  const text = raw.trim();
  if (!/^https?:\/\/[^/\s]/i.test(text)) {
    const shown = text.replace(/\/\/[^@/]*@/, '//');
    throw new GoodputError(
      'E_USAGE',
      `${where} must be an http:// or https:// base URL, got '${shown}'`,
      'e.g. --url http://localhost:8000 (the client appends /v1/chat/completions)',
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    const port = /^https?:\/\/(?:[^@/]*@)?(?:\[[^\]]*\]|[^:/?#]*):(\d+)/i.exec(text)?.[1];
    const why =
      port !== undefined && Number(port) > 65_535 ? `port ${port} is beyond 65535` : 'it is not a valid URL';
    throw new GoodputError(
      'E_USAGE',
      `${where} cannot be used: ${why} (got '${text.replace(/\/\/[^@/]*@/, '//')}')`,
      'give a base URL such as http://localhost:8000 (ports run from 1 to 65535)',
    );
  }
  const hadCredentials = url.username !== '' || url.password !== '';
  const search = url.search;
  const hash = url.hash;
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  const path = url.pathname.replace(/\/+$/, '');
  const endpoint = ENDPOINT_PATHS.find((p) => path.toLowerCase().endsWith(p));
  const basePath = endpoint ? path.slice(0, path.length - endpoint.length) : path;
  const fixed = `${url.origin}${basePath}`;
  if (hadCredentials) {
    throw refuse(
      where,
      'the base URL carries credentials (user:password@); they would be sent to the server and written to the results',
      fixed,
      ' and pass the key in GOODPUT_API_KEY (or --api-key-file)',
    );
  }
  if (search) {
    throw refuse(
      where,
      `the base URL carries a query string (${search}); the endpoint path would be appended after it`,
      fixed,
    );
  }
  if (hash) throw refuse(where, `the base URL carries a fragment (${hash})`, fixed);
  const notes: string[] = [];
  if (endpoint) {
    notes.push(
      `${where} ended with the endpoint path ${endpoint}, which goodput appends itself: using the base URL ${fixed}`,
    );
  }
  return { baseUrl: fixed, notes };
}

/**
 * A metrics endpoint URL given on the command line (`--gpu-metrics-url`): http(s), parsable,
 * no credentials (they would be written to the results). A bare host (`http://h:9400`) gets
 * the exporters' usual `/metrics` path, and says so. Refused with E_USAGE and an example.
 */
export function normalizeMetricsUrl(
  raw: string,
  where: string,
  example: string,
): { url: string; notes: string[] } {
  const text = raw.trim();
  const hint = `e.g. ${where} ${example}`;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  const shown = text.replace(/\/\/[^@/]*@/, '//');
  if (!url || !/^https?:$/.test(url.protocol) || url.hostname === '') {
    throw new GoodputError('E_USAGE', `${where} must be an http:// or https:// URL, got '${shown}'`, hint);
  }
  if (url.username !== '' || url.password !== '') {
    throw new GoodputError(
      'E_USAGE',
      `${where} carries credentials (user:password@); they would be written to the results`,
      hint,
    );
  }
  const notes: string[] = [];
  if (url.pathname === '/' && !text.endsWith('/')) {
    url.pathname = '/metrics';
    notes.push(`${where} had no path: scraping ${url.toString()}`);
  }
  return { url: url.toString(), notes };
}
