// runs alone: times injected stalls
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamRequest } from '../../test/helpers/sim-sse-client.js';
import { FailureInjector } from './failures.js';
import { type SimServer, startSim } from './server.js';

const body = {
  messages: [{ role: 'user', content: ' tell me a story about the sea' }],
  max_tokens: 10,
  ignore_eos: true,
};

describe('failure injection over loopback', () => {
  let s: SimServer;
  beforeAll(async () => {
    s = await startSim({ seed: 3, slowdown: 0.2 });
  });
  afterAll(() => s.close());
  const url = () => `${s.url}/v1/chat/completions`;

  it('429 with Retry-After, 500, 503 with Retry-After, 404 in OpenAI error shape', async () => {
    const cases = [
      [{ rateLimit: 1, retryAfterS: 7 }, 429, '7'],
      [{ serverError: 1 }, 500, null],
      [{ unavailable: 1 }, 503, '1'],
      [{ notFound: 1 }, 404, null],
    ] as const;
    for (const [failures, status, retryAfter] of cases) {
      s.setFailures(failures);
      const res = await fetch(url(), { method: 'POST', body: JSON.stringify(body) });
      expect(res.status).toBe(status);
      expect(res.headers.get('retry-after')).toBe(retryAfter);
      const err = (await res.json()) as { error: { message: string; type: string } };
      expect(typeof err.error.message).toBe('string');
      expect(typeof err.error.type).toBe('string');
    }
  });

  it('stalls before the first token', async () => {
    s.setFailures({ stall: 1, stallMs: 400 });
    const r = await streamRequest(url(), body);
    expect(r.status).toBe(200);
    expect(r.firstTokenMs! - r.sentMs).toBeGreaterThan(390);
    expect(r.contentChunks).toBe(10);
  });

  it('disconnects mid-stream: no [DONE], about half the tokens', async () => {
    s.setFailures({ disconnect: 1 });
    const r = await streamRequest(url(), body);
    expect(r.done).toBe(false);
    expect(r.contentChunks).toBe(5);
    expect(r.finishReason).toBeUndefined();
    expect(r.error).toBeDefined();
  });

  it('sends a malformed SSE line mid-stream', async () => {
    s.setFailures({ malformed: 1 });
    const r = await streamRequest(url(), body);
    const bad = r.events.filter((e) => {
      if (e.data === '[DONE]') return false;
      try {
        JSON.parse(e.data);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad.length).toBe(1);
    expect(r.done).toBe(true);
  });

  it('sends an error object inside a 200 stream, then [DONE]', async () => {
    s.setFailures({ errorObject: 1 });
    const r = await streamRequest(url(), { ...body, stream_options: { include_usage: true } });
    expect(r.status).toBe(200);
    const errors = r.json.filter((j) => j.error);
    expect(errors).toHaveLength(1);
    expect(r.done).toBe(true);
    expect(r.finishReason).toBeUndefined();
    expect(r.usage).toBeUndefined();
  });

  it('interleaves empty-choices chunks without usage', async () => {
    s.setFailures({ emptyChoices: 1 });
    const r = await streamRequest(url(), body);
    const empty = r.json.filter((j) => Array.isArray(j.choices) && j.choices.length === 0 && !j.usage);
    expect(empty).toHaveLength(10);
    expect(r.contentChunks).toBe(10);
  });

  it('injects at about the configured rate', async () => {
    s.setFailures({ rateLimit: 0.3 });
    let limited = 0;
    for (let i = 0; i < 60; i++) {
      const res = await fetch(url(), {
        method: 'POST',
        body: JSON.stringify({ ...body, stream: false, max_tokens: 1 }),
      });
      await res.arrayBuffer();
      if (res.status === 429) limited++;
    }
    expect(limited).toBeGreaterThan(8);
    expect(limited).toBeLessThan(32);
    s.setFailures({});
  });

  it('rejects rates outside [0, 1]', () => {
    expect(() => s.setFailures({ serverError: 1.5 })).toThrow(/outside \[0, 1\]/);
  });
});

describe('failure injection is seeded', () => {
  it('gives the same plans for the same seed, different ones for another', () => {
    const cfg = { rateLimit: 0.2, disconnect: 0.2, stall: 0.3, emptyChoices: 0.3 };
    const draw = (seed: number) => {
      const f = new FailureInjector(cfg, seed);
      return Array.from({ length: 50 }, () => JSON.stringify(f.next()));
    };
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
  });
});
