import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import type { ApiKind, Sampling, WorkItem } from '../types.js';
import { imageHeader } from '../util/index.js';
import { syntheticImage } from '../workload/images.js';
import { createRng } from '../workload/rng.js';
import { requestBody, requestHeaders } from './request.js';

const item: WorkItem = {
  index: 0,
  id: 'r-000000',
  warmup: false,
  messages: [{ role: 'user', content: 'hi' }],
  promptTokens: 1,
  maxTokens: 0,
};
const sampling: Sampling = { temperature: 0.5, topP: 0.9, maxTokens: 16, seed: 7, ignoreEos: true };
const plain: Sampling = { temperature: 0, maxTokens: 16, ignoreEos: false };
const messages = [{ role: 'user', content: 'hi' }];
const full = { temperature: 0.5, top_p: 0.9, seed: 7, ignore_eos: true };

describe('requestBody', () => {
  it.each<[ApiKind, Sampling, Record<string, unknown>]>([
    [
      'chat',
      sampling,
      {
        model: 'm',
        messages,
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 16,
        max_completion_tokens: 16,
        ...full,
      },
    ],
    [
      'completions',
      plain,
      {
        model: 'm',
        prompt: 'hi',
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 16,
        max_completion_tokens: 16,
        temperature: 0,
      },
    ],
    ['responses', sampling, { model: 'm', input: messages, stream: true, max_output_tokens: 16, ...full }],
    [
      'responses',
      plain,
      { model: 'm', input: messages, stream: true, max_output_tokens: 16, temperature: 0 },
    ],
    ['embeddings', sampling, { model: 'm', input: 'hi', encoding_format: 'float' }],
  ])('%s: the fields in the order sent', (api, s, body) => {
    expect(requestBody(api, 'm', item, s)).toBe(JSON.stringify(body));
  });

  it.each<ApiKind>(['chat', 'completions', 'responses', 'embeddings'])(
    '%s: extraBody is merged last and wins',
    (api) => {
      const body = JSON.parse(requestBody(api, 'm', item, sampling, { temperature: 1, top_k: 5 }));
      expect(Object.keys(body).at(-1)).toBe('top_k');
      expect(body.temperature).toBe(1);
      expect(body.top_k).toBe(5);
    },
  );
});

describe('requestHeaders', () => {
  const base = { 'content-type': 'application/json', 'x-route': 'blue' };
  it("adds the item's session-affinity id under the session header, and nothing else", () => {
    const turn: WorkItem = { ...item, sessionId: 's-000001', turn: 2, affinityId: 'aff-1' };
    expect(requestHeaders(base, turn, 'X-Session-ID')).toEqual({ ...base, 'X-Session-ID': 'aff-1' });
    expect(base).toEqual({ 'content-type': 'application/json', 'x-route': 'blue' });
  });
  it('sends none without a session header or without an id (a single request)', () => {
    const turn: WorkItem = { ...item, affinityId: 'aff-1' };
    expect(requestHeaders(base, turn, undefined)).toEqual(base);
    expect(requestHeaders(base, item, 'X-Session-ID')).toEqual(base);
  });
});

describe('requestBody: tools and an agent conversation', () => {
  const agentItem: WorkItem = {
    ...item,
    agentRun: 'a-000001',
    tools: [{ name: 'search', description: 'web search', parameters: { type: 'object' } }],
    toolChoice: { name: 'search' },
    messages: [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'search', arguments: '{"q":"x"}' }] },
      { role: 'tool', content: 'result', toolCallId: 'c1' },
    ],
  };

  it('chat: nested function tools, a named tool_choice, assistant tool_calls and tool messages', () => {
    const body = JSON.parse(requestBody('chat', 'm', agentItem, plain));
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'search', description: 'web search', parameters: { type: 'object' } },
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'search' } });
    expect(body.messages).toEqual([
      { role: 'user', content: 'task' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'result' },
    ]);
  });

  it('Responses: flat function tools, function_call and function_call_output items', () => {
    const body = JSON.parse(requestBody('responses', 'm', { ...agentItem, toolChoice: 'required' }, plain));
    expect(body.tools).toEqual([
      { type: 'function', name: 'search', description: 'web search', parameters: { type: 'object' } },
    ]);
    expect(body.tool_choice).toBe('required');
    expect(body.input).toEqual([
      { role: 'user', content: 'task' },
      { type: 'function_call', call_id: 'c1', name: 'search', arguments: '{"q":"x"}' },
      { type: 'function_call_output', call_id: 'c1', output: 'result' },
    ]);
  });

  it('completions: no tools', () => {
    const body = JSON.parse(requestBody('completions', 'm', agentItem, plain));
    expect(body.tools).toBeUndefined();
  });
});

describe('requestBody: images', () => {
  const imageOf = (format: 'png' | 'jpeg', seed: number) =>
    syntheticImage({ count: 1, width: 96, height: 40, format }, createRng(seed));
  const withImages: WorkItem = {
    ...item,
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'what is in these?' },
    ],
    images: [imageOf('png', 1), imageOf('jpeg', 2)],
  };
  /** The image bytes of a data URL, checked to be base64 of the type it says. */
  const decoded = (url: string) => {
    const m = /^data:(image\/(?:png|jpeg));base64,([A-Za-z0-9+/=]+)$/.exec(url);
    expect(m).not.toBeNull();
    return { mime: m![1], bytes: Buffer.from(m![2]!, 'base64') };
  };

  it('chat: the last user message carries its text, then each image as an image_url part, valid and of the size asked', () => {
    const body = JSON.parse(requestBody('chat', 'm', withImages, plain));
    expect(body.messages[0]).toEqual({ role: 'system', content: 'be brief' });
    const parts = body.messages[1].content;
    expect(parts[0]).toEqual({ type: 'text', text: 'what is in these?' });
    expect(parts.slice(1).map((p: { type: string }) => p.type)).toEqual(['image_url', 'image_url']);
    const [png, jpg] = parts.slice(1).map((p: { image_url: { url: string } }) => decoded(p.image_url.url));
    expect(imageHeader(png.bytes)).toEqual({ mime: 'image/png', width: 96, height: 40 });
    expect(png.mime).toBe('image/png');
    expect(png.bytes.length).toBe(withImages.images![0]!.bytes);
    // The JPEG decodes whole, at the size asked.
    const pixels = jpeg.decode(jpg.bytes, { useTArray: true });
    expect([jpg.mime, pixels.width, pixels.height]).toEqual(['image/jpeg', 96, 40]);
  });

  it('Responses: input_text, then input_image parts holding the same URLs', () => {
    const body = JSON.parse(requestBody('responses', 'm', withImages, plain));
    const parts = body.input[1].content;
    expect(parts).toEqual([
      { type: 'input_text', text: 'what is in these?' },
      ...withImages.images!.map((im) => ({ type: 'input_image', image_url: im.url })),
    ]);
  });
});
