import { describe, expect, it } from 'vitest';
import { relativeDelta } from './comparison.js';

describe('relativeDelta', () => {
  it.each([
    { base: 100, value: 110, expected: 0.1 },
    { base: 100, value: 50, expected: -0.5 },
    { base: -4, value: -2, expected: 0.5 },
    { base: 0, value: 0, expected: 0 },
    { base: 0, value: 3, expected: undefined },
    { base: undefined, value: 3, expected: undefined },
    { base: 5, value: Number.NaN, expected: undefined },
  ])('$base → $value is $expected', ({ base, value, expected }) => {
    const d = relativeDelta(base, value);
    if (expected === undefined) expect(d).toBeUndefined();
    else expect(d).toBeCloseTo(expected, 12);
  });
});
