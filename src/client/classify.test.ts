import { describe, expect, it } from 'vitest';
import { freePort, json, loopbacksClosedAfterEach } from '../../test/helpers/loopback.js';
import { GoodputError } from '../errors.js';
import { makeRedactor } from '../util/index.js';
import {
  classifyNetworkError,
  endpointUrl,
  listModels,
  modelsUrl,
  parseRetryAfter,
  redirectMessage,
  serverErrorMessage,
} from './index.js';

const withCode = (code: string, message = `${code} happened`) => Object.assign(new Error(message), { code });

describe('endpointUrl / modelsUrl', () => {
  const cases: [string, 'chat' | 'completions', string][] = [
    ['http://h:8000', 'chat', 'http://h:8000/v1/chat/completions'],
    ['http://h:8000/', 'completions', 'http://h:8000/v1/completions'],
    ['http://h:8000/v1', 'chat', 'http://h:8000/v1/chat/completions'],
    ['http://h:8000/v1/', 'chat', 'http://h:8000/v1/chat/completions'],
    ['https://gw.example/api', 'chat', 'https://gw.example/api/v1/chat/completions'],
    ['https://gw.example/api/v1//', 'completions', 'https://gw.example/api/v1/completions'],
  ];
  for (const [base, api, want] of cases) {
    it(`${base} (${api}) → ${want}`, () => {
      expect(endpointUrl(base, api)).toBe(want);
      expect(modelsUrl(base)).toBe(want.replace(/\/v1\/.*$/, '/v1/models'));
    });
  }
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);
  const cases: [unknown, number | undefined][] = [
    ['2', 2000],
    [' 0.5 ', 500],
    ['0', 0],
    [['3', '9'], 3000],
    [new Date(now + 7000).toUTCString(), 7000],
    [new Date(now - 7000).toUTCString(), 0],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
    ['-1', undefined],
  ];
  for (const [value, want] of cases) {
    it(`${JSON.stringify(value)} → ${want}`, () => expect(parseRetryAfter(value, now)).toBe(want));
  }
});

describe('serverErrorMessage', () => {
  const cases: [string, string][] = [
    ['{"error":{"message":"Invalid key","type":"auth"}}', 'Invalid key'],
    ['{"object":"error","message":"model not found","code":404}', 'model not found'],
    ['{"detail":"Not Found"}', 'Not Found'],
    ['{"error":"rate limited"}', 'rate limited'],
    ['upstream connect error\n or disconnect', 'upstream connect error or disconnect'],
    ['', ''],
  ];
  for (const [body, want] of cases) {
    it(`${JSON.stringify(body)} → ${JSON.stringify(want)}`, () =>
      expect(serverErrorMessage(body)).toBe(want));
  }
  it('truncates a long body', () => {
    const got = serverErrorMessage('x'.repeat(5000));
    expect(got.length).toBeLessThanOrEqual(300);
    expect(got.endsWith('…')).toBe(true);
  });
});

describe('serverErrorMessage with a redactor', () => {
  const key = 'key-canary-0123456789abcdef';
  it('redacts before the 300-character cut, whatever the offset of the key', () => {
    for (let offset = 270; offset <= 300; offset++) {
      const body = JSON.stringify({ error: { message: `${'x'.repeat(offset)}${key} tail` } });
      const got = serverErrorMessage(body, makeRedactor([key]));
      expect(got.length).toBeLessThanOrEqual(300);
      for (let n = 6; n <= key.length; n++) {
        expect(got).not.toContain(key.slice(0, n));
        expect(got).not.toContain(key.slice(key.length - n));
      }
    }
  });
});

describe('redirectMessage', () => {
  const cases: Array<[string | undefined, string]> = [
    [
      'https://api.example/v1/chat/completions',
      'HTTP 301: redirected to https://api.example/v1/chat/completions; set --url to https://api.example',
    ],
    [
      '/gw/v1/chat/completions',
      'HTTP 301: redirected to http://h:8000/gw/v1/chat/completions; set --url to http://h:8000/gw',
    ],
    [
      'https://other.example/',
      'HTTP 301: redirected to https://other.example/; set --url to https://other.example/',
    ],
    [undefined, 'HTTP 301: a redirect without a Location header; check --url'],
  ];
  for (const [location, want] of cases) {
    it(`${location} → ${want}`, () =>
      expect(redirectMessage(301, location, 'http://h:8000/v1/chat/completions')).toBe(want));
  }
  it('redacts a key carried in the Location', () => {
    const key = 'key-canary-0123456789abcdef';
    const got = redirectMessage(
      302,
      `https://x.example/v1/chat/completions?k=${key}`,
      'http://h/',
      makeRedactor([key]),
    );
    expect(got).not.toContain(key.slice(0, 6));
    expect(got).toContain('set --url to https://x.example');
  });
});

