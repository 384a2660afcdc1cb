import { describe, expect, test } from 'vitest';
import {
  chatParts,
  embeddingsProblem,
  responsesBodyParts,
  responsesStep,
  responsesUsage,
  serverTimings,
} from './events.js';

describe('chatParts', () => {
  test.each([
    { delta: { content: 'hi' }, answer: ['hi'], reasoning: [] },
    { delta: { reasoning_content: 'think', content: '' }, answer: [], reasoning: ['think'] },
    { delta: { reasoning: 'think' }, answer: [], reasoning: ['think'] },
    // a server sending both names: counted once (reasoning_content)
    { delta: { reasoning_content: 'a', reasoning: 'a' }, answer: [], reasoning: ['a'] },
    {
      delta: {
        tool_calls: [{ index: 0, function: { name: 'f', arguments: '{"a"' } }, null, { function: 3 }],
      },
      answer: ['f', '{"a"'],
      reasoning: [],
    },
    { delta: { role: 'assistant', content: null }, answer: [], reasoning: [] },
  ])('$delta', ({ delta, answer, reasoning }) => {
    expect(chatParts(delta as Record<string, unknown>)).toEqual({ answer, reasoning });
  });
});

describe('responsesStep', () => {
  test.each([
    [
      { type: 'response.output_text.delta', delta: 'x' },
      { kind: 'output', parts: { answer: ['x'], reasoning: [] } },
    ],
    [
      { type: 'response.refusal.delta', delta: 'no' },
      { kind: 'output', parts: { answer: ['no'], reasoning: [] } },
    ],
    [
      { type: 'response.function_call_arguments.delta', delta: '{' },
      { kind: 'output', parts: { answer: ['{'], reasoning: [] } },
    ],
    [
      { type: 'response.reasoning_text.delta', delta: 'r' },
      { kind: 'output', parts: { answer: [], reasoning: ['r'] } },
    ],
    [
      { type: 'response.reasoning_summary_text.delta', delta: 's' },
      { kind: 'output', parts: { answer: [], reasoning: ['s'] } },
    ],
    [
      { type: 'response.completed', response: { usage: { output_tokens: 2 } } },
      { kind: 'end', finishReason: 'stop', usage: { output_tokens: 2 } },
    ],
    [
      { type: 'response.incomplete', response: { incomplete_details: { reason: 'max_output_tokens' } } },
      { kind: 'end', finishReason: 'length' },
    ],
    [
      { type: 'response.incomplete', response: { incomplete_details: { reason: 'content_filter' } } },
      { kind: 'end', finishReason: 'content_filter' },
    ],
    [
      { type: 'response.failed', response: { error: { message: 'boom' } } },
      { kind: 'failed', message: 'boom' },
    ],
    [
      { type: 'error', message: 'bad' },
      { kind: 'failed', message: 'bad' },
    ],
    [{ type: 'response.created', response: {} }, { kind: 'other' }],
    [{ type: 'response.output_text.done', text: 'all' }, { kind: 'other' }],
  ])('%j', (event, want) => {
    expect(responsesStep(event as Record<string, unknown>, 'message')).toEqual(want);
  });

  test('falls back to the SSE event name when the data has no type', () => {
    expect(responsesStep({ delta: 'x' }, 'response.output_text.delta')).toEqual({
      kind: 'output',
      parts: { answer: ['x'], reasoning: [] },
    });
  });
});

