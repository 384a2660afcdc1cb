import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { chatChunk, loopbacksClosedAfterEach, sleep, writeEvents } from '../../test/helpers/loopback.js';
import type { Clock, Sampling, WorkItem } from '../types.js';
import { type ClientConfig, createClient } from './index.js';

const clock: Clock = { now: () => performance.now() };
const sampling: Sampling = { temperature: 0, maxTokens: 16, ignoreEos: true };

function item(over: Partial<WorkItem> = {}): WorkItem {
  return {
    index: 0,
    id: 'r-000000',
    warmup: false,
    messages: [{ role: 'user', content: 'hello' }],
    prompt: 'hello',
    promptTokens: 1,
    maxTokens: 16,
    ...over,
  };
}

const server = loopbacksClosedAfterEach();

async function sendOnce(url: string, over: Partial<ClientConfig> = {}, work: WorkItem = item()) {
  const client = createClient(
    { baseUrl: url, api: 'chat', model: 'm', timeoutMs: 5000, sampling, ...over },
    clock,
  );
  try {
    return await client.send(work, { scheduledMs: clock.now() });
  } finally {
    await client.close();
  }
}

const usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };

describe('client: streamed success', () => {
  it('stamps raw times in order and takes usage from the finish_reason chunk', async () => {
    const lb = await server((_req, res) =>
      writeEvents(
        res,
        [
          chatChunk({ role: 'assistant' }),
          chatChunk({ content: 'a' }),
          chatChunk({ content: 'bb' }),
          chatChunk({ content: 'ccc' }, 'length', usage),
          '[DONE]',
        ],
        15,
      ),
    );
    const before = clock.now();
    const r = await sendOnce(lb.url);
    const after = clock.now();
    expect(r.outcome).toBe('success');
    expect(r.error).toBeUndefined();
    expect(r.httpStatus).toBe(200);
    expect(r.outputTokens).toBe(3);
    expect(r.outputTokensSource).toBe('usage');
    expect(r.serverPromptTokens).toBe(7);
    expect(r.finishReason).toBe('length');
    expect(r.chunkChars).toEqual([1, 2, 3]);
    expect(r.chunkMs).toHaveLength(3);
    expect(r.firstTokenMs).toBe(r.chunkMs[0]);
    expect(before).toBeLessThanOrEqual(r.sentMs);
    expect(r.sentMs).toBeLessThanOrEqual(r.headersMs!);
    expect(r.headersMs!).toBeLessThanOrEqual(r.firstTokenMs!);
    expect(r.chunkMs[1]! - r.chunkMs[0]!).toBeGreaterThan(5);
    expect(r.chunkMs[2]!).toBeLessThanOrEqual(r.endMs);
    expect(r.endMs).toBeLessThanOrEqual(after);
    for (const t of [r.sentMs, r.endMs, ...r.chunkMs]) expect(Math.round(t * 1000) / 1000).toBe(t);
    expect(r.attempts).toBe(1);
  });

  it('takes usage from a final chunk with empty choices', async () => {
    const lb = await server((_req, res) =>
      writeEvents(res, [
        chatChunk({ content: 'x' }),
        chatChunk({ content: 'y' }, 'stop'),
        JSON.stringify({ choices: [], usage }),
        '[DONE]',
      ]),
    );
    const r = await sendOnce(lb.url);
    expect(r.outcome).toBe('success');
    expect(r.outputTokens).toBe(3);
    expect(r.outputTokensSource).toBe('usage');
    expect(r.finishReason).toBe('stop');
  });

  it('counts tokens when no usage comes: with the tokenizer given, else one per chunk', async () => {
    const lb = await server((_req, res) =>
      writeEvents(res, [
        chatChunk({ content: 'one two' }),
        chatChunk({ content: ' three' }, 'stop'),
        '[DONE]',
      ]),
    );
    const words = (text: string) => text.split(' ').filter(Boolean).length;
    const counted = await sendOnce(lb.url, { countTokens: words });
    expect(counted.outputTokens).toBe(3);
    expect(counted.outputTokensSource).toBe('counted');
    const perChunk = await sendOnce(lb.url);
    expect(perChunk.outputTokens).toBe(2);
    expect(perChunk.outputTokensSource).toBe('counted');
  });

  it('times the first token on reasoning_content or reasoning, and records reasoning tokens', async () => {
    const lb = await server((_req, res) =>
      writeEvents(
        res,
        [
          chatChunk({ role: 'assistant', content: '' }),
          chatChunk({ reasoning_content: 'think' }),
          chatChunk({ reasoning: 'more' }),
          chatChunk({ content: 'answer' }, 'stop'),
          JSON.stringify({
            choices: [],
            usage: {
              prompt_tokens: 2,
              completion_tokens: 9,
              completion_tokens_details: { reasoning_tokens: 6 },
            },
          }),
          '[DONE]',
        ],
        10,
      ),
    );
    const r = await sendOnce(lb.url);
    expect(r.outcome).toBe('success');
    expect(r.chunkChars).toEqual([5, 4, 6]);
    expect(r.firstTokenMs).toBe(r.chunkMs[0]);
    expect(r.reasoningTokens).toBe(6);
    expect(r.outputTokens).toBe(9);
  });

  it('sends the request OpenAI servers expect: both token limits, stream options, sampling, key', async () => {
    const lb = await server((_req, res) => writeEvents(res, [chatChunk({ content: 'k' }, 'stop'), '[DONE]']));
    const r = await sendOnce(lb.url, {
      apiKey: 'sk-test-secret',
      sampling: { temperature: 0.5, topP: 0.9, seed: 42, maxTokens: 99, ignoreEos: true },
      headers: { 'x-route': 'a' },
      extraBody: { user: 'bench' },
    });
    expect(r.outcome).toBe('success');
    const got = lb.requests[0]!;
    expect(got.url).toBe('/v1/chat/completions');
    expect(got.headers.authorization).toBe('Bearer sk-test-secret');
    expect(got.headers['x-route']).toBe('a');
    expect(got.body).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 16,
      max_completion_tokens: 16,
      temperature: 0.5,
      top_p: 0.9,
      seed: 42,
      ignore_eos: true,
      user: 'bench',
    });
  });

  it('speaks the completions API (prompt in, text out) under a base URL that ends in /v1', async () => {
    const lb = await server((_req, res) =>
      writeEvents(res, [
        JSON.stringify({ choices: [{ index: 0, text: 'he', finish_reason: null }] }),
        JSON.stringify({ choices: [{ index: 0, text: 'llo', finish_reason: 'stop' }], usage }),
        '[DONE]',
      ]),
    );
    const r = await sendOnce(`${lb.url}/v1/`, { api: 'completions' });
    expect(lb.requests[0]!.url).toBe('/v1/completions');
    expect((lb.requests[0]!.body as { prompt: string }).prompt).toBe('hello');
    expect(r.outcome).toBe('success');
    expect(r.chunkChars).toEqual([2, 3]);
  });

  it('accepts a server that ignores stream: true and answers one JSON document', async () => {
    const lb = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { content: 'whole' }, finish_reason: 'stop' }], usage }));
    });
    const r = await sendOnce(lb.url);
    expect(r.outcome).toBe('success');
    expect(r.chunkChars).toEqual([5]);
    expect(r.outputTokens).toBe(3);
  });
});

