// needs a fresh process: it checks that no encoding's tables are loaded yet, which another file in a shared process may have done
/**
 * The encoding's tables load on the first count, not with the tokenizer nor with synthetic
 * prompts (shipped word pools): a run whose server reports usage never loads them. Checked in
 * Node's module cache with an encoding no other test of this file loads.
 */
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { createTokenizer } from './tokenizer.js';
import { createWorkload } from './workload.js';

const cache = createRequire(import.meta.url).cache;
const loaded = (name: string) => Object.keys(cache).some((k) => k.endsWith(`encoding/${name}.js`));

describe('lazy encoding tables', () => {
  test('a synthetic workload builds exact prompts without them; the first count loads them', () => {
    expect(loaded('p50k_edit')).toBe(false);
    const tokenizer = createTokenizer('p50k_edit');
    const workload = createWorkload(
      {
        kind: 'synthetic',
        api: 'chat',
        promptTokens: 300,
        systemPromptTokens: 20,
        maxTokens: 8,
        tokenizer: 'p50k_edit',
      },
      { seed: 7, warmup: 0, requests: 50, tokenizer },
    );
    const items = Array.from({ length: 50 }, (_, i) => workload.item(i));
    expect(items.every((it) => it.promptTokens === 320)).toBe(true);
    expect(loaded('p50k_edit')).toBe(false);
    const text = items[3]!.messages!.map((m) => m.content).join('');
    expect(tokenizer.count(text)).toBe(320);
    expect(loaded('p50k_edit')).toBe(true);
  });
});
