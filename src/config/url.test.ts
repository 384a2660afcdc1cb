import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { normalizeBaseUrl, normalizeMetricsUrl } from './url.js';

describe('normalizeBaseUrl', () => {
  it.each([
    ['http://h:8000', 'http://h:8000', 0],
    ['http://h:8000/', 'http://h:8000', 0],
    ['  http://h:8000/v1/ ', 'http://h:8000/v1', 0],
    ['http://h:8000/v1/chat/completions', 'http://h:8000', 1],
    ['http://h:8000/v1/completions/', 'http://h:8000', 1],
    ['https://gw.example/openai/chat/completions', 'https://gw.example/openai', 1],
    ['https://gw.example/proxy/v1/CHAT/COMPLETIONS', 'https://gw.example/proxy', 1],
  ])('%s → %s (%i note)', (raw, base, notes) => {
    const n = normalizeBaseUrl(raw, '--url');
    expect(n.baseUrl).toBe(base);
    expect(n.notes).toHaveLength(notes);
    if (notes) expect(n.notes[0]).toContain(`using the base URL ${base}`);
  });

  it.each([
    ['http://h:8000/?utm_source=x', /query string \(\?utm_source=x\)/, 'use --url http://h:8000'],
    ['http://h:8000/v1/chat/completions?x=1', /query string/, 'use --url http://h:8000'],
    ['http://h:8000/v1#frag', /fragment \(#frag\)/, 'use --url http://h:8000/v1'],
    ['http://user:hunter22@h:8000', /credentials/, 'use --url http://h:8000 and pass the key'],
    ['ftp://h', /must be an http/, 'e.g. --url'],
    ['http://h:99999', /port 99999 is beyond 65535/, 'ports run from 1 to 65535'],
  ])('%s is refused with the fixed URL', (raw, message, hint) => {
    let err: unknown;
    try {
      normalizeBaseUrl(raw, '--url');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GoodputError);
    const g = err as GoodputError;
    expect(g.exitCode).toBe(2);
    expect(g.message).toMatch(message);
    expect(g.hint).toContain(hint);
    expect(`${g.message} ${g.hint}`).not.toContain('hunter22');
  });
});

describe('normalizeMetricsUrl', () => {
  const EXAMPLE = 'http://gpu-node:9400/metrics';
  it.each([
    ['http://gpu-node:9400/metrics', 'http://gpu-node:9400/metrics', 0],
    [' https://gw.example/dcgm/metrics ', 'https://gw.example/dcgm/metrics', 0],
    ['http://gpu-node:9400', 'http://gpu-node:9400/metrics', 1],
    ['http://gpu-node:9400/', 'http://gpu-node:9400/', 0],
    ['http://gpu-node:9400/metrics?job=dcgm', 'http://gpu-node:9400/metrics?job=dcgm', 0],
  ])('%s → %s (%i notes)', (raw, url, notes) => {
    const got = normalizeMetricsUrl(raw, '--gpu-metrics-url', EXAMPLE);
    expect(got.url).toBe(url);
    expect(got.notes).toHaveLength(notes);
  });

  it.each([
    ['gpu-node:9400/metrics', /must be an http/],
    ['ftp://gpu-node/metrics', /must be an http/],
    ['http://', /must be an http/],
    ['http://gpu-node:99999/metrics', /must be an http/],
    ['http://dcgm:hunter22@gpu-node:9400/metrics', /carries credentials/],
  ])('%s is refused (E_USAGE, an example in the hint, no password echoed)', (raw, message) => {
    let error: unknown;
    try {
      normalizeMetricsUrl(raw, '--gpu-metrics-url', EXAMPLE);
    } catch (e) {
      error = e;
    }
    const g = error as GoodputError;
    expect(g).toBeInstanceOf(GoodputError);
    expect(g.code).toBe('E_USAGE');
    expect(g.message).toMatch(message);
    expect(g.hint).toBe(`e.g. --gpu-metrics-url ${EXAMPLE}`);
    expect(`${g.message} ${g.hint}`).not.toContain('hunter22');
  });
});
