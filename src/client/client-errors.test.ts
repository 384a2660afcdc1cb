import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import {
  chatChunk,
  freePort,
  json,
  loopbacksClosedAfterEach,
  sleep,
  sseHead,
  writeEvents,
} from '../../test/helpers/loopback.js';
import type { Clock, RequestRecord, Sampling, WorkItem } from '../types.js';
import { type ClientConfig, createClient } from './index.js';

const clock: Clock = { now: () => performance.now() };
const sampling: Sampling = { temperature: 0, maxTokens: 16, ignoreEos: false };
const item = (over: Partial<WorkItem> = {}): WorkItem => ({
  index: 0,
  id: 'r-000000',
  warmup: false,
  messages: [{ role: 'user', content: 'hi' }],
  promptTokens: 1,
  maxTokens: 16,
  ...over,
});

const server = loopbacksClosedAfterEach();

async function send(
  url: string,
  over: Partial<ClientConfig> = {},
  work: WorkItem = item(),
  signal?: AbortSignal,
): Promise<RequestRecord> {
  const client = createClient(
    {
      baseUrl: url,
      api: 'chat',
      model: 'm',
      timeoutMs: 3000,
      maxRetries: 0,
      retryBaseMs: 20,
      sampling,
      ...over,
    },
    clock,
  );
  try {
    return await client.send(work, { scheduledMs: clock.now(), signal });
  } finally {
    await client.close();
  }
}

function expectError(r: RequestRecord, code: string): void {
  expect(r.error?.code, JSON.stringify(r.error)).toBe(code);
  expect(r.outcome).toBe(code === 'ABORTED' || code === 'INTERRUPTED' ? 'cancelled' : 'error');
}

describe('client: network failures are records with codes', () => {
  it('CONNECTION_REFUSED on a port where nothing listens', async () => {
    const port = await freePort();
    const r = await send(`http://127.0.0.1:${port}`);
    expectError(r, 'CONNECTION_REFUSED');
    expect(r.error!.message).toMatch(/ECONNREFUSED/);
  });

  it('DNS_FAILURE on a .invalid host', async () => {
    const r = await send('http://goodput-test.invalid:8000');
    expectError(r, 'DNS_FAILURE');
  });

  it('TLS_FAILURE when https is spoken to a plain http server', async () => {
    const lb = await server((_q, res) => json(res, 200, {}));
    const r = await send(`https://127.0.0.1:${lb.port}`);
    expectError(r, 'TLS_FAILURE');
    expect(r.error!.message).toMatch(/wrong version number/i);
    expect(r.error!.message).not.toMatch(/deps\/openssl/);
  });

  it('CONNECTION_RESET when the server drops the connection mid-request', async () => {
    const lb = await server((_q, _res, _b, socket) => {
      socket.destroy();
    });
    const r = await send(lb.url);
    expectError(r, 'CONNECTION_RESET');
  });

  it('CONNECTION_RESET when the connection breaks mid-stream, keeping what arrived', async () => {
    const lb = await server(async (_q, res, _b, socket) => {
      sseHead(res);
      res.write(`data: ${chatChunk({ content: 'part' })}\n\n`);
      await sleep(30);
      socket.destroy();
    });
    const r = await send(lb.url);
    expectError(r, 'CONNECTION_RESET');
    expect(r.chunkChars).toEqual([4]);
  });
});

describe('client: timeouts, cancels and stops', () => {
  it('TTFT_TIMEOUT when headers come but no token does', async () => {
    const lb = await server((_q, res) => {
      sseHead(res);
      res.write(': ping\n\n');
    });
    const t0 = clock.now();
    const r = await send(lb.url, { ttftTimeoutMs: 150 });
    expectError(r, 'TTFT_TIMEOUT');
    expect(r.headersMs).toBeDefined();
    expect(r.endMs - t0).toBeGreaterThanOrEqual(140);
    expect(r.endMs - t0).toBeLessThan(1500);
  });

  it('TIMEOUT when the stream stalls after the first token', async () => {
    const lb = await server((_q, res) => {
      sseHead(res);
      res.write(`data: ${chatChunk({ content: 'a' })}\n\n`);
    });
    const r = await send(lb.url, { timeoutMs: 250, ttftTimeoutMs: 100 });
    expectError(r, 'TIMEOUT');
    expect(r.chunkMs).toHaveLength(1);
    expect(r.endMs - r.sentMs).toBeGreaterThanOrEqual(200);
  });

  it('ABORTED after cancelAfterMs: cancelled, with the tokens received counted as wasted', async () => {
    const events = Array.from({ length: 100 }, () => chatChunk({ content: 'tok' }));
    const lb = await server((_q, res) => writeEvents(res, events, 20));
    // The user's clock starts when the request is handed to the client, before the connect
    // (which takes a while on a loaded machine), so the end is measured from there.
    const handedMs = clock.now();
    const r = await send(lb.url, {}, item({ cancelAfterMs: 150 }));
    expectError(r, 'ABORTED');
    expect(r.chunkMs.length).toBeGreaterThan(2);
    expect(r.chunkMs.length).toBeLessThan(20);
    expect(r.outputTokens).toBe(r.chunkMs.length);
    expect(r.outputTokensSource).toBe('counted');
    expect(r.endMs - handedMs).toBeGreaterThanOrEqual(149);
    expect(r.endMs - r.sentMs).toBeLessThan(1000);
  });

  it('INTERRUPTED when the run aborts the signal, and at once when it is already aborted', async () => {
    const events = Array.from({ length: 100 }, () => chatChunk({ content: 'tok' }));
    const lb = await server((_q, res) => writeEvents(res, events, 20));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const r = await send(lb.url, {}, item(), ac.signal);
    expectError(r, 'INTERRUPTED');
    expect(r.chunkMs.length).toBeGreaterThan(0);
    const already = await send(lb.url, {}, item(), ac.signal);
    expectError(already, 'INTERRUPTED');
    expect(already.chunkMs).toEqual([]);
  });
});

