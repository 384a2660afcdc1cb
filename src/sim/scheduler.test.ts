import { describe, expect, it } from 'vitest';
import { resolveEngineConfig } from './engine-config.js';
import { resolveProfile } from './profiles.js';
import type { RequestSink } from './request.js';
import { blockHashes } from './rng.js';
import { Engine } from './scheduler.js';

const profile = resolveProfile('h100:llama-3.1-8b');
const noop: RequestSink = { onToken() {}, onFinish() {} };

function engine(opts: Parameters<typeof resolveEngineConfig>[1]): Engine {
  return new Engine(profile, resolveEngineConfig(profile, opts));
}

/** Run steps until idle (bounded); calls `before` ahead of each plan. */
function drain(e: Engine, before?: (t: number) => void, maxSteps = 100_000): number {
  let t = 0;
  for (let i = 0; i < maxSteps; i++) {
    before?.(t);
    const plan = e.plan(t);
    if (!plan) return t;
    t += plan.durationMs;
    e.commit(plan, t);
  }
  throw new Error('engine did not drain');
}

const ids = (n: number, salt: number) => Array.from({ length: n }, (_, i) => salt * 100_000 + i);

describe('engine: paged KV cache and preemption', () => {
  it('preempts exactly when a running sequence needs a block and none is free', () => {
    // 4 requests of 32 prompt + 80 output tokens need 7 blocks each at the end: 28 in all.
    for (const blocks of [28, 27, 20, 12]) {
      const e = engine({ numGpuBlocksOverride: blocks, enablePrefixCaching: false, maxModelLen: 128 });
      const reqs = [0, 1, 2, 3].map((i) =>
        e.add({ id: `r${i}`, promptTokens: 32, outputTokens: 80, finishReason: 'length', sink: noop }, 0),
      );
      let t = 0;
      let steps = 0;
      for (; e.hasWork() && steps < 10_000; steps++) {
        // Reference: running sequences (all decoding here) that cross into a new block, against free blocks.
        const running = reqs.filter((r) => r.status === 'running');
        const need = running.filter((r) => Math.ceil((r.computed + 1) / 16) > r.blocks.length).length;
        const free = e.kv.freeBlocks();
        const before = e.counters.preemptions;
        const plan = e.plan(t)!;
        expect(e.counters.preemptions > before).toBe(need > free);
        t += plan.durationMs;
        e.commit(plan, t);
      }
      expect(e.counters.finished.length).toBe(4);
      expect(e.counters.preemptions > 0).toBe(blocks < 28);
      expect(e.kv.allocatedBlocks()).toBe(0);
      expect(e.kv.freeBlocks()).toBe(blocks);
    }
  });

  it('a preempted request is recomputed and still delivers every token once', () => {
    const e = engine({ numGpuBlocksOverride: 12, enablePrefixCaching: false, maxModelLen: 128 });
    const tokens = new Map<string, number[]>();
    const sink: RequestSink = {
      onToken: (r) => tokens.set(r.id, [...(tokens.get(r.id) ?? []), r.generated]),
      onFinish() {},
    };
    const reqs = [0, 1, 2, 3].map((i) =>
      e.add({ id: `r${i}`, promptTokens: 32, outputTokens: 80, finishReason: 'length', sink }, 0),
    );
    drain(e);
    expect(reqs.some((r) => r.preemptions > 0)).toBe(true);
    for (const r of reqs) expect(tokens.get(r.id)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    expect(e.counters.computedPrefillTokens).toBeGreaterThan(4 * 32);
  });

  it('abort frees the blocks of a running request at once', () => {
    const e = engine({ numGpuBlocksOverride: 100, enablePrefixCaching: false });
    e.add({ id: 'a', promptTokens: 200, outputTokens: 50, finishReason: 'length', sink: noop }, 0);
    const plan = e.plan(0)!;
    e.commit(plan, plan.durationMs);
    expect(e.kv.allocatedBlocks()).toBe(Math.ceil(200 / 16));
    expect(e.abort('a', 10)).toBe(true);
    expect(e.kv.allocatedBlocks()).toBe(0);
    expect(e.kv.freeBlocks()).toBe(100);
    expect(e.counters.finished.abort).toBe(1);
    expect(e.hasWork()).toBe(false);
  });

  it('without abort-on-disconnect a gone client keeps generating, counted as abandoned', () => {
    const e = engine({ numGpuBlocksOverride: 100, abortOnDisconnect: false });
    e.add({ id: 'a', promptTokens: 20, outputTokens: 30, finishReason: 'length', sink: noop }, 0);
    let t = 0;
    for (let i = 0; i < 10; i++) {
      const p = e.plan(t)!;
      t += p.durationMs;
      e.commit(p, t);
    }
    e.clientGone('a', t);
    drain(e);
    expect(e.counters.finished.length).toBe(1);
    expect(e.counters.abandonedTokens).toBe(20);
  });

  it('rejects requests that can never fit', () => {
    const e = engine({ numGpuBlocksOverride: 10, maxModelLen: 1000 });
    expect(() =>
      e.add({ id: 'x', promptTokens: 900, outputTokens: 200, finishReason: 'length', sink: noop }, 0),
    ).toThrow(/maximum context length is 1000/);
    expect(() =>
      e.add({ id: 'y', promptTokens: 300, outputTokens: 10, finishReason: 'length', sink: noop }, 0),
    ).toThrow(/KV blocks/);
  });
});

describe('engine: chunked prefill and budgets', () => {
  it('splits a long prompt across steps under max-num-batched-tokens when chunked prefill is on', () => {
    const e = engine({ maxNumBatchedTokens: 2048 });
    const r = e.add({ id: 'a', promptTokens: 5000, outputTokens: 2, finishReason: 'length', sink: noop }, 0);
    const chunks: number[] = [];
    drain(e, () => {
      if (r.firstTokenMs === undefined) chunks.push(r.computed);
    });
    // computed tokens before each step until the first token: 0, 2048, 4096 (then 5000 → token)
    expect(chunks).toEqual([0, 2048, 4096]);
    expect(e.counters.steps).toBe(3 + 1);
  });

  it('with chunked prefill off, a prefill step stalls running decodes', () => {
    const e = engine({ enableChunkedPrefill: false, maxNumBatchedTokens: 16384, maxModelLen: 16384 });
    const a = e.add({ id: 'a', promptTokens: 100, outputTokens: 50, finishReason: 'length', sink: noop }, 0);
    let t = 0;
    for (let i = 0; i < 5; i++) {
      const p = e.plan(t)!;
      t += p.durationMs;
      e.commit(p, t);
    }
    const before = a.generated;
    e.add({ id: 'b', promptTokens: 8000, outputTokens: 5, finishReason: 'length', sink: noop }, t);
    const p = e.plan(t)!;
    expect(p.prefillOnly).toBe(true);
    expect(p.entries.map((x) => x.req.id)).toEqual(['b']);
    e.commit(p, t + p.durationMs);
    expect(a.generated).toBe(before);
  });

  it('never runs more than max-num-seqs sequences in a step', () => {
    const e = engine({ maxNumSeqs: 8 });
    for (let i = 0; i < 30; i++)
      e.add({ id: `r${i}`, promptTokens: 50, outputTokens: 10, finishReason: 'length', sink: noop }, 0);
    let most = 0;
    drain(e, () => {
      most = Math.max(most, e.numRunning);
    });
    expect(most).toBe(8);
    expect(e.counters.finished.length).toBe(30);
  });
});

describe('engine: prefix caching', () => {
  it('reuses full blocks of a shared prefix and counts queries and hits in tokens', () => {
    const e = engine({ numGpuBlocksOverride: 1000 });
    const shared = ids(160, 1);
    const a = e.add(
      {
        id: 'a',
        promptTokens: 200,
        promptBlockHashes: blockHashes([...shared, ...ids(40, 2)], 16),
        outputTokens: 3,
        finishReason: 'length',
        sink: noop,
      },
      0,
    );
    drain(e);
    const b = e.add(
      {
        id: 'b',
        promptTokens: 200,
        promptBlockHashes: blockHashes([...shared, ...ids(40, 3)], 16),
        outputTokens: 3,
        finishReason: 'length',
        sink: noop,
      },
      0,
    );
    drain(e);
    expect(a.cachedPromptTokens).toBe(0);
    expect(b.cachedPromptTokens).toBe(160);
    expect(e.counters.prefixCacheQueries).toBe(400);
    expect(e.counters.prefixCacheHits).toBe(160);
    expect(e.counters.computedPrefillTokens).toBe(200 + 40);
  });

  it('evicts the least recently freed cached blocks first', () => {
    const e = engine({ numGpuBlocksOverride: 24, maxModelLen: 384 });
    const run = (id: string, salt: number) => {
      const r = e.add(
        {
          id,
          promptTokens: 160,
          promptBlockHashes: blockHashes(ids(160, salt), 16),
          outputTokens: 1,
          finishReason: 'length',
          sink: noop,
        },
        0,
      );
      drain(e);
      return r;
    };
    run('p1', 1);
    run('p2', 2);
    // 20 of 24 blocks now hold p1 and p2. p3 takes the 4 empty blocks and evicts 6 cached ones:
    // p1's, tail first (a freed sequence is queued tail first, as in vLLM), so p1's head survives.
    run('p3', 3);
    expect(e.kv.evictions).toBe(6);
    // p2 hits 9 blocks (the last one is always recomputed), which evicts one more block of p1.
    expect(run('p2again', 2).cachedPromptTokens).toBe(144);
    expect(e.kv.evictions).toBe(7);
    expect(run('p1again', 1).cachedPromptTokens).toBe(3 * 16);
  });
});
