import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamRequest } from '../../test/helpers/sim-sse-client.js';
import { type SimServer, startSim } from './server.js';

const PROMPT = ' the quick brown fox jumps over the lazy dog'.repeat(20);

describe('sim server: OpenAI-compatible endpoints', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ seed: 7, slowdown: 0.2 });
  });
  afterAll(() => sim.close());

  it('serves /health, /v1/models and /metrics', async () => {
    expect((await fetch(`${sim.url}/health`)).status).toBe(200);
    const models = (await (await fetch(`${sim.url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual([sim.model]);
    const metrics = await (await fetch(`${sim.url}/metrics`)).text();
    expect(metrics).toContain('vllm:num_requests_running{model_name=');
    expect(metrics).toMatch(/vllm:cache_config_info\{block_size="16",num_gpu_blocks="\d+"/);
  });

  it('forgets its prefix cache on POST /reset_prefix_cache (as vLLM), and tells its version', async () => {
    const ask = () =>
      streamRequest(`${sim.url}/v1/chat/completions`, {
        model: sim.model,
        messages: [{ role: 'user', content: `${PROMPT} reset` }],
        max_tokens: 2,
        ignore_eos: true,
      });
    const hits = () => sim.engine.counters.prefixCacheHits;
    await ask();
    const before = hits();
    await ask();
    expect(hits()).toBeGreaterThan(before); // the second identical prompt hits the cache
    const reset = await fetch(`${sim.url}/reset_prefix_cache`, { method: 'POST' });
    expect(reset.status).toBe(200);
    expect(((await reset.json()) as { dropped_blocks: number }).dropped_blocks).toBeGreaterThan(0);
    const after = hits();
    await ask();
    expect(hits()).toBe(after); // nothing cached any more
    const version = (await (await fetch(`${sim.url}/version`)).json()) as { version: string };
    expect(version.version).toMatch(/^\d+\.\d+/);
  });

  it('streams chat with one token per chunk, usage on a final empty-choices chunk, and [DONE]', async () => {
    const r = await streamRequest(`${sim.url}/v1/chat/completions`, {
      model: sim.model,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: PROMPT },
      ],
      max_tokens: 24,
      ignore_eos: true,
      stream_options: { include_usage: true },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    expect(r.done).toBe(true);
    expect(r.contentChunks).toBe(24);
    expect(r.usage).toEqual({
      prompt_tokens: countTokens('You are terse.' + PROMPT),
      completion_tokens: 24,
      total_tokens: countTokens('You are terse.' + PROMPT) + 24,
    });
    expect(countTokens(r.text)).toBe(24);
    expect(r.finishReason).toBe('length');
    const last = r.json[r.json.length - 1]!;
    expect(last.choices).toEqual([]);
  });

  it('honours max_completion_tokens over max_tokens, and stops early without ignore_eos', async () => {
    const r = await streamRequest(`${sim.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: 50,
      max_completion_tokens: 5,
      ignore_eos: true,
    });
    expect(r.contentChunks).toBe(5);
    expect(r.usage).toBeUndefined();
    const lengths = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const s = await streamRequest(`${sim.url}/v1/completions`, {
        prompt: `${PROMPT} ${i}`,
        max_tokens: 150,
        stream_options: { include_usage: true },
      });
      expect(s.usage!.completion_tokens).toBe(s.contentChunks);
      expect(s.contentChunks).toBeLessThanOrEqual(150);
      expect(s.finishReason).toBe(s.contentChunks === 150 ? 'length' : 'stop');
      lengths.add(s.finishReason!);
    }
    expect(lengths.has('stop')).toBe(true);
  });

  it('answers stream: false with a complete body', async () => {
    const res = await fetch(`${sim.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: sim.model, prompt: PROMPT, max_tokens: 7, ignore_eos: true }),
    });
    const body = (await res.json()) as {
      choices: { text: string; finish_reason: string }[];
      usage: { completion_tokens: number; prompt_tokens: number };
    };
    expect(res.status).toBe(200);
    expect(body.usage.completion_tokens).toBe(7);
    expect(body.usage.prompt_tokens).toBe(countTokens(PROMPT));
    expect(countTokens(body.choices[0]!.text)).toBe(7);
    expect(body.choices[0]!.finish_reason).toBe('length');
  });

  it('is deterministic: same seed and prompt give the same text and length', async () => {
    const body = { prompt: PROMPT, max_tokens: 300 };
    const a = await streamRequest(`${sim.url}/v1/completions`, body);
    const b = await streamRequest(`${sim.url}/v1/completions`, body);
    const other = await startSim({ seed: 7, slowdown: 0.2 });
    const c = await streamRequest(`${other.url}/v1/completions`, body);
    await other.close();
    expect(b.text).toBe(a.text);
    expect(c.text).toBe(a.text);
  });

  it("answers 404 in vLLM's shape for an unknown model and 400 for a bad body", async () => {
    const res = await fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { message: string; type: string; code: number } };
    expect(body.error).toMatchObject({ type: 'NotFoundError', param: 'model', code: 404 });
    expect(body.error.message).toContain('nope');
    const bad = await fetch(`${sim.url}/v1/chat/completions`, { method: 'POST', body: '{not json' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: object }).error).toBeDefined();
  });
});

describe('sim server: API key', () => {
  it('answers 401 in OpenAI shape on a missing or wrong key, 200 with the right one', async () => {
    const sim = await startSim({ apiKey: 'sk-test-123', slowdown: 0.2 });
    try {
      const body = { messages: [{ role: 'user', content: 'hello there' }], max_tokens: 2 };
      for (const key of [undefined, 'sk-wrong']) {
        const r = await streamRequest(`${sim.url}/v1/chat/completions`, body, { key });
        expect(r.status).toBe(401);
      }
      const res = await fetch(`${sim.url}/v1/models`);
      expect(res.status).toBe(401);
      const err = (await res.json()) as { error: { type: string; code: string; message: string } };
      expect(err.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
      const ok = await streamRequest(`${sim.url}/v1/chat/completions`, body, { key: 'sk-test-123' });
      expect(ok.status).toBe(200);
      expect(ok.contentChunks).toBeGreaterThan(0);
      expect((await fetch(`${sim.url}/health`)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});

describe('sim server: a request body over the limit', () => {
  it('gets 413 with an OpenAI error, not a reset, whether the length is declared or streamed', async () => {
    const limit = 256 * 1024;
    const sim = await startSim({ slowdown: 0.2, maxBodyBytes: limit });
    try {
      const big = JSON.stringify({
        messages: [{ role: 'user', content: 'x'.repeat(limit * 4) }],
        max_tokens: 2,
      });
      // Declared: Content-Length over the limit.
      const declared = await fetch(`${sim.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: big,
      });
      expect(declared.status).toBe(413);
      const err = (await declared.json()) as { error: { code: string; message: string } };
      expect(err.error.code).toBe('request_too_large');
      expect(err.error.message).toMatch(/larger than 262144 bytes/);
      // Streamed: no length given, the limit is found while reading.
      const bytes = new TextEncoder().encode(big);
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (let at = 0; at < bytes.length; at += 64 * 1024) c.enqueue(bytes.slice(at, at + 64 * 1024));
          c.close();
        },
      });
      const streamed = await fetch(`${sim.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
      // A body within the limit is still served.
      const ok = await streamRequest(`${sim.url}/v1/chat/completions`, {
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 2,
      });
      expect(ok.status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});
