import { describe, expect, it } from 'vitest';
import type { WorkloadSpec } from '../types.js';
import { parseLengthDist } from './length-dist.js';
import { PrefixGroups } from './prefix-groups.js';
import { createRng } from './rng.js';
import { createTokenizer } from './tokenizer.js';
import { createWorkload } from './workload.js';

const tokenizer = createTokenizer();

describe('PrefixGroups', () => {
  it('with prompts per group: each round gives each of its fresh prefixes to exactly P requests, shuffled', () => {
    const groups = new PrefixGroups(
      { groups: 4, prefixTokens: 64, promptsPerGroup: 5 },
      createRng(3).fork('g'),
    );
    for (const round of [0, 1, 2]) {
      const ids = Array.from({ length: 20 }, (_, k) => groups.groupOf(round * 20 + k));
      const counts = new Map<number, number>();
      for (const c of ids) counts.set(c.id, (counts.get(c.id) ?? 0) + 1);
      expect([...counts.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3].map((g) => round * 4 + g));
      expect([...counts.values()]).toEqual([5, 5, 5, 5]);
      // Shuffled: not the groups one after another.
      expect(ids.map((c) => c.group)).not.toEqual([0, 1, 2, 3].flatMap((g) => [g, g, g, g, g]));
    }
    // Lazy and exact for any order: asking again out of order gives the same group.
    const again = new PrefixGroups(
      { groups: 4, prefixTokens: 64, promptsPerGroup: 5 },
      createRng(3).fork('g'),
    );
    expect(again.groupOf(47)).toEqual(groups.groupOf(47));
    expect(again.groupOf(3)).toEqual(groups.groupOf(3));
  });

  it('without prompts per group: one of the N prefixes at random for the whole run', () => {
    const groups = new PrefixGroups({ groups: 8, prefixTokens: 64 }, createRng(3).fork('g'));
    const ids = Array.from({ length: 800 }, (_, i) => groups.groupOf(i).id);
    const counts = new Array(8).fill(0);
    for (const id of ids) counts[id]++;
    expect(Math.min(...counts)).toBeGreaterThan(60);
  });

  it('refuses a spec that cannot be generated, naming the flag', () => {
    expect(() => new PrefixGroups({ groups: 0, prefixTokens: 64 }, createRng(1))).toThrow(/--prefix-groups/);
    expect(() => new PrefixGroups({ groups: 2, prefixTokens: 1.5 }, createRng(1))).toThrow(/--prefix-tokens/);
    expect(() => new PrefixGroups({ groups: 2, prefixTokens: 8, promptsPerGroup: 0 }, createRng(1))).toThrow(
      /--prompts-per-group/,
    );
  });
});

describe('createWorkload with prefix groups and length distributions', () => {
  const spec: WorkloadSpec = {
    kind: 'synthetic',
    api: 'chat',
    promptTokens: 40,
    maxTokens: 16,
    tokenizer: 'o200k_base',
    systemPromptTokens: 10,
    prefixGroups: { groups: 3, prefixTokens: 100, promptsPerGroup: 4 },
  };

  it('prompts of a group share its prefix word for word, and only it; token counts are exact', () => {
    const wl = createWorkload(spec, { seed: 5, warmup: 0, requests: 24, tokenizer });
    const groups = new PrefixGroups(spec.prefixGroups!, createRng(5).fork('prefix-group'));
    const items = Array.from({ length: 24 }, (_, i) => wl.item(i));
    const userOf = (i: number) => items[i]!.messages!.at(-1)!.content;
    for (let i = 0; i < 24; i++) {
      const item = items[i]!;
      expect(item.promptTokens).toBe(10 + 100 + 40);
      const system = item.messages![0]!.content;
      expect(tokenizer.count(system) + tokenizer.count(userOf(i))).toBe(150);
    }
    // The prefix is a capital word and 99 spaced words; the 100th piece runs into the prompt's own capital.
    const prefixWords = (i: number) => userOf(i).split(' ').slice(0, 99).join(' ');
    for (let i = 0; i < 24; i++) {
      for (let j = i + 1; j < 24; j++) {
        const same = groups.groupOf(i).id === groups.groupOf(j).id;
        expect(prefixWords(i) === prefixWords(j)).toBe(same);
        expect(userOf(i)).not.toBe(userOf(j));
      }
    }
    expect(wl.spec.prefixGroups).toEqual(spec.prefixGroups);
  });

  it('draws prompt and output lengths from their distributions, seeded, and records them', () => {
    const lengths = {
      prompt: parseLengthDist('uniform:20-60', '--prompt-tokens-dist'),
      output: parseLengthDist('lognormal:median=30,sigma=0.5', '--max-tokens-dist'),
    };
    const make = (seed: number) =>
      createWorkload(
        { ...spec, prefixGroups: undefined },
        { seed, warmup: 0, requests: 50, tokenizer, lengths },
      );
    const wl = make(5);
    const items = Array.from({ length: 50 }, (_, i) => wl.item(i));
    const prompts = items.map((it) => it.promptTokens - 10);
    expect(Math.min(...prompts)).toBeGreaterThanOrEqual(20);
    expect(Math.max(...prompts)).toBeLessThanOrEqual(60);
    expect(new Set(prompts).size).toBeGreaterThan(20);
    for (const it of items)
      expect(tokenizer.count(it.messages!.map((m) => m.content).join(''))).toBe(it.promptTokens);
    expect(new Set(items.map((it) => it.maxTokens)).size).toBeGreaterThan(15);
    expect(make(5).item(17)).toEqual(items[17]);
    expect(make(6).item(17).promptTokens).not.toBe(items[17]!.promptTokens);
    expect(wl.spec.promptTokensDist).toEqual({ kind: 'uniform', text: 'uniform:20-60', mean: 40 });
    expect(wl.spec.promptTokens).toBe(40);
    expect(wl.spec.maxTokensDist).toMatchObject({ kind: 'lognormal', text: 'lognormal:median=30,sigma=0.5' });
    expect(wl.spec.maxTokens).toBe(Math.round(30 * Math.exp(0.125)));
  });

  it('refuses shapes that mean nothing with sessions, a dataset or a trace', () => {
    const prompt = parseLengthDist('uniform:20-60', '--prompt-tokens-dist');
    expect(() =>
      createWorkload({ ...spec, sessions: {} }, { seed: 1, warmup: 0, requests: 4, tokenizer }),
    ).toThrow(/--prefix-groups cannot be used with sessions/);
    expect(() =>
      createWorkload(
        { ...spec, prefixGroups: undefined, kind: 'dataset' },
        { seed: 1, warmup: 0, requests: 4, tokenizer, dataset: [{ prompt: 'hi' }], lengths: { prompt } },
      ),
    ).toThrow(/--prompt-tokens-dist cannot be used with --dataset/);
    expect(() =>
      createWorkload(
        { ...spec, prefixGroups: undefined, promptTokensRange: 0.2 },
        { seed: 1, warmup: 0, requests: 4, tokenizer, lengths: { prompt } },
      ),
    ).toThrow(/--prompt-tokens-range/);
  });
});
