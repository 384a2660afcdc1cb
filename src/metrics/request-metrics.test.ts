import { describe, expect, test } from 'vitest';
import { seeded, streamed } from '../../test/fixtures/records.js';
import type { Slo } from '../types.js';
import { allocateChunkTokens, meetsSlo, requestMetrics } from './request-metrics.js';

describe('allocateChunkTokens', () => {
  test.each([
    { chars: [], tokens: 5, want: [] },
    { chars: [3, 4, 5], tokens: 3, want: [1, 1, 1] },
    { chars: [4, 36], tokens: 10, want: [1, 9] },
    { chars: [8, 8, 8, 8], tokens: 8, want: [2, 2, 2, 2] },
    { chars: [5, 5], tokens: 3, want: [2, 1] }, // tie on remainder: earlier chunk
    { chars: [1, 2, 7], tokens: 20, want: [2, 4, 14] },
    { chars: [100, 0, 0], tokens: 3, want: [1, 1, 1] }, // zero-char chunks still carry one
    { chars: [100, 1, 1], tokens: 10, want: [8, 1, 1] },
    { chars: [0, 0], tokens: 4, want: [2, 2] }, // no characters: even split
    { chars: [4, 4, 4], tokens: 2, want: [1, 1, 1] }, // fewer tokens than chunks
  ])('$chars over $tokens tokens → $want', ({ chars, tokens, want }) => {
    expect(allocateChunkTokens(chars, tokens)).toEqual(want);
  });

  test('sums to outputTokens and gives every chunk at least one, on random inputs', () => {
    const rnd = seeded(4);
    for (let trial = 0; trial < 500; trial++) {
      const n = 1 + Math.floor(rnd() * 20);
      const chars = Array.from({ length: n }, () => Math.floor(rnd() * 40));
      const tokens = n + Math.floor(rnd() * 100);
      const got = allocateChunkTokens(chars, tokens);
      expect(got.reduce((a, b) => a + b, 0)).toBe(tokens);
      expect(Math.min(...got)).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('requestMetrics', () => {
  test('TTFT, E2EL, TPOT and ITL from raw timestamps', () => {
    const r = streamed({ sentMs: 1000, scheduledMs: 990, ttft: 100, gap: 20, tokens: 5 });
    // chunks at 1100, 1120, 1140, 1160, 1180; end 1181
    const m = requestMetrics(r);
    expect(m.ttftMs).toBe(100);
    expect(m.e2elMs).toBe(181);
    expect(m.tpotMs).toBe((181 - 100) / 4);
    expect(m.itlMs).toEqual([20, 20, 20, 20]);
    expect(m.itlPerTokenMs).toEqual([20, 20, 20, 20]);
    expect(m.queueWaitMs).toBe(10);
    expect(m.ttftFromScheduledMs).toBe(110);
    expect(m.e2elFromScheduledMs).toBe(191);
  });

  test.each([
    { outputTokens: 0, first: undefined, want: undefined },
    { outputTokens: 1, first: 1050, want: undefined },
    { outputTokens: 2, first: 1050, want: 50 },
    { outputTokens: 11, first: 1050, want: 5 },
    { outputTokens: 11, first: undefined, want: undefined },
  ])(
    'TPOT with $outputTokens output tokens and first token $first → $want',
    ({ outputTokens, first, want }) => {
      const r = streamed({
        sentMs: 1000,
        tokens: 0,
        chunkMs: [],
        chunkChars: [],
        outputTokens,
        firstTokenMs: first,
      });
      r.endMs = 1100;
      expect(requestMetrics(r).tpotMs).toBe(want);
    },
  );

  test('ITL per token divides each gap by the tokens of the later chunk', () => {
    const r = streamed({
      sentMs: 0,
      chunkMs: [100, 130, 190, 200],
      chunkChars: [4, 12, 16, 4], // 1, 3, 4, 1 of 9 tokens
      outputTokens: 9,
      firstTokenMs: 100,
    });
    const m = requestMetrics(r);
    expect(m.chunkTokens).toEqual([1, 3, 4, 1]);
    expect(m.itlMs).toEqual([30, 60, 10]);
    expect(m.itlPerTokenMs).toEqual([10, 15, 10]);
  });

  test('queue wait runs to the first attempt; TTFT and E2EL from the final attempt', () => {
    const r = streamed({ scheduledMs: 500, firstSentMs: 520, sentMs: 900, attempts: 2, ttft: 50, tokens: 2 });
    const m = requestMetrics(r);
    expect(m.queueWaitMs).toBe(20);
    expect(m.ttftMs).toBe(50);
    expect(m.ttftFromScheduledMs).toBe(450);
  });
});

describe('meetsSlo', () => {
  const ok = streamed({ ttft: 100, gap: 20, tokens: 11 }); // tpot ≈ 20.1, e2el 301
  const cases: Array<{ name: string; slo: Slo; record?: Partial<typeof ok>; want: boolean }> = [
    { name: 'no SLO set', slo: {}, want: true },
    { name: 'all met', slo: { ttftMs: 100, tpotMs: 21, e2elMs: 301 }, want: true },
    { name: 'ttft missed', slo: { ttftMs: 99 }, want: false },
    { name: 'tpot missed', slo: { tpotMs: 20 }, want: false },
    { name: 'e2el missed', slo: { e2elMs: 300 }, want: false },
    { name: 'error', slo: {}, record: { outcome: 'error' }, want: false },
    { name: 'cancelled', slo: {}, record: { outcome: 'cancelled' }, want: false },
    {
      name: 'no first token vs a TTFT SLO',
      slo: { ttftMs: 1e9 },
      record: { firstTokenMs: undefined },
      want: false,
    },
    { name: 'one token cannot miss TPOT', slo: { tpotMs: 0 }, record: { outputTokens: 1 }, want: true },
  ];
  test.each(cases)('$name → $want', ({ slo, record, want }) => {
    const r = { ...ok, ...record };
    expect(meetsSlo(r, requestMetrics(r), slo)).toBe(want);
  });
});

describe('phaseMetrics (reasoning models)', () => {
  // chunks at 1100, 1120, 1140, 1160, 1180 (sent at 1000); chunkChars 4 each
  test.each([
    {
      name: 'no reasoning: every chunk is answer, first answer = TTFT',
      over: {},
      want: {
        ttfrtMs: undefined,
        ttfatMs: 100,
        reasoningItlMs: [],
        answerItlMs: [20, 20, 20, 20],
        reasoningTokens: 0,
        answerTokens: 5,
      },
    },
    {
      name: 'three reasoning chunks then two answer chunks, reasoning counted per chunk',
      over: { chunkReasoningChars: [4, 4, 4, 0, 0] },
      want: {
        ttfrtMs: 100,
        ttfatMs: 160,
        reasoningItlMs: [20, 20],
        answerItlMs: [20],
        reasoningTokens: 3,
        answerTokens: 2,
      },
    },
    {
      name: 'usage reasoning tokens win over the chunk count',
      over: { chunkReasoningChars: [4, 4, 4, 0, 0], reasoningTokens: 4, outputTokens: 9 },
      want: {
        ttfrtMs: 100,
        ttfatMs: 160,
        reasoningItlMs: [20, 20],
        answerItlMs: [20],
        reasoningTokens: 4,
        answerTokens: 5,
      },
    },
    {
      name: 'a chunk carrying both phases counts in each',
      over: { chunkReasoningChars: [4, 2, 0, 0, 0] },
      want: {
        ttfrtMs: 100,
        ttfatMs: 120,
        reasoningItlMs: [20],
        answerItlMs: [20, 20, 20],
        reasoningTokens: 2,
        answerTokens: 3,
      },
    },
    {
      name: 'all reasoning (cut by max_tokens): no answer',
      over: { chunkReasoningChars: [4, 4, 4, 4, 4] },
      want: {
        ttfrtMs: 100,
        ttfatMs: undefined,
        reasoningItlMs: [20, 20, 20, 20],
        answerItlMs: [],
        reasoningTokens: 5,
        answerTokens: 0,
      },
    },
    {
      name: 'reported reasoning above the output is capped at the output',
      over: { reasoningTokens: 50 },
      want: {
        ttfrtMs: undefined,
        ttfatMs: 100,
        reasoningItlMs: [],
        answerItlMs: [20, 20, 20, 20],
        reasoningTokens: 5,
        answerTokens: 0,
      },
    },
  ])('$name', ({ over, want }) => {
    const r = streamed({ sentMs: 1000, ttft: 100, gap: 20, tokens: 5, ...over });
    const m = requestMetrics(r);
    expect({
      ttfrtMs: m.ttfrtMs,
      ttfatMs: m.ttfatMs,
      reasoningItlMs: m.reasoningItlMs,
      answerItlMs: m.answerItlMs,
      reasoningTokens: m.reasoningTokens,
      answerTokens: m.answerTokens,
    }).toEqual(want);
  });
});
