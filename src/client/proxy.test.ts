import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConnectProxy,
  chatChunk,
  freePort,
  type Loopback,
  startConnectProxy,
  startLoopback,
  writeEvents,
} from '../../test/helpers/loopback.js';
import type { Clock, WorkItem } from '../types.js';
import { createClient, listModels, resolveProxy } from './index.js';

describe('resolveProxy', () => {
  const env = { HTTPS_PROXY: 'http://p:3128', HTTP_PROXY: 'http://q:3128' };
  const cases: [string, Record<string, string>, string | undefined][] = [
    ['https://api.example.com', env, 'http://p:3128'],
    ['http://api.example.com', env, 'http://q:3128'],
    ['https://api.example.com', { https_proxy: 'http://lower:1' }, 'http://lower:1'],
    ['http://127.0.0.1:8000', env, undefined],
    ['http://localhost:8000', env, undefined],
    ['https://api.example.com', { ...env, NO_PROXY: 'example.com' }, undefined],
    ['https://api.example.com', { ...env, NO_PROXY: '.example.com' }, undefined],
    ['https://example.com', { ...env, NO_PROXY: '.example.com' }, undefined],
    ['https://api.example.com', { ...env, NO_PROXY: 'other.com, *' }, undefined],
    ['https://api.example.com', { ...env, no_proxy: 'api.example.com:443' }, undefined],
    ['https://api.example.com', { ...env, NO_PROXY: 'api.example.com:8443' }, 'http://p:3128'],
    ['https://notexample.com', { ...env, NO_PROXY: 'example.com' }, 'http://p:3128'],
    ['https://api.example.com', {}, undefined],
  ];
  for (const [target, e, want] of cases) {
    it(`${target} with ${JSON.stringify(e)} → ${want}`, () =>
      expect(resolveProxy(new URL(target), e)).toBe(want));
  }
});

describe('client through a proxy', () => {
  const clock: Clock = { now: () => performance.now() };
  const item: WorkItem = {
    index: 0,
    id: 'r',
    warmup: false,
    messages: [{ role: 'user', content: 'hi' }],
    promptTokens: 1,
    maxTokens: 4,
  };
  const open: (Loopback | ConnectProxy)[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const config = (baseUrl: string, proxyUrl: string) => ({
    baseUrl,
    api: 'chat' as const,
    model: 'm',
    timeoutMs: 3000,
    maxRetries: 0,
    proxyUrl,
    sampling: { temperature: 0, maxTokens: 4, ignoreEos: false },
  });

  it('tunnels through CONNECT, sends proxy credentials, and keeps them out of records', async () => {
    const lb = await startLoopback((_q, res) =>
      writeEvents(res, [chatChunk({ content: 'ok' }, 'stop'), '[DONE]']),
    );
    const proxy = await startConnectProxy();
    open.push(lb, proxy);
    const proxyUrl = proxy.url.replace('http://', 'http://user:pa55word@');
    const client = createClient(config(lb.url, proxyUrl), clock);
    const r = await client.send(item, { scheduledMs: 0 });
    await client.close();
    expect(r.outcome).toBe('success');
    expect(r.connectMs).toBeGreaterThanOrEqual(0);
    expect(proxy.tunnels).toHaveLength(1);
    expect(proxy.tunnels[0]!.target).toBe(`127.0.0.1:${lb.port}`);
    expect(proxy.tunnels[0]!.auth).toBe(`Basic ${Buffer.from('user:pa55word').toString('base64')}`);
  });

  it('PROXY_FAILURE when the proxy refuses the tunnel or cannot be reached', async () => {
    const lb = await startLoopback((_q, res) => writeEvents(res, ['[DONE]']));
    const refusing = await startConnectProxy(407);
    open.push(lb, refusing);
    const client = createClient(config(lb.url, refusing.url), clock);
    const refused = await client.send(item, { scheduledMs: 0 });
    await client.close();
    expect(refused.error?.code).toBe('PROXY_FAILURE');
    expect(refused.error?.message).toContain('407');

    const port = await freePort();
    const secret = 'pr0xy-secret-pass';
    const dead = createClient(config(lb.url, `http://u:${secret}@127.0.0.1:${port}`), clock);
    const r = await dead.send(item, { scheduledMs: 0 });
    await dead.close();
    expect(r.error?.code).toBe('PROXY_FAILURE');
    expect(JSON.stringify(r)).not.toContain(secret);
  });

  it('listModels goes through the proxy too', async () => {
    const lb = await startLoopback((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":[{"id":"via-proxy"}]}');
    });
    const proxy = await startConnectProxy();
    open.push(lb, proxy);
    expect(await listModels(lb.url, undefined, { proxyUrl: proxy.url })).toEqual(['via-proxy']);
    expect(proxy.tunnels).toHaveLength(1);
  });
});