describe('client: bad responses are records with codes', () => {
  it('BAD_JSON on an event that is not JSON', async () => {
    const lb = await server((_q, res) =>
      writeEvents(res, [chatChunk({ content: 'a' }), '{not json', '[DONE]']),
    );
    expectError(await send(lb.url), 'BAD_JSON');
  });

  it('STREAM_ERROR_OBJECT on an error object inside a 200 stream, followed by [DONE]', async () => {
    const lb = await server((_q, res) =>
      writeEvents(res, [
        chatChunk({ content: 'a' }),
        JSON.stringify({ error: { message: 'context length exceeded', type: 'BadRequestError', code: 400 } }),
        '[DONE]',
      ]),
    );
    const r = await send(lb.url);
    expectError(r, 'STREAM_ERROR_OBJECT');
    expect(r.error!.message).toContain('context length exceeded');
    expect(r.httpStatus).toBe(200);
  });

  it('EMPTY_STREAM on a 200 with an empty body', async () => {
    const lb = await server((_q, res) => {
      sseHead(res);
      res.end();
    });
    expectError(await send(lb.url), 'EMPTY_STREAM');
  });

  it('EMPTY_STREAM when the stream finishes without any content', async () => {
    const lb = await server((_q, res) =>
      writeEvents(res, [chatChunk({ role: 'assistant' }, 'stop'), '[DONE]']),
    );
    expectError(await send(lb.url), 'EMPTY_STREAM');
  });

  it('EMPTY_CHOICES when every event has an empty choices list', async () => {
    const lb = await server((_q, res) => writeEvents(res, ['{"choices":[]}', '{"choices":[]}', '[DONE]']));
    expectError(await send(lb.url), 'EMPTY_CHOICES');
  });

  it('BAD_SSE on a body that is not server-sent events', async () => {
    const lb = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>login</body></html>\n');
    });
    expectError(await send(lb.url), 'BAD_SSE');
  });

  it('BAD_SSE on an oversize event', async () => {
    const lb = await server((_q, res) => writeEvents(res, [chatChunk({ content: 'x'.repeat(5000) })]));
    expectError(await send(lb.url, { maxEventBytes: 1024 }), 'BAD_SSE');
  });

  it('STREAM_TRUNCATED when the stream ends with neither [DONE] nor finish_reason', async () => {
    const lb = await server((_q, res) =>
      writeEvents(res, [chatChunk({ content: 'a' }), chatChunk({ content: 'b' })]),
    );
    const r = await send(lb.url);
    expectError(r, 'STREAM_TRUNCATED');
    expect(r.chunkMs).toHaveLength(2);
  });

  it('STREAM_TRUNCATED when the stream is cut inside an event', async () => {
    const lb = await server((_q, res) => {
      sseHead(res);
      res.end(`data: ${chatChunk({ content: 'a' })}\n\ndata: {"choices":[{"delta":{"con`);
    });
    expectError(await send(lb.url), 'STREAM_TRUNCATED');
  });

  it("HTTP statuses map to codes and carry the server's own message", async () => {
    const cases: [number, string, unknown][] = [
      [401, 'HTTP_UNAUTHORIZED', { error: { message: 'Invalid API key', type: 'invalid_request_error' } }],
      [404, 'HTTP_NOT_FOUND', { object: 'error', message: 'The model `m` does not exist.' }],
      [400, 'HTTP_CLIENT_ERROR', { detail: 'ignore_eos is not supported' }],
      [500, 'HTTP_SERVER_ERROR', { error: { message: 'CUDA out of memory' } }],
    ];
    for (const [status, code, body] of cases) {
      const lb = await server((_q, res) => json(res, status, body));
      const r = await send(lb.url);
      expectError(r, code);
      expect(r.httpStatus).toBe(status);
      expect(r.error!.httpStatus).toBe(status);
      const said = JSON.stringify(body).match(/"(?:message|detail)":"([^"]+)"/)![1]!;
      expect(r.error!.message).toContain(said);
    }
  });
});

