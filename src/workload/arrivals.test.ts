import { describe, expect, test } from 'vitest';
import { GoodputError } from '../errors.js';
import { ArrivalSchedule, arrivalOffsets } from './arrivals.js';
import { createRng } from './rng.js';

function take(gen: Iterator<number>, n: number): number[] {
  return Array.from({ length: n }, () => gen.next().value as number);
}

function gaps(offsets: number[]): number[] {
  return offsets.slice(1).map((t, i) => t - offsets[i]!);
}

describe('arrivalOffsets', () => {
  test('starts at 0 and never goes back', () => {
    const offsets = take(arrivalOffsets(50, 1, createRng(1)), 1000);
    expect(offsets[0]).toBe(0);
    for (let i = 1; i < offsets.length; i++) expect(offsets[i]!).toBeGreaterThanOrEqual(offsets[i - 1]!);
  });

  test.each([
    [10, 1],
    [100, 0.5],
    [4, 2],
    [1000, 4],
    [20, 0.25],
  ])('rate %f/s, burstiness %f: mean gap 1000/rate ms and CV² ≈ 1/burstiness', (rate, burstiness) => {
    const g = gaps(take(arrivalOffsets(rate, burstiness, createRng(`arr-${rate}-${burstiness}`)), 30_001));
    const mean = g.reduce((a, b) => a + b, 0) / g.length;
    const variance = g.reduce((a, b) => a + (b - mean) ** 2, 0) / (g.length - 1);
    expect(Math.abs(mean / (1000 / rate) - 1)).toBeLessThan(0.03);
    expect(Math.abs(variance / (mean * mean) / (1 / burstiness) - 1)).toBeLessThan(0.1);
  });

  test('rate Infinity schedules everything at 0', () => {
    expect(take(arrivalOffsets(Number.POSITIVE_INFINITY, 1, createRng(1)), 5)).toEqual([0, 0, 0, 0, 0]);
  });

  test.each([
    [0, 1],
    [-1, 1],
    [Number.NaN, 1],
    [10, 0],
    [10, Number.POSITIVE_INFINITY],
  ])('rate %f, burstiness %f is a usage error', (rate, burstiness) => {
    expect(() => arrivalOffsets(rate, burstiness, createRng(1)).next()).toThrow(GoodputError);
  });
});

describe('ArrivalSchedule', () => {
  test('gives the generator offsets in sequential, reverse and random order', () => {
    const expected = take(arrivalOffsets(30, 0.7, createRng(3).fork('arrivals')), 5000);
    const sequential = new ArrivalSchedule(30, 0.7, createRng(3).fork('arrivals'));
    expect(expected.map((_, k) => sequential.offsetAt(k))).toEqual(expected);
    const reverse = new ArrivalSchedule(30, 0.7, createRng(3).fork('arrivals'));
    for (let k = expected.length - 1; k >= 0; k -= 3) expect(reverse.offsetAt(k)).toBe(expected[k]);
    const random = new ArrivalSchedule(30, 0.7, createRng(3).fork('arrivals'));
    const pick = createRng('pick');
    for (let i = 0; i < 2000; i++) {
      const k = pick.int(expected.length);
      expect(random.offsetAt(k)).toBe(expected[k]);
    }
  });

  test('does not consume the rng it was given', () => {
    const rng = createRng(8);
    const before = rng.clone().next();
    new ArrivalSchedule(10, 1, rng).offsetAt(100);
    expect(rng.next()).toBe(before);
  });
});
