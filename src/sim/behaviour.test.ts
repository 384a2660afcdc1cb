import { afterEach, describe, expect, it } from 'vitest';
import { streamRequest } from '../../test/helpers/sim-sse-client.js';
import { type SimOptions, type SimServer, startSim } from './server.js';
import { OUTPUT_WORDS } from './text.js';

// Unique prompts of about n tokens (each word is one o200k token).
const words = (n: number, salt: number) =>
  Array.from({ length: n }, (_, i) => OUTPUT_WORDS[(i * 7 + salt * 13) % OUTPUT_WORDS.length]).join('') +
  ` ${salt}`;

let sims: SimServer[] = [];
async function sim(opts: SimOptions): Promise<SimServer> {
  const s = await startSim(opts);
  sims.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
});

const chat = (s: SimServer, prompt: string, extra: Record<string, unknown> = {}, o = {}) =>
  streamRequest(
    `${s.url}/v1/chat/completions`,
    { messages: [{ role: 'user', content: prompt }], max_tokens: 4, ignore_eos: true, ...extra },
    o,
  );
const ttft = (r: { firstTokenMs?: number; sentMs: number }) => r.firstTokenMs! - r.sentMs;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('sim over loopback: latency follows the engine', () => {
  it('TTFT grows with prompt length', async () => {
    const s = await sim({ profile: 'a100:llama-3.1-8b' });
    const short = await chat(s, words(50, 1));
    const long = await chat(s, words(6000, 2));
    // a100 prefill of 6000 tokens: ≈ 2·8e9·6000 / (312e12·0.6) ≈ 0.5 s
    expect(ttft(long)).toBeGreaterThan(ttft(short) + 200);
  });

  it('TTFT grows with queueing behind other prefills', async () => {
    const s = await sim({ engine: { maxNumBatchedTokens: 2048 }, slowdown: 0.5 });
    const alone = await chat(s, words(2000, 3));
    const crowd = await Promise.all(Array.from({ length: 12 }, (_, i) => chat(s, words(2000, 10 + i))));
    const last = Math.max(...crowd.map(ttft));
    expect(last).toBeGreaterThan(5 * ttft(alone));
  });

  it('decode time per token grows with batch size', async () => {
    const s = await sim({ slowdown: 0.4 });
    const itl = (r: { firstTokenMs?: number; endMs: number; contentChunks: number }) =>
      (r.endMs - r.firstTokenMs!) / (r.contentChunks - 1);
    const one = await chat(s, words(2000, 4), { max_tokens: 30 });
    const many = await Promise.all(
      Array.from({ length: 48 }, (_, i) => chat(s, words(2000, 100 + i), { max_tokens: 30 })),
    );
    expect(median(many.map(itl))).toBeGreaterThan(1.3 * itl(one));
  });

  it('prefix caching cuts TTFT for a shared system prompt', async () => {
    const system = words(4000, 5);
    const run = async (enablePrefixCaching: boolean) => {
      const s = await sim({ profile: 'a100:llama-3.1-8b', engine: { enablePrefixCaching } });
      const first = await streamRequest(`${s.url}/v1/chat/completions`, {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: words(20, 6) },
        ],
        max_tokens: 2,
      });
      const second = await streamRequest(`${s.url}/v1/chat/completions`, {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: words(20, 7) },
        ],
        max_tokens: 2,
      });
      return { first: ttft(first), second: ttft(second), hits: s.engine.counters.prefixCacheHits };
    };
    const cached = await run(true);
    const uncached = await run(false);
    expect(cached.hits).toBeGreaterThan(3900);
    expect(uncached.hits).toBe(0);
    expect(cached.second).toBeLessThan(cached.first / 3);
    expect(uncached.second).toBeGreaterThan(uncached.first / 2);
  });
});

describe('sim over loopback: client disconnect', () => {
  it('aborts on disconnect by default and frees its blocks', async () => {
    const s = await sim({ engine: { enablePrefixCaching: false }, slowdown: 2 });
    const r = await chat(s, words(500, 8), { max_tokens: 2000 }, { abortAfterTokens: 3 });
    expect(r.contentChunks).toBe(3);
    const deadline = performance.now() + 3000;
    while (s.engine.hasWork() && performance.now() < deadline) await new Promise((x) => setTimeout(x, 10));
    expect(s.engine.hasWork()).toBe(false);
    expect(s.engine.kv.allocatedBlocks()).toBe(0);
    expect(s.engine.counters.finished.abort).toBe(1);
    expect(s.engine.counters.abandonedTokens).toBe(0);
  });

  it('keeps generating with abortOnDisconnect false, and reports the wasted tokens', async () => {
    const s = await sim({ engine: { abortOnDisconnect: false }, slowdown: 0.1 });
    await chat(s, words(500, 9), { max_tokens: 300 }, { abortAfterTokens: 3 });
    const deadline = performance.now() + 5000;
    while (s.engine.hasWork() && performance.now() < deadline) await new Promise((x) => setTimeout(x, 10));
    expect(s.engine.counters.finished.length).toBe(1);
    expect(s.engine.counters.abandonedTokens).toBeGreaterThan(250);
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    const line = metrics
      .split('\n')
      .find((l) => l.startsWith('goodput_sim:abandoned_generation_tokens_total{'));
    expect(Number(line?.split(' ').pop())).toBe(s.engine.counters.abandonedTokens);
  });
});

describe('sim over loopback: /metrics', () => {
  it('exposes the engine counters and histograms under vLLM names', async () => {
    const s = await sim({ slowdown: 0.2 });
    await Promise.all([1, 2, 3].map((i) => chat(s, words(100, 20 + i), { max_tokens: 5 })));
    const text = await (await fetch(`${s.url}/metrics`)).text();
    const value = (name: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${name}{`))
          ?.split(' ')
          .pop(),
      );
    const c = s.engine.counters;
    expect(value('vllm:generation_tokens_total')).toBe(c.generationTokens);
    expect(c.generationTokens).toBe(15);
    expect(value('vllm:prompt_tokens_total')).toBe(c.promptTokens);
    expect(value('vllm:time_to_first_token_seconds_count')).toBe(3);
    expect(value('vllm:inter_token_latency_seconds_count')).toBe(12);
    expect(value('vllm:e2e_request_latency_seconds_count')).toBe(3);
    expect(value('vllm:request_queue_time_seconds_count')).toBe(3);
    for (const name of [
      'vllm:num_requests_running',
      'vllm:num_requests_waiting',
      'vllm:kv_cache_usage_perc',
      'vllm:num_preemptions_total',
      'vllm:prefix_cache_queries_total',
      'vllm:prefix_cache_hits_total',
      'goodput_sim:kv_fragmentation_perc',
    ])
      expect(Number.isFinite(value(name))).toBe(true);
    expect(text).toContain(`model_name="${s.model}"`);
  });
});
