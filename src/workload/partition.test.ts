import { describe, expect, test } from 'vitest';
import { Part, parseShard } from './partition.js';

const parts = (count: number): Part[] =>
  Array.from({ length: count }, (_, index) => Part.of({ index, count }));

describe('share / position', () => {
  test.each([
    // total, count, shares
    [10, 3, [4, 3, 3]],
    [9, 3, [3, 3, 3]],
    [2, 3, [1, 1, 0]],
    [0, 2, [0, 0]],
    [1, 1, [1]],
    [7, 7, [1, 1, 1, 1, 1, 1, 1]],
  ])('%i items in %i parts → %j', (total, count, shares) => {
    expect(parts(count).map((p) => p.share(total))).toEqual(shares);
    // Every position below total belongs to exactly one part.
    const seen = parts(count).flatMap((p) => Array.from({ length: p.share(total) }, (_, k) => p.position(k)));
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i));
  });
});

describe('itemIndex: the union of the parts is the whole workload', () => {
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
      const localWarmup = p.share(warmup);
      const n = localWarmup + p.share(requests);
      for (let k = 0; k < n; k++) {
        const i = p.itemIndex(k, warmup);
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

describe('share of a budget', () => {
  test.each([
    [12, 3, [4, 4, 4]],
    [10, 3, [4, 3, 3]],
    [2, 3, [1, 1, 0]],
    [64, 10, [7, 7, 7, 7, 6, 6, 6, 6, 6, 6]],
  ])('%i over %i parts → %j (sums to the whole)', (total, count, shares) => {
    const got = parts(count).map((p) => p.share(total));
    expect(got).toEqual(shares);
    expect(got.reduce((a, b) => a + b, 0)).toBe(total);
  });
});

describe('sub: a worker of a shard is a part of the run', () => {
  // Load workers share their process's budget as a shard shares the run's (split.ts's splitEvenly).
  test.each([
    [8, 3, [3, 3, 2]],
    [64, 2, [32, 32]],
    [1, 2, [1, 0]],
    [10, 4, [3, 3, 2, 2]],
  ])('%i over %i → %j', (total, n, want) => {
    expect(Array.from({ length: n }, (_, k) => Part.whole.sub(k, n).share(total))).toEqual(want);
    expect(want.reduce((a, b) => a + b, 0)).toBe(total);
  });

  test.each([
    [100, 3],
    [7, 2],
    [1, 4],
    [1000, 7],
  ])('requests %i over %i workers: the shares add up and differ by at most one', (requests, n) => {
    const shares = Array.from({ length: n }, (_, k) => Part.whole.sub(k, n).share(requests));
    expect(shares.reduce((a, b) => a + b, 0)).toBe(requests);
    expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
  });

  // The stage users a worker runs (split.ts's shareStageUsers): its part of its process's users.
  test.each([
    [0, 1, undefined, { index: 0, count: 1 }],
    [1, 3, undefined, { index: 1, count: 3 }],
    // Worker 1 of 2 inside shard 2 of 3: the run's users 2 + 3·1, then every 6th.
    [1, 2, { index: 2, count: 3 }, { index: 5, count: 6 }],
  ])('worker %i of %i (part %j) runs stage users %j', (k, n, part, want) => {
    expect((part ? Part.of(part) : Part.whole).sub(k, n)).toEqual(want);
  });

  test.each([
    [10, 3, 2],
    [64, 10, 3],
    [7, 2, 4],
  ])('a sub-part’s share of %i (shard of %i, %i workers) is its share of its shard’s', (total, shards, n) => {
    for (const shard of parts(shards)) {
      const shares = Array.from({ length: n }, (_, k) => shard.sub(k, n).share(total));
      expect(shares).toEqual(
        Array.from({ length: n }, (_, k) => Part.whole.sub(k, n).share(shard.share(total))),
      );
    }
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
