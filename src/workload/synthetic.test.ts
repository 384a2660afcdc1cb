import { describe, expect, test } from 'vitest';
import { GoodputError } from '../errors.js';
import { createRng } from './rng.js';
import { promptLength, scanWordPool, syntheticPrompt, wordPool } from './synthetic.js';
import { createTokenizer, TOKENIZER_NAMES } from './tokenizer.js';
import { shippedPool } from './word-pools.js';

const tok = createTokenizer('o200k_base');

describe('syntheticPrompt', () => {
  const lengths = [1, 2, 3, 7, 16, 100, 513, 2048, 8192];
  const seeds = [0, 1, 42, 12345];

  test.each(lengths)('%i tokens: exact under o200k_base for several seeds', (n) => {
    for (const seed of seeds) {
      const text = syntheticPrompt(n, createRng(seed), tok, { unique: seed * 7919 + n });
      expect(tok.encode(text).length).toBe(n);
      expect(tok.count(text)).toBe(n);
    }
  });

  test.each(lengths)('%i tokens after a shared system prompt: the concatenation counts as the sum', (n) => {
    for (const [seed, systemTokens] of [
      [3, 1],
      [4, 7],
      [5, 1000],
    ] as const) {
      const system = syntheticPrompt(systemTokens, createRng(seed).fork('system'), tok);
      const user = syntheticPrompt(n, createRng(seed).fork(n), tok, { unique: n });
      expect(tok.count(system + user)).toBe(systemTokens + n);
    }
  });

  test('exact over many random lengths and seeds', () => {
    const pick = createRng('lengths');
    for (let i = 0; i < 200; i++) {
      const n = 1 + pick.int(600);
      const text = syntheticPrompt(n, createRng(i), tok, i % 2 === 0 ? { unique: i * 101 } : {});
      expect(tok.count(text), `seed ${i}, ${n} tokens`).toBe(n);
    }
  });

  test('exact under cl100k_base too', () => {
    const cl = createTokenizer('cl100k_base');
    for (const n of [1, 7, 300])
      expect(cl.count(syntheticPrompt(n, createRng(n), cl, { unique: n }))).toBe(n);
  });

  test('0 tokens is the empty string; negative or fractional lengths are usage errors', () => {
    expect(syntheticPrompt(0, createRng(1), tok)).toBe('');
    expect(() => syntheticPrompt(-1, createRng(1), tok)).toThrow(GoodputError);
    expect(() => syntheticPrompt(2.5, createRng(1), tok)).toThrow(GoodputError);
  });

  test('the same rng position gives the same text; another seed another text', () => {
    const a = syntheticPrompt(64, createRng(9), tok, { unique: 3 });
    expect(syntheticPrompt(64, createRng(9), tok, { unique: 3 })).toBe(a);
    expect(syntheticPrompt(64, createRng(10), tok, { unique: 3 })).not.toBe(a);
  });

  test('distinct unique values give distinct prompts, even at 2 tokens with one shared seed', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(syntheticPrompt(2, createRng(1), tok, { unique: i }));
    expect(seen.size).toBe(20_000);
    // Values far apart (beyond capitals × spaced) are still distinct with 3 tokens.
    const pool = wordPool(tok);
    const far = pool.capitals.length * pool.spaced.length;
    expect(syntheticPrompt(3, createRng(1), tok, { unique: 5 })).not.toBe(
      syntheticPrompt(3, createRng(1), tok, { unique: 5 + far }),
    );
  });

  test('at 1 token, distinct for as many values as there are capitalised words', () => {
    const { capitals } = wordPool(tok);
    const seen = new Set<string>();
    for (let i = 0; i < capitals.length; i++) seen.add(syntheticPrompt(1, createRng(i), tok, { unique: i }));
    expect(seen.size).toBe(capitals.length);
  });

  test('the words of the pools are each one token', () => {
    const { capitals, spaced } = wordPool(tok);
    expect(capitals.length).toBeGreaterThanOrEqual(256);
    expect(spaced.length).toBeGreaterThanOrEqual(4096);
    for (const w of [...capitals, ...spaced]) expect(tok.encode(w).length).toBe(1);
  });
});

describe('the shipped word pools (word-pools.generated.ts)', () => {
  test('o200k_base (the default): the pool a scan of the encoding gives (else: node scripts/word-pools.mjs)', () => {
    expect(shippedPool('o200k_base')).toEqual(scanWordPool(tok));
    expect(wordPool(tok)).toBe(shippedPool('o200k_base'));
  });

  test.each(TOKENIZER_NAMES)('%s: every word is one token, and 300 words side by side count 300', (name) => {
    const encoding = createTokenizer(name);
    const pool = wordPool(encoding);
    expect(pool).toBe(shippedPool(name));
    for (const w of [...pool.capitals, ...pool.spaced]) expect(encoding.count(w), w).toBe(1);
    expect(encoding.count(syntheticPrompt(300, createRng(name), encoding, { unique: 77 }))).toBe(300);
  });

  test('no pool for a tokenizer that is not built in', () => {
    expect(shippedPool('/models/llama/tokenizer.json')).toBeUndefined();
    expect(shippedPool('constructor')).toBeUndefined();
  });
});

describe('promptLength', () => {
  test.each([
    [100, 0, 100, 100],
    [100, 0.2, 80, 120],
    [10, 0.5, 5, 15],
    [1, 0.9, 1, 1],
    [2048, 0.25, 1536, 2560],
  ])('n %i, range %f: uniform whole numbers in [%i, %i]', (n, range, low, high) => {
    const rng = createRng(`len-${n}-${range}`);
    const counts = new Map<number, number>();
    const draws = 20_000;
    for (let i = 0; i < draws; i++) {
      const x = promptLength(n, range, rng);
      counts.set(x, (counts.get(x) ?? 0) + 1);
    }
    const values = [...counts.keys()];
    expect(Math.min(...values)).toBe(low);
    expect(Math.max(...values)).toBe(high);
    expect(values.every(Number.isInteger)).toBe(true);
    const mean = [...counts].reduce((a, [v, c]) => a + v * c, 0) / draws;
    expect(Math.abs(mean - (low + high) / 2)).toBeLessThan(Math.max(0.5, (high - low) * 0.02));
  });
});
