/**
 * Reachability: DNS, TCP connect and TLS, each timed, each failure classified. When the
 * environment names a proxy for the URL (HTTPS_PROXY / HTTP_PROXY, NO_PROXY honoured), the
 * client goes through it, so the proxy is what must be reachable.
 *
 * @module
 */

import { lookup } from 'node:dns/promises';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect } from 'node:tls';
import { classifyNetworkError, proxyLabel, resolveProxy } from '../client/index.js';
import { REQUEST_ERRORS } from '../errors.js';
import type { StepResult } from './types.js';

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
  const proxy = resolveProxy(url, env);
  const result = (status: StepResult['status'], extra: Partial<StepResult> = {}): StepResult => ({
    stage: 'reachability',
    title: 'Reachability (DNS, TCP, TLS)',
    status,
    ms: elapsed(t0),
    details,
    ...extra,
  });
  // Through a proxy, the client's socket goes to the proxy; TLS to the target is tunnelled.
  const hop = proxy ? new URL(proxy) : url;
  if (proxy) details.push(`requests go through the proxy ${proxyLabel(proxy)} (from the environment)`);
  const host = hop.hostname.replace(/^\[|\]$/g, '');
  const port = Number(hop.port || (hop.protocol === 'https:' ? 443 : 80));
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
        ? `fix the proxy host in HTTPS_PROXY / HTTP_PROXY, or add ${url.hostname} to NO_PROXY`
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
        ? `the proxy ${proxyLabel(proxy)} is not reachable: fix HTTPS_PROXY / HTTP_PROXY, or add ${url.hostname} to NO_PROXY`
        : info.hint,
      data: { step: 'tcp', code },
    });
  }
  if (url.protocol !== 'https:' || proxy) {
    socket.destroy();
    if (proxy && url.protocol === 'https:')
      details.push('TLS to the target is tunnelled through the proxy: checked by the next steps');
    return result('pass', { data: { address, port, tls: false, proxy: proxy !== undefined } });
  }
  const tTls = performance.now();
  // SNI names hosts only (RFC 6066; Node warns on stderr for an IP): an IP URL sends none, and the
  // certificate is checked against `host` either way.
  const sni = isIP(host) === 0 ? { servername: host } : {};
  const tls = tlsConnect({ socket, host, ...sni, ALPNProtocols: ['http/1.1'] });
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
