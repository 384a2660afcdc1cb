/**
 * Speculative decoding on the live server (loopback, port 0): a step's accepted tokens arrive
 * in one SSE chunk, and vLLM's four spec_decode counters on /metrics agree with the streams and
 * read through goodput's normaliser unchanged.
 */

import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamRequest } from '../../test/helpers/sim-sse-client.js';
import { normalizeExposition, parsePrometheusText } from '../server-metrics/index.js';
import { type SimServer, startSim } from './server.js';

const K = 3;
const MAX_TOKENS = 40;

describe('sim server with --speculative-config', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({
      seed: 5,
      slowdown: 0.2,
      engine: {
        speculativeConfig: `{"method":"ngram","num_speculative_tokens":${K},"acceptance_probability":0.8}`,
      },
    });
  });
  afterAll(() => sim.close());

  it('streams several tokens per chunk; /metrics counts one draft per decode step, k tokens each', async () => {
    const streams = [];
    for (let i = 0; i < 4; i++) {
      const r = await streamRequest(`${sim.url}/v1/chat/completions`, {
        messages: [{ role: 'user', content: `request ${i}: tell me about speculative decoding` }],
        max_tokens: MAX_TOKENS,
        ignore_eos: true,
        stream_options: { include_usage: true },
      });
      expect(r.status).toBe(200);
      expect(r.usage?.completion_tokens).toBe(MAX_TOKENS);
      streams.push(r);
    }
    // Tokens per content chunk (the simulator's words are single o200k tokens).
    const perChunk = streams.flatMap((r) =>
      r.json
        .map((j) => (j.choices as { delta?: { content?: string } }[] | undefined)?.[0]?.delta?.content)
        .filter((c): c is string => typeof c === 'string' && c !== '')
        .map((c) => countTokens(c)),
    );
    expect(perChunk.reduce((s, n) => s + n, 0)).toBe(4 * MAX_TOKENS);
    expect(Math.max(...perChunk)).toBeGreaterThan(1);
    expect(Math.max(...perChunk)).toBeLessThanOrEqual(K + 1);

    const scrape = normalizeExposition(parsePrometheusText(await (await fetch(`${sim.url}/metrics`)).text()));
    expect(scrape.engine).toBe('goodput-sim');
    const v = scrape.values;
    // The first chunk of a request comes from its prefill; every later one from a decode step that drafted.
    const decodeSteps = streams.reduce((s, r) => s + r.contentChunks - 1, 0);
    expect(v.specDraftsTotal).toBe(decodeSteps);
    expect(v.specDraftTokensTotal).toBe(K * decodeSteps);
    expect(v.specAcceptedTokensTotal).toBeLessThanOrEqual(v.specDraftTokensTotal!);
    // Each decode step emitted its accepted tokens plus one (fewer only where max_tokens cut a chain).
    expect(v.specAcceptedTokensTotal).toBeGreaterThanOrEqual(
      4 * MAX_TOKENS - streams.reduce((s, r) => s + r.contentChunks, 0),
    );
    expect(scrape.specAcceptedByPosition).toHaveLength(K);
    expect(scrape.specAcceptedByPosition!.reduce((s, n) => s + n, 0)).toBe(v.specAcceptedTokensTotal);
    expect(v.generationTokensTotal).toBe(4 * MAX_TOKENS);
  });

  it('exposes no spec_decode series without speculative decoding, as vLLM', async () => {
    const plain = await startSim({ seed: 5 });
    try {
      const text = await (await fetch(`${plain.url}/metrics`)).text();
      expect(text).not.toContain('spec_decode');
    } finally {
      await plain.close();
    }
  });
});