describe('client: reads split anywhere', () => {
  it('keeps a multi-byte character split across two reads, and a CR split from its LF', async () => {
    const text = 'héllo 世界 🎉';
    const event = Buffer.from(`data: ${chatChunk({ content: text }, 'stop')}\r\n\r\ndata: [DONE]\r\n\r\n`);
    const cutInChar = event.indexOf(Buffer.from('世')) + 1;
    const cutInCrlf = event.indexOf(13) + 1;
    const lb = await server(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const [from, to] of [
        [0, cutInChar],
        [cutInChar, cutInCrlf],
        [cutInCrlf, event.length],
      ]) {
        res.write(event.subarray(from, to));
        await sleep(15);
      }
      res.end();
    });
    const seen: string[] = [];
    const r = await sendOnce(lb.url, {
      countTokens: (t) => {
        seen.push(t);
        return 1;
      },
    });
    expect(r.outcome).toBe('success');
    expect(seen).toEqual([text]);
    expect(r.chunkChars).toEqual([text.length]);
  });
});

describe('client: under concurrency', () => {
  it('serves 40 concurrent streams over a pool of 10 connections, every record complete', async () => {
    const events = [
      ...Array.from({ length: 5 }, (_, i) => chatChunk({ content: `t${i}` })),
      chatChunk({}, 'stop'),
    ];
    const lb = await server((_req, res) => writeEvents(res, [...events, '[DONE]'], 2));
    const client = createClient(
      { baseUrl: lb.url, api: 'chat', model: 'm', timeoutMs: 5000, sampling, connections: 10 },
      clock,
    );
    await client.warmup(10);
    const records = await Promise.all(
      Array.from({ length: 40 }, (_, i) => client.send(item({ index: i, id: `r-${i}` }), { scheduledMs: 0 })),
    );
    await client.close();
    expect(records.map((r) => r.outcome)).toEqual(Array(40).fill('success'));
    expect(records.every((r) => r.chunkMs.length === 5 && r.connectMs === undefined)).toBe(true);
    expect(new Set(records.map((r) => r.id)).size).toBe(40);
  });

  it('close() ends in-flight requests as INTERRUPTED records', async () => {
    const lb = await server((_req, res) =>
      writeEvents(res, Array(100).fill(chatChunk({ content: 'x' })), 20),
    );
    const client = createClient(
      { baseUrl: lb.url, api: 'chat', model: 'm', timeoutMs: 5000, sampling },
      clock,
    );
    const pending = client.send(item(), { scheduledMs: 0 });
    await sleep(80);
    await client.close();
    const r = await pending;
    expect(r.outcome).toBe('cancelled');
    expect(r.error?.code).toBe('INTERRUPTED');
    const after = await client.send(item(), { scheduledMs: 0 });
    expect(after.error?.code).toBe('INTERRUPTED');
  });
});