describe('Responses usage, bodies and embeddings', () => {
  test('usage is renamed to the chat names', () => {
    expect(
      responsesUsage({
        input_tokens: 3,
        output_tokens: 9,
        output_tokens_details: { reasoning_tokens: 4 },
        total_tokens: 12,
      }),
    ).toEqual({
      prompt_tokens: 3,
      completion_tokens: 9,
      total_tokens: 12,
      completion_tokens_details: { reasoning_tokens: 4 },
    });
  });

  test('a non-streamed body: message text is answer, reasoning items reasoning, function calls answer and are counted', () => {
    expect(
      responsesBodyParts({
        output: [
          { type: 'reasoning', summary: [{ text: 'sum' }], content: [{ text: 'why' }] },
          { type: 'message', content: [{ type: 'output_text', text: 'hello' }] },
          { type: 'function_call', name: 'f', arguments: '{}' },
        ],
      }),
    ).toEqual({ answer: ['hello', 'f', '{}'], reasoning: ['why', 'sum'], toolCalls: 1 });
  });

  test.each([
    [{ data: [{ embedding: [0.1] }] }, undefined],
    [{ data: [{ embedding: 'AAAA' }] }, undefined],
    [{ data: [] }, 'the response carried no data'],
    [{}, 'the response carried no data'],
    [{ data: [{ embedding: [1] }, { index: 1 }] }, 'data[1] has no embedding'],
  ])('embeddings %j → %s', (doc, want) => {
    expect(embeddingsProblem(doc as Record<string, unknown>)).toBe(want);
  });
});

describe('serverTimings (llama.cpp)', () => {
  const full = {
    cache_n: 236,
    prompt_n: 1,
    prompt_ms: 30.958,
    prompt_per_token_ms: 30.958,
    prompt_per_second: 32.3,
    predicted_n: 35,
    predicted_ms: 661.064,
    predicted_per_token_ms: 18.88,
    predicted_per_second: 52.9,
  };
  test.each([
    [
      'every field',
      { timings: full },
      { promptTokens: 1, cachedTokens: 236, promptMs: 30.958, predictedTokens: 35, predictedMs: 661.064 },
    ],
    [
      'the two token counts alone',
      { timings: { cache_n: 0, prompt_n: 12 } },
      { promptTokens: 12, cachedTokens: 0 },
    ],
    ['no timings', { usage: { prompt_tokens: 3 } }, undefined],
    ['timings not an object', { timings: [1, 2] }, undefined],
    ['cache_n missing', { timings: { prompt_n: 12 } }, undefined],
    ['a count that is not a whole number', { timings: { cache_n: 1.5, prompt_n: 12 } }, undefined],
    ['a negative count', { timings: { cache_n: -1, prompt_n: 12 } }, undefined],
    ['an absurd count', { timings: { cache_n: 1e12, prompt_n: 12 } }, undefined],
    [
      'an insane time is left out',
      { timings: { cache_n: 1, prompt_n: 2, prompt_ms: 'x', predicted_ms: -3 } },
      { promptTokens: 2, cachedTokens: 1 },
    ],
  ])('%s', (_, event, expected) => {
    expect(serverTimings(event as Record<string, unknown>)).toEqual(expected);
  });
});

describe('tool calls counted', () => {
  test('a chat delta counts the calls it opens (those with an id), not their later fragments', () => {
    expect(
      chatParts({
        tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '' } }],
      }).toolCalls,
    ).toBe(1);
    expect(
      chatParts({ tool_calls: [{ index: 0, function: { arguments: '{"q"' } }] }).toolCalls,
    ).toBeUndefined();
    expect(
      chatParts({
        tool_calls: [
          { id: 'a', function: { name: 'f' } },
          { id: 'b', function: { name: 'g' } },
        ],
      }).toolCalls,
    ).toBe(2);
    expect(chatParts({ content: 'hi' }).toolCalls).toBeUndefined();
  });

  test('a Responses function_call item opens a call; a message item does not', () => {
    expect(
      responsesStep({ type: 'response.output_item.added', item: { type: 'function_call', name: 'f' } }, ''),
    ).toEqual({
      kind: 'output',
      parts: { answer: [], reasoning: [], toolCalls: 1 },
    });
    expect(responsesStep({ type: 'response.output_item.added', item: { type: 'message' } }, '')).toEqual({
      kind: 'other',
    });
  });
});
