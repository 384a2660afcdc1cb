import { describe, expect, it } from 'vitest';
import { terminalSafe, terminalSafeStream } from './terminal.js';

describe('terminalSafe', () => {
  it.each([
    // [what, in, out]
    ['plain text', 'TTFT p99 12.3 ms', 'TTFT p99 12.3 ms'],
    ['newlines and tabs', 'a\tb\nc\n', 'a\tb\nc\n'],
    ['CSV line ends', 'a,b\r\n1,2\r\n', 'a,b\r\n1,2\r\n'],
    ['the progress redraw', '\rprogress: 50%\x1b[K', '\rprogress: 50%\x1b[K'],
    ['the progress clear', '\r\x1b[K', '\r\x1b[K'],
    [
      "goodput's colours",
      '\x1b[1mTTFT\x1b[0m \x1b[31mFAIL\x1b[0m \x1b[33m!\x1b[0m \x1b[2mdim\x1b[0m \x1b[m',
      '\x1b[1mTTFT\x1b[0m \x1b[31mFAIL\x1b[0m \x1b[33m!\x1b[0m \x1b[2mdim\x1b[0m \x1b[m',
    ],
    ['a window title (OSC)', 'm\x1b]0;PWNED\x07', 'm\\x1b]0;PWNED\\x07'],
    ['a line overwritten', 'FAIL\r\x1b[2KPASS', 'FAIL\\x0d\\x1b[2KPASS'],
    ['a carriage return inside', 'gate: FAIL\rgate: PASS', 'gate: FAIL\\x0dgate: PASS'],
    ['hidden text (conceal, black)', '\x1b[8msecret\x1b[30;40m', '\\x1b[8msecret\\x1b[30;40m'],
    ['cursor moves and screen clear', '\x1b[2J\x1b[1A\x1b[H', '\\x1b[2J\\x1b[1A\\x1b[H'],
    ['a bell, a NUL, a backspace, DEL', 'a\x07b\x00c\x08d\x7f', 'a\\x07b\\x00c\\x08d\\u007f'],
    ['C1 controls (8-bit CSI)', 'x\x9b2Jy\x85', 'x\\u009b2Jy\\u0085'],
    [
      'bidirectional overrides',
      'PASS\u202eLIAF\u202c \u2066x\u2069 \u200f',
      'PASS\\u202eLIAF\\u202c \\u2066x\\u2069 \\u200f',
    ],
    [
      'a workflow command on a line of its own',
      'ok\n::error::x\n  ::add-mask::y',
      'ok\n\\x3a:error::x\n  \\x3a:add-mask::y',
    ],
    ['a workflow command first', '::warning::z', '\\x3a:warning::z'],
    ['colons inside a line, untouched', 'a::b [::1]:8000 ::', 'a::b [::1]:8000 ::'],
    ['other text, untouched', 'Überprüfung 東京 🚀 — é', 'Überprüfung 東京 🚀 — é'],
  ])('%s', (_, input, output) => {
    expect(terminalSafe(input)).toBe(output);
  });

  it('leaves nothing a terminal obeys but the kept sequences', () => {
    // every code point up to U+2100, each alone and after text
    for (let c = 0; c < 0x2100; c++) {
      const ch = String.fromCharCode(c);
      const out = terminalSafe(`x${ch}`);
      const control = (c < 0x20 && c !== 9 && c !== 10) || (c >= 0x7f && c < 0xa0);
      const bidi =
        c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
      expect(out === `x${ch}`, `U+${c.toString(16)}`).toBe(!(control || bidi));
    }
  });
});

describe('terminalSafe on JSON output', () => {
  it('keeps it valid JSON that parses to the same text', () => {
    const value = {
      model: 'm\x1b]0;t\x07',
      said: 'a\u0085b\u007f\u009b2J \u202eLIAF\u202c\n::error::x',
      ok: 'Überprüfung 東京 🚀',
    };
    for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
      const safe = terminalSafe(text);
      expect(safe).not.toMatch(/[\u007f-\u009f\u202a-\u202e]/);
      expect(JSON.parse(safe)).toEqual(value);
    }
  });
});

describe('terminalSafeStream', () => {
  it('writes the safe text and keeps isTTY', () => {
    const chunks: string[] = [];
    const s = terminalSafeStream({ write: (c: string) => chunks.push(c), isTTY: true });
    s.write('model m\x1b]0;x\x07\n');
    expect(chunks).toEqual(['model m\\x1b]0;x\\x07\n']);
    expect(s.isTTY).toBe(true);
    expect(terminalSafeStream({ write: () => true }).isTTY).toBeUndefined();
  });
});