describe('classifyNetworkError', () => {
  const cases: [string, unknown, string][] = [
    ['refused', withCode('ECONNREFUSED'), 'CONNECTION_REFUSED'],
    ['DNS', withCode('ENOTFOUND', 'getaddrinfo ENOTFOUND x.invalid'), 'DNS_FAILURE'],
    ['DNS temporary', withCode('EAI_AGAIN'), 'DNS_FAILURE'],
    [
      'undici connect timeout',
      withCode('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'),
      'CONNECT_TIMEOUT',
    ],
    ['unreachable host', withCode('EHOSTUNREACH'), 'CONNECT_TIMEOUT'],
    ['reset', withCode('ECONNRESET'), 'CONNECTION_RESET'],
    ['undici other side closed', withCode('UND_ERR_SOCKET', 'other side closed'), 'CONNECTION_RESET'],
    ['TLS wrong version', withCode('ERR_SSL_WRONG_VERSION_NUMBER'), 'TLS_FAILURE'],
    ['self-signed', withCode('DEPTH_ZERO_SELF_SIGNED_CERT'), 'TLS_FAILURE'],
    [
      'fetch-style wrapper',
      Object.assign(new TypeError('fetch failed'), { cause: withCode('ECONNREFUSED') }),
      'CONNECTION_REFUSED',
    ],
    [
      'happy eyeballs',
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]),
      'CONNECTION_REFUSED',
    ],
    [
      'socket error with a cause',
      Object.assign(withCode('UND_ERR_SOCKET'), { cause: withCode('ECONNRESET') }),
      'CONNECTION_RESET',
    ],
    [
      'proxy',
      withCode('UND_ERR_ABORTED', 'Proxy response (407) !== 200 when HTTP Tunneling'),
      'PROXY_FAILURE',
    ],
    [
      'timeout signal',
      new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      'TIMEOUT',
    ],
    ['something else', new Error('weird'), 'UNKNOWN'],
    ['not even an error', 'string thrown', 'UNKNOWN'],
  ];
  for (const [name, err, want] of cases) {
    it(`${name} → ${want}`, () => {
      const got = classifyNetworkError(err);
      expect(got.code).toBe(want);
      expect(got.message.length).toBeGreaterThan(0);
    });
  }
});

describe('listModels', () => {
  const serve = loopbacksClosedAfterEach();

  it('returns the ids, sending the key', async () => {
    const lb = await serve((_q, res) => json(res, 200, { object: 'list', data: [{ id: 'a' }, { id: 'b' }] }));
    expect(await listModels(`${lb.url}/v1`, 'sk-k')).toEqual(['a', 'b']);
    expect(lb.requests[0]!.url).toBe('/v1/models');
    expect(lb.requests[0]!.headers.authorization).toBe('Bearer sk-k');
  });

  it('throws E_KEY on 401, with the classified cause and without the key', async () => {
    const lb = await serve((req, res) =>
      json(res, 401, { error: { message: `bad key ${req.headers.authorization}` } }),
    );
    const err = await listModels(lb.url, 'sk-secret-key').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GoodputError);
    const g = err as GoodputError;
    expect(g.code).toBe('E_KEY');
    expect((g.cause as { code: string }).code).toBe('HTTP_UNAUTHORIZED');
    expect(g.message).toContain('bad key');
    expect(g.message).not.toContain('sk-secret-key');
    expect(g.hint.length).toBeGreaterThan(0);
  });

  it('throws E_NO_MODEL on 404 and on a body that is not a model list', async () => {
    const missing = await serve((_q, res) => json(res, 404, { detail: 'Not Found' }));
    await expect(listModels(missing.url)).rejects.toMatchObject({ code: 'E_NO_MODEL' });
    const odd = await serve((_q, res) => json(res, 200, { hello: 1 }));
    await expect(listModels(odd.url)).rejects.toMatchObject({ code: 'E_NO_MODEL' });
  });

  it('throws E_UNREACHABLE with CONNECTION_REFUSED as the cause', async () => {
    const port = await freePort();
    const err = (await listModels(`http://127.0.0.1:${port}`).catch((e: unknown) => e)) as GoodputError;
    expect(err.code).toBe('E_UNREACHABLE');
    expect((err.cause as { code: string }).code).toBe('CONNECTION_REFUSED');
    expect(err.hint).toMatch(/server is running/);
  });
});