describe('client: connections', () => {
  it('records connect time for a new connection and none after warmup opened it', async () => {
    const lb = await server((_req, res) => {
      if (_req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"data":[{"id":"m"}]}');
        return;
      }
      return writeEvents(res, [chatChunk({ content: 'k' }, 'stop'), '[DONE]']);
    });
    const cold = await sendOnce(lb.url);
    expect(cold.connectMs).toBeGreaterThanOrEqual(0);

    const client = createClient(
      { baseUrl: lb.url, api: 'chat', model: 'm', timeoutMs: 5000, sampling, connections: 3 },
      clock,
    );
    await client.warmup(3);
    const warm = await Promise.all([0, 1, 2].map((i) => client.send(item({ index: i }), { scheduledMs: 0 })));
    await client.close();
    for (const r of warm) {
      expect(r.outcome).toBe('success');
      expect(r.connectMs).toBeUndefined();
    }
    expect(lb.requests.filter((q) => q.method === 'GET')).toHaveLength(3);
  });

  it('resends once, transparently, when the server closed an idle keep-alive connection', async () => {
    const served = new WeakSet<object>();
    let dropped = 0;
    const lb = await server((_req, res, _body, socket) => {
      if (served.has(socket)) {
        // The "idle" connection was closed by the server as the request arrived: no byte back.
        dropped++;
        socket.destroy();
        return;
      }
      served.add(socket);
      return writeEvents(res, [chatChunk({ content: 'k' }, 'stop'), '[DONE]']);
    });
    const client = createClient(
      { baseUrl: lb.url, api: 'chat', model: 'm', timeoutMs: 5000, sampling, connections: 1, maxRetries: 0 },
      clock,
    );
    const first = await client.send(item(), { scheduledMs: 0 });
    await sleep(20);
    const second = await client.send(item({ index: 1 }), { scheduledMs: 0 });
    await client.close();
    expect(first.outcome).toBe('success');
    expect(dropped).toBe(1);
    expect(second.outcome).toBe('success');
    expect(second.attempts).toBe(1);
    expect(second.resends).toBe(1);
    expect(second.failedAttempts).toBeUndefined();
  });

  it('never resends once a byte of the response arrived, even on a reused connection', async () => {
    const served = new WeakSet<object>();
    const lb = await server(async (_req, res, _body, socket) => {
      if (!served.has(socket)) {
        served.add(socket);
        return writeEvents(res, [chatChunk({ content: 'k' }, 'stop'), '[DONE]']);
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${chatChunk({ content: 'partial' })}\n\n`);
      await sleep(20);
      socket.destroy();
    });
    const client = createClient(
      { baseUrl: lb.url, api: 'chat', model: 'm', timeoutMs: 5000, sampling, connections: 1, maxRetries: 2 },
      clock,
    );
    await client.send(item(), { scheduledMs: 0 });
    const r = await client.send(item({ index: 1 }), { scheduledMs: 0 });
    await client.close();
    expect(r.error?.code).toBe('CONNECTION_RESET');
    expect(r.resends).toBeUndefined();
    expect(r.attempts).toBe(1);
    expect(r.chunkChars).toEqual([7]);
    expect(lb.requests).toHaveLength(2);
  });

  it('a request cancelled while it waits for a pooled connection ends without reaching the server', async () => {
    const events = [...Array(20).fill(chatChunk({ content: 'x' })), '[DONE]'];
    const lb = await server((_req, res) => writeEvents(res, events, 20));
    const client = createClient(
      { baseUrl: lb.url, api: 'chat', model: 'm', timeoutMs: 5000, sampling, connections: 1 },
      clock,
    );
    const first = client.send(item(), { scheduledMs: 0 });
    const queued = await client.send(item({ index: 1, id: 'queued', cancelAfterMs: 50 }), { scheduledMs: 0 });
    expect(queued.outcome).toBe('cancelled');
    expect(queued.error?.code).toBe('ABORTED');
    expect(queued.chunkMs).toEqual([]);
    const firstRecord = await first;
    expect(firstRecord.error).toBeUndefined();
    expect(firstRecord.outcome).toBe('success');
    await client.close();
    expect(lb.requests).toHaveLength(1);
  });
});
