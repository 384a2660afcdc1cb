import { describe, expect, it } from 'vitest';
import { ChunkReader, scanChunk } from './chunk-scan.js';
import { readScannedChunk, readStreamEvent } from './stream-events.js';
import { StreamOutput } from './stream-output.js';

type Api = 'chat' | 'completions';

function snapshot(out: StreamOutput) {
  return {
    chunkMs: out.chunkMs,
    chunkChars: out.chunkChars,
    texts: out.texts,
    finishReason: out.finishReason,
    dataEvents: out.dataEvents,
    emptyChoiceEvents: out.emptyChoiceEvents,
    usage: out.usage,
    timings: out.timings,
    streamError: out.streamError,
  };
}

function fresh(): StreamOutput {
  const out = new StreamOutput(true, (t) => t);
  out.stampRead(12.3456789);
  return out;
}

/** The full path: JSON.parse, then readStreamEvent. */
function parsed(data: string, api: Api) {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    return 'not JSON';
  }
  if (event === null || typeof event !== 'object') return 'not an object';
  const out = fresh();
  const problem = readStreamEvent(out, event as Record<string, unknown>, 'message', api, data);
  return problem ? `problem ${problem.code}` : snapshot(out);
}

/** The scan (or a stream's reader), or 'declined'. */
function scanned(data: string, api: Api, reader?: ChunkReader) {
  const chunk = reader ? reader.read(data) : scanChunk(data, api);
  if (chunk === undefined) return 'declined';
  const out = fresh();
  readScannedChunk(out, chunk);
  return snapshot(out);
}

const chat = (choice: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'm',
    choices: [choice],
    ...extra,
  });

/** Events the scan must read itself (the common shapes), with the same result as the full path. */
const COMMON: Array<[Api, string]> = [
  ['chat', chat({ index: 0, delta: { content: ' tok' }, logprobs: null, finish_reason: null })],
  ['chat', chat({ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null })],
  ['chat', chat({ index: 0, delta: {}, finish_reason: 'stop' })],
  ['chat', chat({ delta: { content: 'a\n"b\u00e9\ud83d\ude00\\/\t\u0001' }, finish_reason: 'len\u00e9gth' })],
  ['chat', chat({ delta: { content: 'héllo 😀 — 中文' } })],
  ['chat', JSON.stringify({ choices: [{ delta: { content: 'pretty' } }] }, null, 2)],
  ['chat', ` \t${chat({ delta: { content: 'spaced' } })}\r\n `],
  ['chat', chat({ delta: { content: 'x' } }, { usage: null, error: null, timings: null })],
  ['chat', JSON.stringify({ id: 'x', choices: [], usage: null })],
  ['chat', JSON.stringify({ id: 'x' })],
  ['chat', JSON.stringify({ choices: { content: 'no' } })],
  [
    'chat',
    chat({
      delta: { content: 'x', extra: { content: 'no', deep: [[[{ content: 'no' }]]] } },
      logprobs: { content: [{ token: 'x', logprob: -0.25e-3, bytes: [120, 0], top_logprobs: [] }] },
      n: [true, false, null, -0, 1.5, 1e21, 'str'],
    }),
  ],
  ['chat', JSON.stringify({ choices: [{ delta: { content: 'first' } }, { delta: { content: 'second' } }] })],
  ['chat', chat({ delta: { content: null }, finish_reason: 'length' })],
  ['chat', chat({ delta: { content: 7 }, finish_reason: '' })],
  ['chat', chat({ delta: null })],
  ['chat', chat({ delta: 'text' })],
  ['chat', chat({ delta: false, text: 'ignored in chat' })],
  ['chat', '{"choices":[{"delta":{"content":"\\u0041\\u00e9\\uD83D\\uDE00"}}],"id":"\\u0063"}'],
  [
    'completions',
    JSON.stringify({ id: 'cmpl', choices: [{ index: 0, text: ' hi', logprobs: null, finish_reason: null }] }),
  ],
  [
    'completions',
    JSON.stringify({ choices: [{ text: '', finish_reason: 'stop', delta: { content: 'no' } }] }),
  ],
  ['completions', JSON.stringify({ choices: [{ text: 'm', message: { content: 'ignored' } }] })],
];

/** Events the full path must read (declined by the scan): it would read them differently, or fail. */
const FULL: Array<[Api, string]> = [
  ['chat', chat({ delta: { content: 'x' } }, { usage: { prompt_tokens: 1, completion_tokens: 1 } })],
  ['chat', chat({ delta: { content: 'x' } }, { error: { message: 'boom' } })],
  ['chat', chat({ delta: { content: 'x' } }, { timings: { prompt_n: 1, cache_n: 0 } })],
  ['chat', chat({ delta: { tool_calls: [{ function: { name: 'f', arguments: '{}' } }] } })],
  ['chat', chat({ delta: { reasoning_content: 'think', content: 'x' } })],
  ['chat', chat({ delta: { reasoning: 'think' } })],
  ['chat', chat({ message: { content: 'whole' } })],
  ['chat', chat(null)],
  ['chat', chat(3)],
  ['chat', chat([{ delta: { content: 'x' } }])],
  ['chat', chat({ delta: [] })],
  ['chat', '{"choices":[{"delta":{"content":"a"}}],"choices":[]}'],
  ['chat', '{"choices":[{"delta":{"content":"a","content":"bb"}}]}'],
  ['chat', '{"choices":[{"delta":{"conten\\u0074":"a"}}]}'],
  // An escaped key where keys matter could be one of interest: declined rather than decoded.
  ['chat', '{"\\u0069d":1,"choices":[{"delta":{"content":"x"}}]}'],
  ['chat', '[1,2]'],
  ['chat', '"text"'],
  ['chat', '{"choices":[{"delta":{"content":"a"}}]} trailing'],
  ['chat', '{"choices":[{"delta":{"content":"a"}}]'],
  ['chat', '{"a":01}'],
  ['chat', '{"a":1.}'],
  ['chat', '{"a":"\\x"}'],
  ['chat', '{"a":"\\u12"}'],
  ['chat', '\ufeff{"a":1}'],
];

