import { describe, expect, it } from 'vitest';
import { SseParser } from './sse.js';

interface Parsed {
  events: [string, string][];
  error: string | undefined;
}

function parseParts(parts: Buffer[], maxEventBytes?: number): Parsed {
  const events: [string, string][] = [];
  const parser = new SseParser((data, type) => events.push([data, type]), { maxEventBytes });
  for (const p of parts) parser.push(p);
  parser.end();
  return { events, error: parser.error };
}

const usageChunk = '{"id":"c","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}';
const unicode = '{"choices":[{"delta":{"content":"héllo 世界 🎉 ñ"}}]}';

/** Each fixture: the raw stream and the events an SSE reader must see (data, type). */
const FIXTURES: {
  name: string;
  raw: string;
  events: [string, string][];
  maxEventBytes?: number;
  error?: boolean;
}[] = [
  {
    name: 'LF line ends, several events and [DONE]',
    raw: 'data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\n',
    events: [
      ['{"a":1}', 'message'],
      ['{"a":2}', 'message'],
      ['[DONE]', 'message'],
    ],
  },
  {
    name: 'CRLF line ends',
    raw: 'data: {"a":1}\r\n\r\ndata: {"a":2}\r\n\r\ndata: [DONE]\r\n\r\n',
    events: [
      ['{"a":1}', 'message'],
      ['{"a":2}', 'message'],
      ['[DONE]', 'message'],
    ],
  },
  {
    name: 'CR line ends',
    raw: 'data: one\r\rdata: two\r\r',
    events: [
      ['one', 'message'],
      ['two', 'message'],
    ],
  },
  {
    name: 'mixed line ends',
    raw: 'data: a\r\n\ndata: b\n\r\ndata: c\r\r\n',
    events: [
      ['a', 'message'],
      ['b', 'message'],
      ['c', 'message'],
    ],
  },
  {
    name: 'comments and keep-alive pings',
    raw: ': ping\n\ndata: x\n: inside an event\n\n:\n\n',
    events: [['x', 'message']],
  },
  {
    name: 'multi-line data, with and without the space, and an empty data line',
    raw: 'data: a\ndata:b\ndata:\ndata:  c\n\n',
    events: [['a\nb\n\n c', 'message']],
  },
  {
    name: 'event type, id and retry fields',
    raw: 'event: error\nid: 7\nretry: 100\ndata: {"error":{"message":"boom"}}\n\ndata: next\n\n',
    events: [
      ['{"error":{"message":"boom"}}', 'error'],
      ['next', 'message'],
    ],
  },
  {
    name: 'a field name without a colon',
    raw: 'data\n\ndata: z\n\n',
    events: [
      ['', 'message'],
      ['z', 'message'],
    ],
  },
  {
    name: 'empty-choices usage chunk then [DONE]',
    raw: `data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: ${usageChunk}\n\ndata: [DONE]\n\n`,
    events: [
      ['{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}', 'message'],
      [usageChunk, 'message'],
      ['[DONE]', 'message'],
    ],
  },
  {
    name: 'multi-byte UTF-8 characters',
    raw: `data: ${unicode}\r\n\r\n`,
    events: [[unicode, 'message']],
  },
  {
    name: 'a byte-order mark before the first line',
    raw: '\uFEFFdata: bom\n\n',
    events: [['bom', 'message']],
  },
  {
    name: 'lines that are not SSE fields are ignored',
    raw: '<html>\n\ndata: ok\n\n',
    events: [['ok', 'message']],
  },
  {
    name: 'truncated stream: the cut last line is still delivered at end (the consumer decides)',
    raw: 'data: {"a":1}\n\ndata: {"a"',
    events: [
      ['{"a":1}', 'message'],
      ['{"a"', 'message'],
    ],
  },
  {
    name: 'data without the closing blank line is delivered at end',
    raw: 'data: [DONE]\n',
    events: [['[DONE]', 'message']],
  },
  {
    name: 'oversize event: earlier events kept, then an error',
    raw: `data: small\n\ndata: ${'x'.repeat(100)}\n\ndata: after\n\n`,
    maxEventBytes: 64,
    events: [['small', 'message']],
    error: true,
  },
  {
    name: 'oversize event spread over many lines',
    raw: `data: small\n\n${'data: 0123456789\n'.repeat(10)}\n`,
    maxEventBytes: 64,
    events: [['small', 'message']],
    error: true,
  },
];

describe('SseParser', () => {
  for (const f of FIXTURES) {
    const bytes = Buffer.from(f.raw, 'utf8');
    const check = (got: Parsed, how: string) => {
      expect(got.events, how).toEqual(f.events);
      expect(got.error !== undefined, how).toBe(f.error === true);
    };

    it(`${f.name}: in one read`, () => {
      check(parseParts([bytes], f.maxEventBytes), 'whole');
    });

    it(`${f.name}: split in two at every byte`, () => {
      for (let i = 0; i <= bytes.length; i++) {
        check(parseParts([bytes.subarray(0, i), bytes.subarray(i)], f.maxEventBytes), `split at ${i}`);
      }
    });

    it(`${f.name}: split in three at every pair of bytes`, () => {
      // Long fixtures: every first cut, a stride of second cuts (keeps the file fast).
      const stride = bytes.length > 120 ? 5 : 1;
      for (let i = 1; i < bytes.length; i++) {
        for (let j = i + 1; j < bytes.length; j += stride) {
          const parts = [bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)];
          check(parseParts(parts, f.maxEventBytes), `split at ${i},${j}`);
        }
      }
    });

    it(`${f.name}: one byte per read`, () => {
      const parts = [...bytes].map((b) => Buffer.from([b]));
      check(parseParts(parts, f.maxEventBytes), 'bytewise');
    });
  }

  it('accepts a plain Uint8Array and copies a kept partial line (the caller may reuse its buffer)', () => {
    const events: string[] = [];
    const parser = new SseParser((d) => events.push(d));
    const reused = new Uint8Array(Buffer.from('data: ab'));
    parser.push(reused);
    reused.fill(0x7a);
    parser.push(new Uint8Array(Buffer.from('c\n\n')));
    expect(events).toEqual(['abc']);
  });

  it('ignores input after stop()', () => {
    const events: string[] = [];
    const parser = new SseParser((d) => {
      events.push(d);
      parser.stop();
    });
    parser.push(Buffer.from('data: 1\n\ndata: 2\n\n'));
    parser.end();
    expect(events).toEqual(['1']);
  });

  it('bounds a line that never ends', () => {
    const parser = new SseParser(() => undefined, { maxEventBytes: 1000 });
    for (let i = 0; i < 20 && parser.error === undefined; i++) parser.push(Buffer.alloc(100, 0x61));
    expect(parser.error).toMatch(/exceeded 1000 bytes/);
  });
});
