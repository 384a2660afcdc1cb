import { describe, expect, test } from 'vitest';
import { OPEN_BUCKET_MAX, PromptBuckets, promptBucketRange } from './prompt-buckets.js';
import { SecondBins } from './second-bins.js';

/** Reference: the power-of-two bucket by walking doublings. */
function pow2Reference(tokens: number): [number, number] {
  if (tokens < 1) return [0, 1];
  let lo = 1;
  while (lo * 2 <= tokens) lo *= 2;
  return [lo, lo * 2];
}

describe('promptBucketRange', () => {
  test('powers of two for every length up to 20,000 and at exact powers up to 2^40', () => {
    for (let t = 0; t <= 20_000; t++) expect(promptBucketRange(t, 'pow2')).toEqual(pow2Reference(t));
    for (let k = 0; k <= 40; k++) {
      for (const t of [2 ** k - 1, 2 ** k, 2 ** k + 1])
        expect(promptBucketRange(t, 'pow2')).toEqual(pow2Reference(t));
    }
  });

  test.each([
    { tokens: 0, edges: [256, 1024], want: [0, 256] },
    { tokens: 255, edges: [256, 1024], want: [0, 256] },
    { tokens: 256, edges: [256, 1024], want: [256, 1024] },
    { tokens: 1023, edges: [1024, 256], want: [256, 1024] },
    { tokens: 1024, edges: [256, 1024], want: [1024, OPEN_BUCKET_MAX] },
    { tokens: 5, edges: [0, 10, 10], want: [0, 10] },
    { tokens: 5, edges: [], want: [0, OPEN_BUCKET_MAX] },
  ])('$tokens tokens with edges $edges → $want', ({ tokens, edges, want }) => {
    expect(promptBucketRange(tokens, edges)).toEqual(want);
  });

  test('PromptBuckets counts every entry and lists buckets in order', () => {
    const b = new PromptBuckets();
    for (const t of [3000, 1, 100, 127, 128, 3000]) b.enter(t).ttft.record(t / 10);
    expect(b.toBuckets().map((x) => [x.minTokens, x.maxTokens, x.count, x.ttft.max])).toEqual([
      [1, 2, 1, 0.1],
      [64, 128, 2, 12.7],
      [128, 256, 1, 12.8],
      [2048, 4096, 2, 300],
    ]);
  });
});

describe('SecondBins', () => {
  test('peak of per-second sums, and spans count every second they touch', () => {
    const bins = new SecondBins();
    bins.addAt(999, 2);
    bins.addAt(1000, 3);
    bins.addAt(1999.9, 4);
    bins.addAt(5000, 1);
    expect(bins.peak()).toBe(7);
    const active = new SecondBins();
    active.addSpan(500, 2500); // seconds 0, 1, 2
    active.addSpan(1500, 1600); // second 1
    expect(active.peak()).toBe(2);
  });

  test('memory stays bounded and the peak survives eviction', () => {
    const bins = new SecondBins(64);
    bins.addAt(10_000, 500); // an early spike, evicted later
    for (let s = 11; s < 2000; s++) bins.addAt(s * 1000, s % 7);
    expect(bins.size).toBeLessThanOrEqual(64);
    expect(bins.peak()).toBe(500);
  });
});
