import { describe, expect, it } from 'vitest';
import { createRng } from '../rng.js';
import { createTokenizer } from '../tokenizer.js';
import { createWorkload } from '../workload.js';
import { parseTrace } from './load.js';
import { TracePrompts } from './prompts.js';

const tok = createTokenizer();

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

describe('TracePrompts', () => {
  it('gives requests sharing hash ids identical prefixes of exactly block × shared ids tokens', () => {
    for (const blockSize of [16, 512]) {
      const p = new TracePrompts({ tokenizer: tok, blockSize, seed: 3 });
      const cases: [number[], number[], number][] = [
        [[1, 2, 3], [1, 2, 4], 2],
        [[7], [8], 0],
        [[5, 6], [5, 9, 10], 1],
        [[1, 2, 3], [1, 2, 3], 3],
      ];
      for (const [a, b, shared] of cases) {
        const ta = tok.encode(p.prompt(a, a.length * blockSize, 100));
        const tb = tok.encode(p.prompt(b, b.length * blockSize, 101));
        expect(ta.length).toBe(a.length * blockSize);
        expect(tb.length).toBe(b.length * blockSize);
        expect(commonPrefix(ta, tb), `${blockSize}: ${a} vs ${b}`).toBe(shared * blockSize);
      }
    }
  });

  it('gives every prompt exactly its length, blocks cut short or followed by text of its own', () => {
    const rng = createRng(9);
    const p = new TracePrompts({ tokenizer: tok, blockSize: 64, seed: 1, cacheBlocks: 8 });
    for (let i = 0; i < 200; i++) {
      const ids = Array.from({ length: rng.int(6) }, () => rng.int(40));
      const tokens = 1 + rng.int(500);
      expect(tok.count(p.prompt(ids, tokens, i)), `${ids} ${tokens}`).toBe(tokens);
    }
  });

  it('keeps a cut block a prefix of the whole block, and own text apart from any block', () => {
    const p = new TracePrompts({ tokenizer: tok, blockSize: 32, seed: 1 });
    expect(p.block(5).startsWith(p.prompt([5], 10, 0))).toBe(true);
    // Request 5's own text and block 5 do not share a first token.
    const own = tok.encode(p.prompt([], 32, 5));
    expect(own[0]).not.toBe(tok.encode(p.block(5))[0]);
    // Same inputs, same text; the cache's size does not change it.
    const small = new TracePrompts({ tokenizer: tok, blockSize: 32, seed: 1, cacheBlocks: 1 });
    expect(small.prompt([1, 2, 1, 3], 120, 4)).toBe(p.prompt([1, 2, 1, 3], 120, 4));
  });
});

describe('createWorkload with a trace', () => {
  const trace = parseTrace(
    [
      { timestamp: 500, input_length: 600, output_length: 7, hash_ids: [0, 1] },
      { timestamp: 900, input_length: 520, output_length: 0, hash_ids: [0, 2] },
      { timestamp: 2500, input_length: 40, output_length: 3 },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n'),
    't.jsonl',
  );
  const spec = { kind: 'trace' as const, api: 'chat' as const, maxTokens: 128, tokenizer: 'o200k_base' };

  it('schedules each entry at its time × timeScale with its lengths; warmup reuses entries unscheduled', () => {
    const wl = createWorkload(spec, { seed: 1, warmup: 1, trace: { trace, blockSize: 512, timeScale: 0.5 } });
    expect(wl.total).toBe(4);
    expect(wl.spec.trace).toMatchObject({ format: 'mooncake', entries: 3, blockSize: 512, timeScale: 0.5 });
    const items = [0, 1, 2, 3].map((i) => wl.item(i));
    expect(items.map((i) => i.scheduledMs)).toEqual([undefined, 0, 200, 1000]);
    expect(items.map((i) => i.promptTokens)).toEqual([600, 600, 520, 40]);
    expect(items.map((i) => i.maxTokens)).toEqual([7, 7, 1, 3]);
    for (const i of items) expect(tok.count(i.messages!.map((m) => m.content).join(''))).toBe(i.promptTokens);
    // Requests 1 and 2 share block 0: 512 identical tokens, then they differ.
    const a = tok.encode(items[1]!.messages![0]!.content);
    const b = tok.encode(items[2]!.messages![0]!.content);
    expect(commonPrefix(a, b)).toBe(512);
    expect(() => wl.item(4)).toThrow(RangeError);
  });

  it('cuts the replay at `requests`, and keeps --max-tokens when outputs are not from the trace', () => {
    const wl = createWorkload(spec, {
      seed: 1,
      warmup: 0,
      requests: 2,
      outputFromDataset: false,
      trace: { trace, blockSize: 512, timeScale: 1 },
    });
    expect(wl.total).toBe(2);
    expect(wl.item(1).maxTokens).toBe(128);
  });
});
