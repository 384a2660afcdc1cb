/**
 * Reachability: DNS, TCP connect and TLS, each timed, each failure classified, with the
 * proxy settings of the environment taken into account.
 *
 * @module
 */

import { lookup } from 'node:dns/promises';
import { connect as netConnect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect } from 'node:tls';
import { classifyNetworkError } from '../client/index.js';
import { REQUEST_ERRORS } from '../errors.js';
import type { StepResult } from './types.js';

/** The proxy the environment names for this URL, honouring NO_PROXY; undefined when none applies. */
export function proxyFor(url: URL, env: Record<string, string | undefined>): string | undefined {
  const pick = (...names: string[]) => names.map((n) => env[n]).find((v) => v !== undefined && v !== '');
  const proxy =
    url.protocol === 'https:' ? pick('HTTPS_PROXY', 'https_proxy') : pick('HTTP_PROXY', 'http_proxy');
  if (!proxy) return undefined;
  const noProxy = pick('NO_PROXY', 'no_proxy');
  if (noProxy) {
    const host = url.hostname.toLowerCase();
    for (const entry of noProxy.split(',').map((e) => e.trim().toLowerCase())) {
      if (entry === '*') return undefined;
      if (!entry) continue;
      const bare = entry.replace(/^\*?\./, '').replace(/:\d+$/, '');
      if (host === bare || host.endsWith(`.${bare}`)) return undefined;
    }
  }
  return proxy;
}

/** A proxy URL with any credentials replaced, for display. */
function showProxy(proxy: string): string {
  try {
    const u = new URL(proxy);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    return u.toString();
  } catch {
    return '(unparsable proxy URL)';
  }
}

function elapsed(t0: number): number {
  return Math.round((performance.now() - t0) * 100) / 100;
}

function once(socket: Socket, okEvent: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once(okEvent, () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/** DNS, then TCP, then (for https) TLS; stops at the first that fails. */
export async function checkReachability(
  callUrl: string,
  env: Record<string, string | undefined>,
  timeoutMs = 5000,
): Promise<StepResult> {
  const t0 = performance.now();
  const url = new URL(callUrl);
  const details: string[] = [];
  const proxy = proxyFor(url, env);
  const result = (status: StepResult['status'], extra: Partial<StepResult> = {}): StepResult => ({
    stage: 'reachability',
    title: 'Reachability (DNS, TCP, TLS)',
    status,
    ms: elapsed(t0),
    details,
    ...extra,
  });
  if (proxy) {
    details.push(
      `the environment names a proxy for this URL: ${showProxy(proxy)} (goodput connects directly)`,
    );
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  let address: string;
  const tDns = performance.now();
  try {
    address = (await lookup(host)).address;
    details.push(`DNS ${host} → ${address} in ${elapsed(tDns)} ms`);
  } catch (e) {
    const err = classifyNetworkError(e);
    return result('fail', {
      cause: `DNS: ${host} does not resolve (${err.message})`,
      fix: proxy
        ? 'the host may only resolve through the proxy: use the address the proxy reaches, or run goodput where the name resolves'
        : REQUEST_ERRORS.DNS_FAILURE.hint,
      data: { step: 'dns', code: err.code },
    });
  }
  const tTcp = performance.now();
  const socket = netConnect({ host: address, port });
  try {
    await once(socket, 'connect', timeoutMs);
    details.push(`TCP ${address}:${port} connected in ${elapsed(tTcp)} ms`);
  } catch (e) {
    socket.destroy();
    const err = classifyNetworkError(e);
    const code = err.code === 'UNKNOWN' && /ETIMEDOUT/.test(err.message) ? 'CONNECT_TIMEOUT' : err.code;
    const info = REQUEST_ERRORS[code];
    return result('fail', {
      cause: `TCP ${address}:${port}: ${info.cause} (${err.message})`,
      fix: proxy
        ? `${info.hint}; a proxy is set in the environment (${showProxy(proxy)}): goodput does not route through it`
        : info.hint,
      data: { step: 'tcp', code },
    });
  }
  if (url.protocol !== 'https:') {
    socket.destroy();
    return result('pass', { data: { address, port, tls: false } });
  }
  const tTls = performance.now();
  const tls = tlsConnect({ socket, servername: host, ALPNProtocols: ['http/1.1'] });
  try {
    await once(tls, 'secureConnect', timeoutMs);
    const cert = tls.getPeerCertificate();
    details.push(
      `TLS ${tls.getProtocol() ?? ''} in ${elapsed(tTls)} ms${cert?.subject?.CN ? `, certificate for ${cert.subject.CN}` : ''}`,
    );
    return result('pass', { data: { address, port, tls: true } });
  } catch (e) {
    const err = classifyNetworkError(e);
    const message = (e as Error).message;
    const plainServer = /wrong version number|packet length too long|EPROTO/i.test(message);
    return result('fail', {
      cause: plainServer
        ? `TLS: the server at ${address}:${port} does not speak TLS (${message})`
        : `TLS: the handshake failed (${err.message})`,
      fix: plainServer ? `use http:// instead of https:// in --url` : REQUEST_ERRORS.TLS_FAILURE.hint,
      data: { step: 'tls', code: 'TLS_FAILURE' },
    });
  } finally {
    tls.destroy();
    socket.destroy();
  }
}