/** Variants of an event: every cut, and each character deleted, doubled or replaced. */
function* variants(s: string): Generator<string> {
  const swaps = ['"', '\\', '}', ']', ',', ':', '0', '\u0001'];
  for (let i = 0; i < s.length; i++) {
    yield s.slice(0, i);
    yield s.slice(0, i) + s.slice(i + 1);
    yield s.slice(0, i) + s[i] + s.slice(i);
    for (const c of swaps) if (c !== s[i]) yield s.slice(0, i) + c + s.slice(i + 1);
  }
}

describe('scanChunk', () => {
  it('reads the common chunks itself, exactly as JSON.parse and the full path do', () => {
    for (const [api, data] of COMMON) {
      const full = parsed(data, api);
      expect(typeof full, data).toBe('object');
      expect(scanned(data, api), data).toEqual(full);
    }
  });

  it('leaves every other event to the full path', () => {
    for (const [api, data] of FULL) expect(scanned(data, api), data).toBe('declined');
  });

  it('never accepts what JSON.parse rejects, nor reads an event otherwise, over thousands of cuts and mutations', () => {
    let accepted = 0;
    let checked = 0;
    for (const [api, data] of [...COMMON, ...FULL]) {
      for (const v of variants(data)) {
        checked++;
        const fast = scanned(v, api);
        if (fast === 'declined') continue;
        accepted++;
        const full = parsed(v, api);
        if (typeof full !== 'object')
          throw new Error(`accepted ${JSON.stringify(v)}: the full path says ${full}`);
        expect(fast, v).toEqual(full);
      }
    }
    expect(checked).toBeGreaterThan(30_000);
    // Many variants are still valid JSON (a digit doubled, a space added): the scan reads those too.
    expect(accepted).toBeGreaterThan(1_000);
  });
});

describe('ChunkReader', () => {
  const around = (content: string) =>
    chat({ index: 0, delta: { content }, logprobs: null, finish_reason: null });
  const CONTENTS = [
    '',
    'x',
    ' tok',
    'a"b',
    'back\\slash\\',
    '\u0001\n\t',
    'é😀中',
    '\ud83d',
    '"}]}',
    '","x":"',
  ];

  it('reads the next chunks of a stream against the last one, as the full path does', () => {
    const reader = new ChunkReader('chat');
    for (const content of CONTENTS) {
      const data = around(content);
      expect(scanned(data, 'chat', reader), data).toEqual(parsed(data, 'chat'));
    }
    // Two chunks of another shape (llama.cpp: finish_reason first) and back.
    const other = (c: string) =>
      JSON.stringify({ choices: [{ finish_reason: 'stop', index: 0, delta: { content: c } }] });
    for (const data of [other('a'), other('bc'), around('d'), around('ef')])
      expect(scanned(data, 'chat', reader), data).toEqual(parsed(data, 'chat'));
  });

  it('leaves a stream whose chunks all differ beyond their content to JSON.parse after a few', () => {
    const reader = new ChunkReader('chat');
    const padded = (i: number) => chat({ delta: { content: 'x' } }, { obfuscation: 'p'.repeat(i) });
    const read = Array.from({ length: 20 }, (_, i) => reader.read(padded(i)) !== undefined);
    expect(read.slice(0, 4)).toEqual([true, true, true, true]);
    expect(read.slice(4).some(Boolean)).toBe(false);
  });

  it('never accepts a chunk that only looks like the last one: cuts and mutations of its content and around it', () => {
    let accepted = 0;
    for (const content of CONTENTS) {
      const template = around(content);
      const prefix = template.slice(0, template.indexOf('"content":"') + 11);
      const suffix = template.slice(template.lastIndexOf('"},"logprobs"'));
      const middles = [
        '"',
        '\\',
        '\\"',
        'a\\',
        '\\u12',
        '\\x',
        '\u0001',
        'a"b',
        'ok',
        '\\u0041',
        '"},"x":{"y":"',
      ];
      const primed = () => {
        const reader = new ChunkReader('chat');
        reader.read(template);
        return reader;
      };
      for (const middle of middles) {
        const data = prefix + middle + suffix;
        const fast = scanned(data, 'chat', primed());
        if (fast === 'declined') continue;
        accepted++;
        expect(fast, data).toEqual(parsed(data, 'chat'));
      }
      for (const v of variants(template)) {
        const fast = scanned(v, 'chat', primed());
        if (fast === 'declined') continue;
        accepted++;
        const full = parsed(v, 'chat');
        if (typeof full !== 'object')
          throw new Error(`accepted ${JSON.stringify(v)}: the full path says ${full}`);
        expect(fast, v).toEqual(full);
      }
    }
    expect(accepted).toBeGreaterThan(100);
  });
});
