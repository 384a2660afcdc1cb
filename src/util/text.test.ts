import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from './text.js';

/** Plain recursive Levenshtein as the reference. */
function referenceDistance(a: string, b: string): number {
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const cost = a[0] === b[0] ? 0 : 1;
  return Math.min(
    referenceDistance(a.slice(1), b) + 1,
    referenceDistance(a, b.slice(1)) + 1,
    referenceDistance(a.slice(1), b.slice(1)) + cost,
  );
}

describe('editDistance', () => {
  const words = ['', 'a', 'rate', 'rte', 'url', 'urls', 'model', 'modle', 'kitten', 'sitting', 'json'];
  it('matches the recursive definition on every pair', () => {
    for (const a of words) for (const b of words) expect(editDistance(a, b)).toBe(referenceDistance(a, b));
  });
  it('suggests only within reach', () => {
    expect(closestName('concurency', ['concurrency', 'rate'])).toBe('concurrency');
    expect(closestName('xyz', ['concurrency', 'rate'])).toBeUndefined();
  });
});
