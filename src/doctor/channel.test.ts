import { describe, expect, it } from 'vitest';
import { analyzeBaseUrl, analyzeKey, foreignAuthMode, isLoopbackHost } from './channel.js';
import { closestIds } from './http.js';
import { looksBuffered, type StreamTrace } from './stream-trace.js';

describe('analyzeBaseUrl', () => {
  const cases: Array<{
    url: string;
    callUrl?: string;
    severity?: 'warn' | 'fail';
    cause?: RegExp;
    fix?: RegExp;
  }> = [
    { url: 'http://h:8000', callUrl: 'http://h:8000/v1/chat/completions' },
    { url: 'http://h:8000/', callUrl: 'http://h:8000/v1/chat/completions' },
    { url: 'https://gw.example/api', callUrl: 'https://gw.example/api/v1/chat/completions' },
    {
      url: 'http://h:8000/v1',
      callUrl: 'http://h:8000/v1/chat/completions',
      severity: 'warn',
      cause: /already ends with \/v1.*will call http:\/\/h:8000\/v1\/chat\/completions/,
    },
    { url: 'http://h:8000/v1/v1', severity: 'fail', cause: /\/v1 twice/, fix: /--url http:\/\/h:8000$/ },
    {
      url: 'http://h:8000/v1/chat/completions',
      callUrl: 'http://h:8000/v1/chat/completions',
      severity: 'fail',
      cause: /already ends with the endpoint path \/v1\/chat\/completions/,
      fix: /--url http:\/\/h:8000$/,
    },
    {
      url: 'http://h:8000/?utm_source=ads',
      severity: 'fail',
      cause: /query string \(\?utm_source=ads\)/,
      fix: /--url http:\/\/h:8000$/,
    },
    { url: 'http://h:8000/api#x', severity: 'fail', cause: /fragment/ },
    {
      url: 'http://h:8000//api',
      severity: 'fail',
      cause: /double slash/,
      fix: /--url http:\/\/h:8000\/api$/,
    },
    { url: 'ftp://h/x', severity: 'fail', cause: /only http and https/ },
    { url: 'not a url', severity: 'fail', cause: /not a valid URL/ },
    { url: 'http://user:pw@h:8000', severity: 'fail', cause: /credentials/ },
  ];
  for (const c of cases) {
    it(c.url, () => {
      const a = analyzeBaseUrl(c.url, 'chat');
      if (c.callUrl) expect(a.callUrl).toBe(c.callUrl);
      if (!c.severity) {
        expect(a.problems).toEqual([]);
        return;
      }
      const p = a.problems.find((x) => x.severity === c.severity);
      expect(p, JSON.stringify(a.problems)).toBeDefined();
      if (c.cause) expect(p!.cause).toMatch(c.cause);
      if (c.fix) expect(p!.fix).toMatch(c.fix);
    });
  }
  it('uses /v1/completions for the completions API', () => {
    expect(analyzeBaseUrl('http://h:1', 'completions').callUrl).toBe('http://h:1/v1/completions');
  });
});

describe('analyzeKey', () => {
  const key = 'key-abcdefghijklmnop1234';
  it('describes a key by length and last four only', () => {
    const a = analyzeKey(key, 'env GOODPUT_API_KEY', false);
    expect(a.description).toBe(`${key.length} characters, ending …1234`);
    expect(a.problems).toEqual([]);
  });
  it('warns about a trailing newline, naming the source and never the key', () => {
    const a = analyzeKey(`${key}\n`, 'env GOODPUT_API_KEY', false);
    expect(a.problems[0]!.cause).toMatch(/GOODPUT_API_KEY ends with a newline/);
    expect(a.problems[0]!.severity).toBe('warn');
    expect(JSON.stringify(a)).not.toContain('abcdefgh');
  });
  it('fails a Bearer prefix and inner whitespace', () => {
    expect(analyzeKey(`Bearer ${key}`, 'config file', false).problems[0]!.severity).toBe('fail');
    expect(analyzeKey('sk-abc def', 'config file', false).problems[0]!.cause).toMatch(
      /config file contains whitespace inside/,
    );
  });
  it('does not require a key on loopback, warns elsewhere', () => {
    expect(analyzeKey(undefined, 'nowhere', true).problems).toEqual([]);
    expect(analyzeKey(undefined, 'nowhere', false).problems[0]!.fix).toMatch(/GOODPUT_API_KEY/);
  });
});

describe('small helpers', () => {
  it('foreignAuthMode names OAuth-like modes but not bearer keys, and never the secret values', () => {
    expect(foreignAuthMode({ auth: { type: 'oauth2', client_secret: 'hush' } })).toBe('auth: oauth2');
    expect(foreignAuthMode({ authType: 'bearer' })).toBeUndefined();
    expect(foreignAuthMode({ base_url: 'x' })).toBeUndefined();
  });
  it('isLoopbackHost', () => {
    expect([
      isLoopbackHost('127.0.0.1'),
      isLoopbackHost('localhost'),
      isLoopbackHost('[::1]'),
      isLoopbackHost('10.0.0.1'),
    ]).toEqual([true, true, true, false]);
  });
  it('closestIds puts case differences first', () => {
    const ids = ['meta-llama/Llama-3.1-8B-Instruct', 'Qwen/Qwen2.5-7B-Instruct', 'other'];
    expect(closestIds('meta-llama/llama-3.1-8b-instruct', ids)[0]).toBe(ids[0]);
    expect(closestIds('Qwen/Qwen2.5-7B-Instruc', ids)[0]).toBe(ids[1]);
    expect(closestIds('zzzzzzzzzzzzzzzzzzzzzzzzzz', ids)).toEqual([]);
  });
  it('looksBuffered: all chunks in one read after a silence vs spread over reads', () => {
    const base: StreamTrace = {
      status: 200,
      headers: {},
      readMs: [300],
      events: 10,
      contentMs: [300, 300.1, 300.1, 300.2, 300.2],
      contentReads: [0, 0, 0, 0, 0],
      text: 'abcde',
      doneSeen: true,
      emptyChoicesChunks: 0,
      comments: 0,
      badJsonEvents: 0,
      totalMs: 301,
    };
    expect(looksBuffered(base)).toBe(true);
    const spread = {
      ...base,
      readMs: [10, 30, 50, 70, 90],
      contentMs: [10, 30, 50, 70, 90],
      contentReads: [0, 1, 2, 3, 4],
      totalMs: 95,
    };
    expect(looksBuffered(spread)).toBe(false);
  });
});
