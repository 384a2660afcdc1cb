import { describe, expect, it } from 'vitest';
import { phaseMetrics, requestMetrics } from '../metrics/request-metrics.js';
import type { WorkItem } from '../types.js';
import { type VirtualEnd, virtualRecord } from './virtual-record.js';

const item: WorkItem = { index: 3, id: 'r-3', warmup: false, promptTokens: 32, maxTokens: 8 };
const times = (tokens: number) => ({
  scheduledMs: 0,
  sentMs: 10,
  endMs: 100,
  tokenMs: Array.from({ length: tokens }, (_, i) => 20 + 10 * i),
});
const finished: VirtualEnd = { kind: 'finished', finishReason: 'length' };
const cancelled: VirtualEnd = { kind: 'cancelled', afterMs: 50 };

describe('virtualRecord in reasoning mode', () => {
  const cases: Array<{
    label: string;
    tokens: number;
    end: VirtualEnd;
    reasoning: number | undefined;
    phases: number[] | undefined;
    reasoningTokens: number | undefined;
    source: 'counted' | undefined;
    ttfatMs: number | undefined;
  }> = [
    {
      label: 'no reasoning mode: no phase fields (the record of an ordinary virtual run)',
      tokens: 4,
      end: finished,
      reasoning: undefined,
      phases: undefined,
      reasoningTokens: undefined,
      source: undefined,
      ttfatMs: 10,
    },
    {
      label: 'finished: the first tokens reason, the rest answer; usage gives the count',
      tokens: 5,
      end: finished,
      reasoning: 3,
      phases: [1, 1, 1, 0, 0],
      reasoningTokens: 3,
      source: undefined,
      ttfatMs: 40,
    },
    {
      label: 'reasoning reached max_tokens: no answer',
      tokens: 8,
      end: finished,
      reasoning: 8,
      phases: [1, 1, 1, 1, 1, 1, 1, 1],
      reasoningTokens: 8,
      source: undefined,
      ttfatMs: undefined,
    },
    {
      label: 'reasoning mode, zero reasoning tokens: usage says 0, every chunk answers',
      tokens: 3,
      end: finished,
      reasoning: 0,
      phases: undefined,
      reasoningTokens: 0,
      source: undefined,
      ttfatMs: 10,
    },
    {
      label: 'cancelled while reasoning: the reasoning received, counted',
      tokens: 2,
      end: cancelled,
      reasoning: 6,
      phases: [1, 1],
      reasoningTokens: 2,
      source: 'counted',
      ttfatMs: undefined,
    },
    {
      label: 'cancelled before the first token: nothing reasoned',
      tokens: 0,
      end: cancelled,
      reasoning: 6,
      phases: undefined,
      reasoningTokens: undefined,
      source: undefined,
      ttfatMs: undefined,
    },
    {
      label: 'rejected: no output at all',
      tokens: 0,
      end: { kind: 'rejected', message: 'too long' },
      reasoning: 6,
      phases: undefined,
      reasoningTokens: undefined,
      source: undefined,
      ttfatMs: undefined,
    },
  ];
  for (const c of cases) {
    it(c.label, () => {
      const r = virtualRecord(item, times(c.tokens), c.end, c.reasoning);
      expect(r.chunkReasoningChars).toEqual(c.phases);
      expect(r.reasoningTokens).toBe(c.reasoningTokens);
      expect(r.reasoningTokensSource).toBe(c.source);
      // The figures read from the record: the first answer token after every reasoning token.
      expect(phaseMetrics(r, r.outputTokens).ttfatMs).toBe(c.ttfatMs);
    });
  }
});

describe('virtualRecord with speculative decoding (several tokens per step)', () => {
  const spec = {
    scheduledMs: 0,
    sentMs: 10,
    endMs: 40,
    tokenMs: [20, 25, 25, 25, 30, 30],
    stepTokens: [1, 3, 2],
  };

  it('one chunk per step carrying its tokens; usage counts them all', () => {
    const r = virtualRecord(item, spec, finished);
    expect(r.chunkMs).toEqual([20, 25, 30]);
    expect(r.chunkChars).toEqual([1, 3, 2]);
    expect(r.outputTokens).toBe(6);
    expect(r.chunkReasoningChars).toBeUndefined();
    expect(requestMetrics(r).chunkTokens).toEqual([1, 3, 2]);
    expect(requestMetrics(r).itlPerTokenMs).toEqual([5 / 3, 5 / 2]);
  });

  it('a step that ends the reasoning is two chunks at the same time, as the live engine streams it', () => {
    const r = virtualRecord(item, spec, finished, 2);
    expect(r.chunkMs).toEqual([20, 25, 25, 30]);
    expect(r.chunkChars).toEqual([1, 1, 2, 2]);
    expect(r.chunkReasoningChars).toEqual([1, 1, 0, 0]);
    expect(phaseMetrics(r, r.outputTokens)).toMatchObject({
      reasoningTokens: 2,
      answerTokens: 4,
      ttfatMs: 15,
    });
  });
});
