import { describe, expect, test } from 'vitest';
import { GoodputError } from '../errors.js';
import type { WorkloadSpec } from '../types.js';
import { arrivalOffsets } from './arrivals.js';
import type { Dataset } from './dataset.js';
import { createRng } from './rng.js';
import { countPromptTokens, createTokenizer } from './tokenizer.js';
import { createWorkload, requestId } from './workload.js';

const tok = createTokenizer();
const synthetic: WorkloadSpec = {
  kind: 'synthetic',
  api: 'chat',
  promptTokens: 64,
  maxTokens: 32,
  tokenizer: 'o200k_base',
};

describe('createWorkload (synthetic)', () => {
  test('ids, warmup flags, exact prompt counts that match the shared counter', () => {
    const wl = createWorkload(synthetic, { seed: 1, warmup: 3, requests: 10 });
    expect(wl.total).toBe(13);
    expect(wl.spec.tokenizer).toBe('o200k_base');
    for (let i = 0; i < 13; i++) {
      const item = wl.item(i);
      expect(item.index).toBe(i);
      expect(item.id).toBe(requestId(i));
      expect(item.warmup).toBe(i < 3);
      expect(item.maxTokens).toBe(32);
      expect(item.prompt).toBeUndefined();
      expect(item.messages).toHaveLength(1);
      expect(item.messages![0]!.role).toBe('user');
      expect(item.promptTokens).toBe(64);
      expect(countPromptTokens(item, tok)).toBe(64);
      expect(item.scheduledMs).toBeUndefined();
    }
    expect(wl.item(0).id).toBe('r-000001');
    expect(wl.item(41).id).toBe('r-000042');
  });

  test('item(i) is the same whatever order it is asked in, and across instances', () => {
    const spec = { ...synthetic, promptTokensRange: 0.5, cancelRate: 0.3, cancelAfterMs: 200 };
    const opts = { seed: 7, warmup: 2, rate: 20, burstiness: 0.5 };
    const forward = createWorkload(spec, opts);
    const items = Array.from({ length: 1500 }, (_, i) => forward.item(i));
    const backward = createWorkload(spec, opts);
    for (let i = items.length - 1; i >= 0; i -= 1) expect(backward.item(i)).toEqual(items[i]);
    expect(forward.item(1234)).toEqual(items[1234]);
  });

  test('synthetic prompts are unique per request', () => {
    const wl = createWorkload({ ...synthetic, promptTokens: 4 }, { seed: 3, warmup: 0 });
    const texts = new Set(Array.from({ length: 5000 }, (_, i) => wl.item(i).messages![0]!.content));
    expect(texts.size).toBe(5000);
  });

  test('shared system prompt: identical system message, unique user prompts, counts include both', () => {
    const spec = { ...synthetic, promptTokens: 100, systemPromptTokens: 500 };
    const wl = createWorkload(spec, { seed: 5, warmup: 0 });
    const a = wl.item(0);
    const b = wl.item(1);
    expect(a.messages![0]).toEqual(b.messages![0]);
    expect(a.messages![0]!.role).toBe('system');
    expect(tok.count(a.messages![0]!.content)).toBe(500);
    expect(a.messages![1]!.content).not.toBe(b.messages![1]!.content);
    for (const item of [a, b, wl.item(999)]) {
      expect(item.promptTokens).toBe(600);
      expect(countPromptTokens(item, tok)).toBe(600);
    }
  });

  test('completions API: one prompt string, system prefix first, exact count', () => {
    const wl = createWorkload(
      { ...synthetic, api: 'completions', promptTokens: 7, systemPromptTokens: 1 },
      { seed: 1, warmup: 0 },
    );
    const item = wl.item(4);
    expect(item.messages).toBeUndefined();
    expect(countPromptTokens(item, tok)).toBe(8);
    expect(item.promptTokens).toBe(8);
    const other = wl.item(5);
    expect(tok.encode(item.prompt!)[0]).toBe(tok.encode(other.prompt!)[0]);
    expect(item.prompt!.slice(tok.decode(tok.encode(item.prompt!).slice(0, 1)).length)).not.toBe(
      other.prompt!.slice(tok.decode(tok.encode(other.prompt!).slice(0, 1)).length),
    );
  });

  test('prompt-tokens-range spreads lengths uniformly, each exact', () => {
    const wl = createWorkload(
      { ...synthetic, promptTokens: 100, promptTokensRange: 0.2 },
      { seed: 2, warmup: 0 },
    );
    const lengths = Array.from({ length: 400 }, (_, i) => wl.item(i));
    for (const item of lengths.slice(0, 50)) expect(countPromptTokens(item, tok)).toBe(item.promptTokens);
    const values = lengths.map((x) => x.promptTokens);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(80);
    expect(Math.max(...values)).toBeLessThanOrEqual(120);
    expect(new Set(values).size).toBeGreaterThan(30);
  });

  test('open loop: measured items get the arrival offsets from 0, the warmup its own draw before them', () => {
    const wl = createWorkload(synthetic, { seed: 11, warmup: 2, rate: 50, burstiness: 2 });
    const expected = arrivalOffsets(50, 2, createRng(11).fork('arrivals'));
    for (let i = 2; i < 200; i++) expect(wl.item(i).scheduledMs).toBe(expected.next().value);
    // The warmup's arrivals: the same process, drawn apart, ending one gap before offset 0.
    const warm = arrivalOffsets(50, 2, createRng(11).fork('warmup-arrivals'));
    const [w0, w1, w2] = [warm.next().value, warm.next().value, warm.next().value];
    expect(wl.item(0).scheduledMs).toBeCloseTo(w0 - w2, 9);
    expect(wl.item(1).scheduledMs).toBeCloseTo(w1 - w2, 9);
    expect(wl.item(0).scheduledMs!).toBeLessThan(wl.item(1).scheduledMs!);
    expect(wl.item(1).scheduledMs!).toBeLessThan(0);
    // The measured schedule is the same, seed for seed, with or without a warmup.
    const bare = createWorkload(synthetic, { seed: 11, warmup: 0, rate: 50, burstiness: 2 });
    for (let i = 0; i < 50; i++) expect(bare.item(i).scheduledMs).toBe(wl.item(i + 2).scheduledMs);
  });

  test.each([
    ['a closed loop', { seed: 4, warmup: 3 }],
    ['rate Infinity (all at once)', { seed: 4, warmup: 3, rate: Number.POSITIVE_INFINITY }],
    ['stages of rate', { seed: 4, warmup: 3, stages: [{ durationMs: 1000, target: 5 }] }],
  ])('the warmup of %s is not scheduled', (_name, options) => {
    const wl = createWorkload(synthetic, options);
    for (let i = 0; i < 3; i++) expect(wl.item(i).scheduledMs).toBeUndefined();
  });

  test('rate Infinity schedules every measured item at 0', () => {
    const wl = createWorkload(synthetic, { seed: 1, warmup: 0, rate: Number.POSITIVE_INFINITY });
    expect([0, 1, 50].map((i) => wl.item(i).scheduledMs)).toEqual([0, 0, 0]);
  });

  test('cancelRate marks about that fraction of measured items, never warmup', () => {
    const wl = createWorkload(synthetic, { seed: 4, warmup: 100, cancelRate: 0.25, cancelAfterMs: 1500 });
    expect(wl.spec.cancelRate).toBe(0.25);
    expect(wl.spec.cancelAfterMs).toBe(1500);
    let warmupCancelled = 0;
    let cancelled = 0;
    for (let i = 0; i < 4100; i++) {
      const item = wl.item(i);
      if (item.cancelAfterMs !== undefined) {
        expect(item.cancelAfterMs).toBe(1500);
        if (item.warmup) warmupCancelled++;
        else cancelled++;
      }
    }
    expect(warmupCancelled).toBe(0);
    expect(Math.abs(cancelled / 4000 - 0.25)).toBeLessThan(0.025);
  });

  test('changing the cancel rate or the arrival rate does not change the prompts', () => {
    const a = createWorkload({ ...synthetic, promptTokensRange: 0.3 }, { seed: 8, warmup: 0, rate: 5 });
    const b = createWorkload(
      { ...synthetic, promptTokensRange: 0.3 },
      { seed: 8, warmup: 0, rate: 50, cancelRate: 0.9, cancelAfterMs: 10 },
    );
    for (let i = 0; i < 50; i++) expect(b.item(i).messages).toEqual(a.item(i).messages);
  });

  test.each([
    [{ ...synthetic, promptTokens: 0 }, {}, '--prompt-tokens'],
    [{ ...synthetic, promptTokensRange: 1 }, {}, '--prompt-tokens-range'],
    [{ ...synthetic, maxTokens: 0 }, {}, '--max-tokens'],
    [{ ...synthetic, systemPromptTokens: -3 }, {}, '--system-prompt-tokens'],
    [synthetic, { warmup: -1 }, '--warmup'],
    [synthetic, { cancelRate: 1.5 }, '--cancel-rate'],
    [synthetic, { rate: 0 }, '--rate'],
  ])('bad settings are usage errors naming the flag (%#)', (spec, extra, flag) => {
    try {
      createWorkload(spec, { seed: 1, warmup: 0, ...extra });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(GoodputError);
      expect((e as GoodputError).code).toBe('E_USAGE');
      expect((e as GoodputError).message).toContain(flag);
    }
  });
});

