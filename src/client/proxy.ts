/**
 * Which proxy, if any, a request goes through: `HTTPS_PROXY` / `HTTP_PROXY` (either case),
 * minus `NO_PROXY`, and never for loopback (the embedded engine and local servers).
 *
 * @module
 */

import type { RequestErrorCode } from '../types.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** True when `NO_PROXY` names the host (exact, a domain suffix with or without a leading dot, `*`), optionally with the port. */
function bypassed(url: URL, noProxy: string): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  for (const raw of noProxy.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const colon = entry.lastIndexOf(':');
    if (colon > 0 && !entry.includes(']') && /^\d+$/.test(entry.slice(colon + 1))) {
      if (entry.slice(colon + 1) !== port) continue;
      entry = entry.slice(0, colon);
    }
    if (entry.startsWith('*')) entry = entry.slice(1);
    if (entry.startsWith('.')) {
      if (host.endsWith(entry) || host === entry.slice(1)) return true;
    } else if (host === entry || host.endsWith(`.${entry}`)) {
      return true;
    }
  }
  return false;
}

/**
 * The proxy URL for a target URL from the environment, or undefined for a direct connection.
 *
 * @example
 * ```ts
 * resolveProxy(new URL('https://api.example.com/v1'), { HTTPS_PROXY: 'http://proxy:3128' }); // 'http://proxy:3128'
 * resolveProxy(new URL('http://127.0.0.1:8000'), { HTTP_PROXY: 'http://proxy:3128' });       // undefined
 * ```
 */
export function resolveProxy(
  url: URL,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  if (LOOPBACK.has(url.hostname.toLowerCase())) return undefined;
  const proxy =
    url.protocol === 'https:'
      ? (env.HTTPS_PROXY ?? env.https_proxy)
      : url.protocol === 'http:'
        ? (env.HTTP_PROXY ?? env.http_proxy)
        : undefined;
  if (!proxy) return undefined;
  const noProxy = env.NO_PROXY ?? env.no_proxy ?? '';
  return bypassed(url, noProxy) ? undefined : proxy;
}

/** The proxy URL without credentials, for messages. */
export function proxyLabel(proxy: string): string {
  try {
    const u = new URL(proxy);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'the proxy';
  }
}

/** Connection failures that, through a proxy, are failures to reach the proxy. */
export const PROXIED_CONNECT_CODES = new Set<RequestErrorCode>([
  'CONNECTION_REFUSED',
  'DNS_FAILURE',
  'CONNECT_TIMEOUT',
  'CONNECTION_RESET',
]);

/** The password of a proxy URL, if it carries one (it must not reach a message either). */
export function proxySecret(proxy: string | undefined): string | undefined {
  if (!proxy) return undefined;
  try {
    return decodeURIComponent(new URL(proxy).password) || undefined;
  } catch {
    return undefined;
  }
}
