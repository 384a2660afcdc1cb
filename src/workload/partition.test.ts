import { describe, expect, test } from 'vitest';
import { type Part, parseShard, partItemIndex, partPosition, partShare, splitBudget } from './partition.js';

const parts = (count: number): Part[] => Array.from({ length: count }, (_, index) => ({ index, count }));

describe('partShare / partPosition', () => {
  test.each([
    // total, count, shares
    [10, 3, [4, 3, 3]],
    [9, 3, [3, 3, 3]],
    [2, 3, [1, 1, 0]],
    [0, 2, [0, 0]],
    [1, 1, [1]],
    [7, 7, [1, 1, 1, 1, 1, 1, 1]],
  ])('%i items in %i parts → %j', (total, count, shares) => {
    expect(parts(count).map((p) => partShare(total, p))).toEqual(shares);
    // Every position below total belongs to exactly one part.
    const seen = parts(count).flatMap((p) =>
      Array.from({ length: partShare(total, p) }, (_, k) => partPosition(k, p)),
    );
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i));
  });
});

describe('partItemIndex: the union of the parts is the whole workload', () => {
  test.each([
    // warmup, requests, count
    [0, 10, 3],
    [2, 10, 3],
    [5, 1, 4],
    [1, 0, 2],
    [3, 17, 1],
    [4, 100, 10],
  ])('warmup %i + %i requests in %i parts', (warmup, requests, count) => {
    const all: number[] = [];
    for (const p of parts(count)) {
      const localWarmup = partShare(warmup, p);
      const n = localWarmup + partShare(requests, p);
      for (let k = 0; k < n; k++) {
        const i = partItemIndex(k, warmup, p);
        // A part's warmup items are warmup items of the whole, its measured ones measured.
        expect(i < warmup, `part ${p.index} item ${k}`).toBe(k < localWarmup);
        // Measured items go round-robin by their measured position.
        if (i >= warmup) expect((i - warmup) % count).toBe(p.index);
        all.push(i);
      }
    }
    expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: warmup + requests }, (_, i) => i));
  });
});

describe('splitBudget', () => {
  test.each([
    [12, 3, [4, 4, 4]],
    [10, 3, [4, 3, 3]],
    [2, 3, [1, 1, 0]],
    [64, 10, [7, 7, 7, 7, 6, 6, 6, 6, 6, 6]],
  ])('%i over %i parts → %j (sums to the whole)', (total, count, shares) => {
    const got = parts(count).map((p) => splitBudget(total, p));
    expect(got).toEqual(shares);
    expect(got.reduce((a, b) => a + b, 0)).toBe(total);
  });
});

describe('parseShard', () => {
  test.each([
    ['0/3', { index: 0, count: 3 }],
    ['2/3', { index: 2, count: 3 }],
    [' 9 / 10 ', { index: 9, count: 10 }],
    ['0/1', { index: 0, count: 1 }],
  ])('%j', (text, part) => {
    expect(parseShard(text)).toEqual(part);
  });

  test.each(['3/3', '1/0', '-1/3', '1', 'a/b', '1/2/3', '0/10001', '$(JOB_COMPLETION_INDEX)/3'])(
    '%j is a usage error with the fix',
    (text) => {
      expect(() => parseShard(text)).toThrow(/--shard expects i\/N/);
      try {
        parseShard(text);
      } catch (e) {
        expect((e as { code: string; hint: string }).code).toBe('E_USAGE');
        expect((e as { hint: string }).hint).toContain('--shard 0/3');
      }
    },
  );
});
