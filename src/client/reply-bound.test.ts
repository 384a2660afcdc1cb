/**
 * A server that streams huge deltas with no usage: the client keeps at most MAX_KEPT_TEXT_CHARS
 * of their text to count (it kept all of it, and two such streams ran the heap out), and counts
 * the rest at the same tokens per character.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { chatChunk, loopbacksClosedAfterEach } from '../../test/helpers/loopback.js';
import type { Clock, Sampling } from '../types.js';
import { MAX_KEPT_TEXT_CHARS } from './attempt.js';
import { createClient } from './index.js';

const clock: Clock = { now: () => performance.now() };
const sampling: Sampling = { temperature: 0, maxTokens: 16, ignoreEos: true };
const server = loopbacksClosedAfterEach();

describe('a reply far longer than any max_tokens, without usage', () => {
  it('keeps a bounded part of its text and counts the whole at its rate', async () => {
    const delta = ' word'.repeat((64 * 1024) / 5); // 64 KiB of five-character words
    const deltas = 256; // 16 MiB in all
    const lb = await server(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < deltas; i++) {
        const ok = res.write(`data: ${chatChunk({ content: delta })}\n\n`);
        if (!ok) await new Promise((r) => res.once('drain', r));
      }
      res.end(`data: ${chatChunk({}, 'length')}\n\ndata: [DONE]\n\n`);
    });
    let longest = 0;
    const words = (text: string) => {
      longest = Math.max(longest, text.length);
      return text.split(' ').filter(Boolean).length;
    };
    const client = createClient(
      { baseUrl: lb.url, api: 'chat', model: 'm', timeoutMs: 20_000, sampling, countTokens: words },
      clock,
    );
    try {
      const r = await client.send(
        {
          index: 0,
          id: 'r-0',
          warmup: false,
          messages: [{ role: 'user', content: 'hi' }],
          prompt: 'hi',
          promptTokens: 1,
          maxTokens: 16,
        },
        { scheduledMs: clock.now() },
      );
      expect(r.outcome, r.error?.message).toBe('success');
      expect(r.outputTokensSource).toBe('counted');
      // The text handed to the count was bounded, not 16 MiB.
      expect(longest).toBeLessThanOrEqual(MAX_KEPT_TEXT_CHARS);
      expect(longest).toBeGreaterThan(MAX_KEPT_TEXT_CHARS - delta.length);
      // Every word counted, at the kept text's words per character.
      const exact = deltas * (delta.length / 5);
      expect(Math.abs((r.outputTokens ?? 0) - exact) / exact).toBeLessThan(0.001);
    } finally {
      await client.close();
    }
  });
});