describe('createWorkload (dataset)', () => {
  const dataset: Dataset = {
    path: 'prompts.jsonl',
    format: 'jsonl',
    sha256: 'ab'.repeat(32),
    count: 3,
    skipped: 0,
    entries: [
      { prompt: 'Explain paged attention in one line.', outputTokens: 40 },
      { messages: [{ role: 'user', content: 'What is TTFT?' }] },
      { prompt: 'Name three GPUs.', reply: 'A100, H100 and L40S are three data-centre GPUs.' },
    ],
  };
  const spec: WorkloadSpec = { kind: 'dataset', api: 'chat', maxTokens: 16, tokenizer: 'o200k_base' };

  test('records the dataset identity and cycles through every entry in a seeded order', () => {
    const wl = createWorkload(spec, { seed: 1, warmup: 0, dataset });
    expect(wl.spec.dataset).toEqual({
      path: 'prompts.jsonl',
      format: 'jsonl',
      sha256: 'ab'.repeat(32),
      entries: 3,
    });
    const firstCycle = [0, 1, 2].map((i) => wl.item(i).messages!.at(-1)!.content).sort();
    expect(firstCycle).toEqual(
      ['Explain paged attention in one line.', 'Name three GPUs.', 'What is TTFT?'].sort(),
    );
    for (let i = 0; i < 3; i++) expect(wl.item(i + 3).messages).toEqual(wl.item(i).messages);
  });

  test('output length from the entry, from the reply, else --max-tokens; all --max-tokens when told', () => {
    const inOrder = createWorkload(spec, { seed: 1, warmup: 0, dataset, shuffle: false });
    expect(inOrder.item(0).maxTokens).toBe(40);
    expect(inOrder.item(1).maxTokens).toBe(16);
    expect(inOrder.item(2).maxTokens).toBe(tok.count(dataset.entries[2]!.reply!));
    const fixed = createWorkload(spec, {
      seed: 1,
      warmup: 0,
      dataset,
      shuffle: false,
      outputFromDataset: false,
    });
    expect([0, 1, 2].map((i) => fixed.item(i).maxTokens)).toEqual([16, 16, 16]);
  });

  test('prompt counts match the shared counter, with or without a system prompt and for completions', () => {
    for (const s of [
      spec,
      { ...spec, systemPromptTokens: 30 },
      { ...spec, api: 'completions' as const },
      { ...spec, api: 'completions' as const, systemPromptTokens: 5 },
    ]) {
      const wl = createWorkload(s, { seed: 2, warmup: 1, dataset, shuffle: false });
      for (let i = 0; i < 6; i++) {
        const item = wl.item(i);
        expect(item.promptTokens).toBe(countPromptTokens(item, tok));
        if (s.api === 'completions') expect(typeof item.prompt).toBe('string');
      }
    }
  });

  test('a dataset workload without entries is E_DATASET', () => {
    expect(() => createWorkload(spec, { seed: 1, warmup: 0 })).toThrow(GoodputError);
    expect(() => createWorkload(spec, { seed: 1, warmup: 0, dataset: [] })).toThrow(/no prompts/);
  });
});
