import { describe, expect, test } from 'vitest';
import type { GcPauses } from '../types.js';
import { mergeGcPauses } from './gc-pauses.js';

const g = (
  count: number,
  totalMs: number,
  p99Ms: number,
  maxMs: number,
  heapFlag?: string,
  pretenuringFlag?: string,
): GcPauses => ({
  count,
  totalMs,
  p99Ms,
  maxMs,
  ...(heapFlag ? { heapFlag } : {}),
  ...(pretenuringFlag ? { pretenuringFlag } : {}),
});
const FLAG = '--initial-old-space-size=64';
const OFF = '--no-allocation-site-pretenuring';

describe('mergeGcPauses: counts and time summed, p99 and longest the largest of the parts', () => {
  test.each<[string, Array<GcPauses | undefined>, GcPauses | undefined]>([
    ['no part measured any', [undefined, undefined], undefined],
    ['nothing to merge', [], undefined],
    ['one part is itself', [g(3, 12.5, 6, 6.2)], g(3, 12.5, 6, 6.2)],
    ['two generators', [g(3, 12, 6, 6), g(1, 40, 40, 40)], g(4, 52, 40, 40)],
    ['a part without pauses adds nothing', [g(2, 5, 3, 3), undefined, g(0, 0, 0, 0)], g(2, 5, 3, 3)],
    [
      'the longest and the p99 may come from different parts',
      [g(100, 300, 9, 80), g(50, 400, 12, 20)],
      g(150, 700, 12, 80),
    ],
    ['sums rounded to microseconds', [g(1, 0.1, 0.1, 0.1), g(1, 0.2, 0.2, 0.2)], g(2, 0.3, 0.2, 0.2)],
    [
      'the heap flag stays when every part had one',
      [g(1, 2, 2, 2, FLAG), g(1, 3, 3, 3, FLAG)],
      g(2, 5, 3, 3, FLAG),
    ],
    ['one part without the heap flag drops it', [g(1, 2, 2, 2, FLAG), g(1, 3, 3, 3)], g(2, 5, 3, 3)],
    ['a part that measured nothing does not drop it', [undefined, g(1, 2, 2, 2, FLAG)], g(1, 2, 2, 2, FLAG)],
    [
      'the pretenuring flag stays when every part had it',
      [g(1, 2, 2, 2, FLAG, OFF), g(1, 3, 3, 3, FLAG, OFF)],
      g(2, 5, 3, 3, FLAG, OFF),
    ],
    [
      'one part with pretenuring on drops it, and only it',
      [g(1, 2, 2, 2, FLAG, OFF), g(1, 3, 3, 3, FLAG)],
      g(2, 5, 3, 3, FLAG),
    ],
  ])('%s', (_, parts, expected) => {
    expect(mergeGcPauses(parts)).toEqual(expected);
  });

  test('the p99 stands as an upper bound of the pooled pauses p99 (nearest rank)', () => {
    const nearest = (xs: number[], p: number) =>
      [...xs].sort((a, b) => a - b)[Math.ceil((p / 100) * xs.length) - 1]!;
    const a = Array.from({ length: 200 }, (_, i) => 1 + (i % 7));
    const b = Array.from({ length: 300 }, (_, i) => 2 + ((i * 13) % 29));
    const part = (xs: number[]) =>
      g(
        xs.length,
        xs.reduce((s, x) => s + x, 0),
        nearest(xs, 99),
        Math.max(...xs),
      );
    const merged = mergeGcPauses([part(a), part(b)])!;
    expect(merged.p99Ms).toBeGreaterThanOrEqual(nearest([...a, ...b], 99));
    expect(merged.maxMs).toBe(Math.max(...a, ...b));
    expect(merged.count).toBe(500);
  });
});
