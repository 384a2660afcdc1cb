/**
 * Deterministic request records and run metadata for the report's tests: a closed-loop run
 * whose latencies follow plain formulas, so that tests can compute expectations by hand.
 *
 * @module
 */

import type { RequestRecord, RunMeta } from '../../src/types.js';

/** Run metadata for a synthetic run (closed loop, concurrency 4, SLO on TTFT). */
export function syntheticMeta(overrides: Partial<RunMeta> = {}): RunMeta {
  return {
    tool: { name: 'goodput', version: '0.0.0-test' },
    runId: 'test-run',
    startedAt: '2026-01-01T00:00:00.000Z',
    target: { baseUrl: 'http://127.0.0.1:1', api: 'chat', embedded: true, simProfile: 'h100:llama-3.1-8b' },
    model: 'test-model',
    sampling: { temperature: 0, maxTokens: 16, ignoreEos: true },
    workload: { kind: 'synthetic', api: 'chat', promptTokens: 100, maxTokens: 16, tokenizer: 'o200k_base' },
    load: { mode: 'closed', concurrency: 4, requests: 40, warmup: 0, timeoutMs: 10_000, maxRetries: 0 },
    slo: { ttftMs: 50 },
    seed: 1,
    ...overrides,
  };
}

/**
 * Record i: sent at 100·i ms, prompt 100 + 10·i tokens, TTFT 20 + i ms, then `tokens` chunks
 * of one token 5 ms apart. Every `failEvery`-th record fails (HTTP 500) 30 ms after sending.
 */
export function syntheticRecord(
  i: number,
  opts: { tokens?: number; failEvery?: number; warmup?: boolean } = {},
): RequestRecord {
  const tokens = opts.tokens ?? 8;
  const sentMs = 100 * i;
  const base = {
    id: `r-${i}`,
    index: i,
    warmup: opts.warmup ?? false,
    attempts: 1,
    scheduledMs: sentMs,
    sentMs,
    firstSentMs: sentMs,
    promptTokens: 100 + 10 * i,
    maxTokens: 16,
    outputTokensSource: 'usage' as const,
  };
  if (opts.failEvery && i % opts.failEvery === opts.failEvery - 1) {
    return {
      ...base,
      outcome: 'error',
      error: { code: 'HTTP_SERVER_ERROR', message: 'boom', httpStatus: 500 },
      httpStatus: 500,
      endMs: sentMs + 30,
      chunkMs: [],
      chunkChars: [],
      outputTokens: 0,
    };
  }
  const first = sentMs + 20 + i;
  const chunkMs = Array.from({ length: tokens }, (_, k) => first + 5 * k);
  return {
    ...base,
    outcome: 'success',
    httpStatus: 200,
    firstTokenMs: first,
    endMs: chunkMs[chunkMs.length - 1]! + 1,
    chunkMs,
    chunkChars: chunkMs.map(() => 4),
    outputTokens: tokens,
  };
}
