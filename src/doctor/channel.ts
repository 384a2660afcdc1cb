/**
 * Pure checks of a channel's configuration: the base URL and the key, as an experienced
 * engineer reads them before sending anything.
 *
 * @module
 */

import { endpointUrl } from '../client/index.js';
import { describeKey, inspectKey } from '../config/index.js';
import type { ApiKind } from '../types.js';

export interface Problem {
  severity: 'warn' | 'fail';
  cause: string;
  fix: string;
}

export interface UrlAnalysis {
  /** The URL requests will be sent to, or undefined when the base URL is unusable. */
  callUrl?: string;
  problems: Problem[];
}

const FULL_PATHS = ['/v1/chat/completions', '/v1/completions', '/chat/completions', '/completions'];

/**
 * Reads a base URL the way goodput will use it and names what is wrong with it: a query
 * string or fragment, an endpoint path already at its end, `/v1` already present, a double
 * slash, credentials, a scheme other than http(s).
 *
 * @example
 * ```ts
 * analyzeBaseUrl('http://h:8000/v1?utm_source=x', 'chat').problems[0].cause;
 * // "the base URL carries a query string (?utm_source=x) …"
 * ```
 */
export function analyzeBaseUrl(raw: string, api: ApiKind): UrlAnalysis {
  const problems: Problem[] = [];
  const trimmed = raw.trim();
  if (trimmed !== raw) {
    problems.push({
      severity: 'warn',
      cause: 'the base URL has spaces or a newline around it',
      fix: 'remove the whitespace from --url / base_url',
    });
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    problems.push({
      severity: 'fail',
      cause: `the base URL '${trimmed}' is not a valid URL`,
      fix: 'give a full URL with scheme and host, e.g. --url http://localhost:8000',
    });
    return { problems };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push({
      severity: 'fail',
      cause: `the base URL uses ${url.protocol} — only http and https are spoken`,
      fix: 'use http://host:port or https://host',
    });
    return { problems };
  }
  if (url.username || url.password) {
    problems.push({
      severity: 'fail',
      cause: 'the base URL carries credentials (user:password@)',
      fix: 'remove them from the URL and pass the key in GOODPUT_API_KEY',
    });
    url.username = '';
    url.password = '';
  }
  if (url.search) {
    problems.push({
      severity: 'fail',
      cause: `the base URL carries a query string (${url.search}); the endpoint path would be appended after it`,
      fix: `drop the query string: --url ${url.origin}${url.pathname.replace(/\/+$/, '')}`,
    });
    url.search = '';
  }
  if (url.hash) {
    problems.push({
      severity: 'fail',
      cause: `the base URL carries a fragment (${url.hash})`,
      fix: 'drop everything from # on',
    });
    url.hash = '';
  }
  if (/\/\/+/.test(url.pathname)) {
    problems.push({
      severity: 'fail',
      cause: `the base URL's path has a double slash (${url.pathname}); many servers answer 404 to it`,
      fix: `use --url ${url.origin}${url.pathname.replace(/\/{2,}/g, '/').replace(/\/+$/, '')}`,
    });
    url.pathname = url.pathname.replace(/\/{2,}/g, '/');
  }
  if (/(\/v1){2,}(\/|$)/.test(url.pathname)) {
    const single = url.pathname.replace(/(\/v1){2,}(?=\/|$)/, '/v1').replace(/\/+$/, '');
    problems.push({
      severity: 'fail',
      cause: `the base URL has /v1 twice (${url.pathname}); the server would be asked for ${url.pathname.replace(/\/+$/, '')}/chat/completions`,
      fix: `use --url ${url.origin}${single.replace(/\/v1$/, '')}`,
    });
    url.pathname = single;
  }
  const path = url.pathname.replace(/\/+$/, '');
  const endpoint = FULL_PATHS.find((p) => path.endsWith(p));
  if (endpoint) {
    const base = `${url.origin}${path.slice(0, path.length - endpoint.length)}`;
    problems.push({
      severity: 'fail',
      cause: `the base URL already ends with the endpoint path ${endpoint}; goodput appends /v1/chat/completions itself`,
      fix: `use --url ${base}`,
    });
    url.pathname = path.slice(0, path.length - endpoint.length);
  }
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  const callUrl = endpointUrl(base, api);
  if (!endpoint && /\/v1$/.test(path)) {
    problems.push({
      severity: 'warn',
      cause: `the base URL already ends with /v1; goodput will not add a second one and will call ${callUrl}`,
      fix: `nothing to do if that is the right URL; the usual form is --url ${base.replace(/\/v1$/, '')}`,
    });
  }
  return { callUrl, problems };
}

export interface KeyAnalysis {
  present: boolean;
  /** "41 characters, ending …a1b2" — never the key itself. */
  description: string;
  problems: Problem[];
}

/** Names what is wrong with a key as it was read (before trimming). Never returns the key. */
export function analyzeKey(raw: string | undefined, source: string, loopback: boolean): KeyAnalysis {
  if (raw === undefined || raw.length === 0) {
    return {
      present: false,
      description: 'no key',
      problems: loopback
        ? []
        : [
            {
              severity: 'warn',
              cause: 'no API key is set; a server started with --api-key or a hosted gateway will answer 401',
              fix: 'set GOODPUT_API_KEY (or OPENAI_API_KEY), or name a file with --api-key-file',
            },
          ],
    };
  }
  const inspected = inspectKey(raw);
  const problems = inspected.problems.map((p): Problem => {
    // Whitespace around the key is trimmed for use: other clients may not, so it is a note.
    if (p.includes('(removed for use)')) {
      return {
        severity: 'warn',
        cause: `${p.replace(/^the key/, `the key from ${source}`)}; other clients may not trim it`,
        fix: /newline/.test(p)
          ? `store it without the newline: printf %s "$KEY" > key.txt, or export GOODPUT_API_KEY="$(tr -d '\\n' < key.txt)"`
          : 'remove the whitespace around the key',
      };
    }
    return {
      severity: 'fail',
      cause: p.replace(/^the key/, `the key from ${source}`),
      fix: /Bearer/.test(p)
        ? 'store only the key; goodput adds the Bearer prefix'
        : 'copy the key again, in one piece, without quotes',
    };
  });
  return { present: true, description: describeKey(inspected.key), problems };
}

/** True for localhost and the loopback ranges. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\./.test(h);
}

/** Auth modes a config may ask for that an OpenAI-compatible Bearer channel does not use. */
export function foreignAuthMode(raw: Record<string, unknown>): string | undefined {
  for (const key of [
    'auth',
    'authType',
    'auth_type',
    'authMode',
    'auth_mode',
    'oauth',
    'azureAd',
    'azure_ad',
  ]) {
    const v = raw[key];
    if (v === undefined || v === null || v === false) continue;
    // Name the mode, never the values next to it (an OAuth block may hold a client secret).
    const mode =
      typeof v === 'string'
        ? v
        : typeof v === 'object' && typeof (v as Record<string, unknown>).type === 'string'
          ? String((v as Record<string, unknown>).type)
          : key;
    if (/bearer|api[-_ ]?key/i.test(mode)) continue;
    return `${key}: ${mode.length > 40 ? `${mode.slice(0, 40)}…` : mode}`;
  }
  return undefined;
}
