import { describe, expect, test } from 'vitest';
import { GoodputError } from '../errors.js';
import {
  countInPieces,
  countPromptTokens,
  createTokenizer,
  MAX_WORD_CHARS,
  promptText,
} from './tokenizer.js';

describe('createTokenizer', () => {
  const tok = createTokenizer();

  test('defaults to o200k_base and is cached per name', () => {
    expect(tok.name).toBe('o200k_base');
    expect(createTokenizer('o200k_base')).toBe(tok);
  });

  test.each([
    'hello world',
    'The quick brown fox jumps over the lazy dog.',
    '日本語のテキスト',
    '  spaces\n\nand lines ',
  ])('count equals the length of encode, and decode round-trips: %j', (text) => {
    const ids = tok.encode(text);
    expect(tok.count(text)).toBe(ids.length);
    expect(tok.decode(ids)).toBe(text);
  });

  test('special-token text is counted as plain text, not rejected', () => {
    const text = 'before <|endoftext|> after';
    expect(tok.count(text)).toBeGreaterThan(3);
    expect(tok.decode(tok.encode(text))).toBe(text);
  });

  test('other encodings load on demand and count differently from o200k', () => {
    const cl = createTokenizer('cl100k_base');
    expect(cl.name).toBe('cl100k_base');
    const text = 'Tokenizers differ: Überprüfung, 東京, and emoji 🚀🚀🚀 show it.';
    expect(cl.decode(cl.encode(text))).toBe(text);
    expect(cl.count(text)).not.toBe(tok.count(text));
  });

  test('a decode that ends mid-character stands alone: nothing of it comes out in the next decode', () => {
    for (const name of ['o200k_base', 'cl100k_base']) {
      const t = createTokenizer(name);
      const [head] = t.encode('🚀'); // the first of the emoji's two tokens: three of its four bytes
      expect(t.decode([head!])).toBe('\ufffd');
      expect(t.decode(t.encode('東京 and 🚀'))).toBe('東京 and 🚀');
      t.decode([head!]);
      expect(createTokenizer('o200k_base').decode(tok.encode('Überprüfung 東京'))).toBe('Überprüfung 東京');
    }
  });

  test('an unknown name is a usage error listing the choices', () => {
    const err = (() => {
      try {
        createTokenizer('llama3');
      } catch (e) {
        return e as GoodputError;
      }
    })();
    expect(err).toBeInstanceOf(GoodputError);
    expect(err?.code).toBe('E_USAGE');
    expect(err?.hint).toContain('o200k_base');
  });
});

describe('countPromptTokens', () => {
  const tok = createTokenizer();
  test('chat: the message contents concatenated with nothing between them', () => {
    const messages = [
      { role: 'system' as const, content: 'You are terse.' },
      { role: 'user' as const, content: 'Say hi' },
    ];
    expect(promptText({ messages })).toBe('You are terse.Say hi');
    expect(countPromptTokens({ messages }, tok)).toBe(tok.encode('You are terse.Say hi').length);
  });

  test('completions: the prompt', () => {
    expect(countPromptTokens({ prompt: 'Once upon a time' }, tok)).toBe(
      tok.encode('Once upon a time').length,
    );
    expect(countPromptTokens({}, tok)).toBe(0);
  });
});

describe('long words are encoded in pieces (BPE is quadratic in a word)', () => {
  const tok = createTokenizer();
  test('text of ordinary words counts exactly as the encoding does', () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(50);
    expect(tok.count(text)).toBe(tok.encode(text).length);
    expect(tok.decode(tok.encode(text))).toBe(text);
  });
  test('a word past MAX_WORD_CHARS is counted piece by piece, and its pieces decode back to it', () => {
    const word = 'ab'.repeat(MAX_WORD_CHARS * 4);
    const text = `before ${word} after`;
    const ids = tok.encode(text);
    expect(tok.count(text)).toBe(ids.length);
    expect(tok.decode(ids)).toBe(text);
    let pieces = tok.count('before ') + tok.count(' after');
    for (let i = 0; i < word.length; i += MAX_WORD_CHARS)
      pieces += tok.count(word.slice(i, i + MAX_WORD_CHARS));
    expect(tok.count(text)).toBe(pieces);
  });
  test('a 256 KiB word reaches the encoder in pieces of at most MAX_WORD_CHARS (it took minutes whole)', () => {
    const word = 'xq'.repeat(128 * 1024);
    let longest = 0;
    let chars = 0;
    const n = countInPieces(`one ${word} two`, (t) => {
      longest = Math.max(longest, t.length);
      chars += t.length;
      return tok.count(t);
    });
    expect(longest).toBeLessThanOrEqual(MAX_WORD_CHARS);
    expect(chars).toBe(word.length + 8);
    expect(n).toBeGreaterThan(word.length / MAX_WORD_CHARS);
  });
});
