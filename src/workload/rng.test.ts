import { describe, expect, test } from 'vitest';
import { createRng } from './rng.js';

function moments(xs: number[]): { mean: number; variance: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1);
  return { mean, variance };
}

describe('createRng', () => {
  test('same seed gives the same sequence; numbers and strings are the same key', () => {
    const a = createRng(42);
    const b = createRng('42');
    const xs = Array.from({ length: 50 }, () => a.next());
    const ys = Array.from({ length: 50 }, () => b.next());
    expect(xs).toEqual(ys);
    expect(new Set(xs).size).toBe(50);
  });

  test('different seeds give different sequences', () => {
    expect(createRng(1).next()).not.toBe(createRng(2).next());
  });

  test('next() stays in [0, 1) and is roughly uniform', () => {
    const rng = createRng(7);
    const buckets = new Array(10).fill(0);
    const n = 100_000;
    let outside = 0;
    for (let i = 0; i < n; i++) {
      const x = rng.next();
      if (!(x >= 0 && x < 1)) outside++;
      else buckets[Math.floor(x * 10)]++;
    }
    expect(outside).toBe(0);
    for (const count of buckets) expect(Math.abs(count - n / 10)).toBeLessThan(n / 10 / 20);
  });

  test('int(n) covers 0..n-1 and nothing else', () => {
    const rng = createRng(3);
    const seen = new Set<number>();
    for (let i = 0; i < 5000; i++) seen.add(rng.int(7));
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  test('fork depends only on the key, not on draws from the parent or sibling forks', () => {
    const fresh = createRng(9).fork('arrivals');
    const parent = createRng(9);
    for (let i = 0; i < 100; i++) parent.next();
    const sibling = parent.fork('cancels');
    for (let i = 0; i < 100; i++) sibling.next();
    const late = parent.fork('arrivals');
    expect(late.key).toBe('9/arrivals');
    expect(Array.from({ length: 20 }, () => late.next())).toEqual(
      Array.from({ length: 20 }, () => fresh.next()),
    );
    expect(createRng(9).fork('a').next()).not.toBe(createRng(9).fork('b').next());
  });

  test('clone continues from the same position, then advances separately', () => {
    const rng = createRng(5);
    rng.next();
    rng.normal(); // leaves a spare normal behind
    const copy = rng.clone();
    expect(copy.normal()).toBe(rng.normal());
    expect(copy.next()).toBe(rng.next());
    copy.next();
    expect(copy.next()).not.toBe(rng.next());
  });

  test('normal() has mean 0 and variance 1', () => {
    const rng = createRng(11);
    const { mean, variance } = moments(Array.from({ length: 50_000 }, () => rng.normal()));
    expect(Math.abs(mean)).toBeLessThan(0.02);
    expect(Math.abs(variance - 1)).toBeLessThan(0.03);
  });

  test.each([
    [0.25, 2],
    [0.5, 1],
    [1, 100],
    [2.5, 0.4],
    [10, 3],
  ])('gamma(shape %f, scale %f) has mean kθ and variance kθ²', (shape, scale) => {
    const rng = createRng(`gamma-${shape}`);
    const xs = Array.from({ length: 40_000 }, () => rng.gamma(shape, scale));
    expect(xs.every((x) => x >= 0 && Number.isFinite(x))).toBe(true);
    const { mean, variance } = moments(xs);
    expect(Math.abs(mean / (shape * scale) - 1)).toBeLessThan(0.03);
    expect(Math.abs(variance / (shape * scale * scale) - 1)).toBeLessThan(0.1);
  });

  test('gamma rejects a non-positive shape or scale', () => {
    expect(() => createRng(1).gamma(0, 1)).toThrow(RangeError);
    expect(() => createRng(1).gamma(1, -1)).toThrow(RangeError);
  });
});