describe('client: retries', () => {
  it('retries a 429 after the Retry-After seconds it was given', async () => {
    let calls = 0;
    const lb = await server((_q, res) => {
      calls++;
      if (calls === 1) return json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '1' });
      return writeEvents(res, [chatChunk({ content: 'ok' }, 'stop'), '[DONE]']);
    });
    const t0 = clock.now();
    const r = await send(lb.url, { maxRetries: 2 });
    const elapsed = clock.now() - t0;
    expect(r.outcome).toBe('success');
    expect(r.attempts).toBe(2);
    expect(r.failedAttempts).toHaveLength(1);
    expect(r.failedAttempts![0]!.error.code).toBe('HTTP_RATE_LIMITED');
    expect(r.failedAttempts![0]!.retryAfterMs).toBe(1000);
    expect(r.firstSentMs).toBeLessThan(r.sentMs);
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(3000);
  });

  it('honours a Retry-After HTTP date on 503', async () => {
    let calls = 0;
    const lb = await server((_q, res) => {
      calls++;
      // HTTP dates have whole seconds: two seconds ahead is at least one second of wait.
      const at = new Date(Date.now() + 2000).toUTCString();
      if (calls === 1) return json(res, 503, { error: { message: 'loading' } }, { 'retry-after': at });
      return writeEvents(res, [chatChunk({ content: 'ok' }, 'stop'), '[DONE]']);
    });
    const t0 = clock.now();
    const r = await send(lb.url, { maxRetries: 1 });
    expect(r.outcome).toBe('success');
    expect(r.failedAttempts![0]!.error.code).toBe('HTTP_UNAVAILABLE');
    expect(clock.now() - t0).toBeGreaterThanOrEqual(950);
  });

  it('retries 5xx with backoff up to maxRetries, recording every failed attempt', async () => {
    let calls = 0;
    const lb = await server((_q, res) => {
      calls++;
      json(res, 502, { error: { message: `bad gateway ${calls}` } });
    });
    const r = await send(lb.url, { maxRetries: 2, retryBaseMs: 40 });
    expectError(r, 'HTTP_SERVER_ERROR');
    expect(calls).toBe(3);
    expect(r.attempts).toBe(3);
    expect(r.failedAttempts!.map((f) => f.attempt)).toEqual([1, 2]);
    expect(r.error!.message).toContain('bad gateway 3');
    // Backoff: the second retry waits longer on average; both waited at least half the base.
    const gap1 = r.failedAttempts![1]!.sentMs - r.failedAttempts![0]!.endMs;
    expect(gap1).toBeGreaterThanOrEqual(19);
  });

  it('retries a refused connection, and does not retry a 401', async () => {
    const port = await freePort();
    const refused = await send(`http://127.0.0.1:${port}`, { maxRetries: 1 });
    expectError(refused, 'CONNECTION_REFUSED');
    expect(refused.attempts).toBe(2);
    let calls = 0;
    const lb = await server((_q, res) => {
      calls++;
      json(res, 401, { error: { message: 'no' } });
    });
    const r = await send(lb.url, { maxRetries: 3 });
    expectError(r, 'HTTP_UNAUTHORIZED');
    expect(calls).toBe(1);
  });

  it('gives up when Retry-After is longer than the longest wait allowed', async () => {
    const lb = await server((_q, res) =>
      json(res, 429, { error: { message: 'quota' } }, { 'retry-after': '120' }),
    );
    const t0 = clock.now();
    const r = await send(lb.url, { maxRetries: 1, maxRetryWaitMs: 5000 });
    expectError(r, 'HTTP_RATE_LIMITED');
    expect(r.attempts).toBe(1);
    expect(clock.now() - t0).toBeLessThan(1000);
  });

  it('a stop during the backoff ends the request as INTERRUPTED with its failed attempt kept', async () => {
    const lb = await server((_q, res) => json(res, 503, {}, { 'retry-after': '5' }));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 150);
    const t0 = clock.now();
    const r = await send(lb.url, { maxRetries: 1 }, item(), ac.signal);
    expectError(r, 'INTERRUPTED');
    expect(r.failedAttempts).toHaveLength(1);
    expect(clock.now() - t0).toBeLessThan(1500);
  });
});

describe('client: the API key never leaks', () => {
  it('redacts a key the server echoes, in every message of the record', async () => {
    const key = 'key-live-0123456789abcdef';
    let calls = 0;
    const lb = await server((req, res) => {
      calls++;
      const sent = String(req.headers.authorization ?? '');
      json(res, calls === 1 ? 500 : 401, { error: { message: `Incorrect API key provided: ${sent}` } });
    });
    const r = await send(lb.url, { apiKey: key, maxRetries: 1, retryBaseMs: 10 });
    expectError(r, 'HTTP_UNAUTHORIZED');
    expect(lb.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    const text = JSON.stringify(r);
    expect(text).not.toContain(key);
    expect(text).toContain('[REDACTED]');
    expect(r.failedAttempts).toHaveLength(1);
  });
});
