import { describe, expect, test } from 'vitest';
import { LatencyHistogram } from './histogram.js';
import { TurnStats } from './turns.js';

const decode = (encoded: string | undefined, stats: Parameters<typeof LatencyHistogram.decode>[1]) => {
  if (!stats || stats.count === 0) return new LatencyHistogram();
  if (!encoded) throw new Error('no histogram');
  return LatencyHistogram.decode(encoded, stats);
};

describe('TurnStats.mergeRows', () => {
  test('two parts merged through their rows are the rows of all their records in one place', () => {
    const a = new TurnStats();
    const b = new TurnStats();
    const all = new TurnStats();
    const records: Array<[number, number, boolean, number | undefined, number | undefined]> = [
      [1, 100, true, 40, 400],
      [1, 120, true, 55, 420],
      [2, 300, true, 12, 310],
      [2, 280, false, undefined, undefined],
      [3, 500, true, 9, 290],
      [1, 90, true, 61, 380],
      [3, 530, true, 11, 305],
    ];
    records.forEach((r, i) => {
      (i % 2 === 0 ? a : b).add(...r);
      all.add(...r);
    });
    const merged = new TurnStats();
    for (const part of [a, b]) merged.mergeRows(part.toRows(), part.laterRow(), decode);
    // The same figures; the histograms hold the same values (their encodings may differ in layout).
    const plain = (r: ReturnType<TurnStats['toRows']>[number] | undefined) => {
      const { ttftHistogram, e2elHistogram, ...rest } = r!;
      const h = decode(ttftHistogram, rest.ttft);
      const e = decode(e2elHistogram, rest.e2el);
      return {
        ...rest,
        decoded: [50, 90, 99].map((p) => h.percentile(p)),
        e2elDecoded: [50, 90, 99].map((p) => e.percentile(p)),
      };
    };
    expect(merged.toRows().map(plain)).toEqual(all.toRows().map(plain));
    expect(plain(merged.laterRow())).toEqual(plain(all.laterRow()));
    expect(merged.toRows().map((r) => [r.turn, r.requests, r.completed])).toEqual([
      [1, 3, 3],
      [2, 2, 1],
      [3, 2, 2],
    ]);
  });

  test('E2EL by turn: of the successful requests only, and absent after merging a row that has none', () => {
    const a = new TurnStats();
    a.add(1, 10, true, 5, 200);
    a.add(1, 10, true, 7, 300);
    a.add(1, 10, false, undefined, undefined);
    const [row] = a.toRows();
    expect(row!.e2el).toMatchObject({ count: 2, min: 200, max: 300 });
    // a summary written before rows had E2EL: the merged row shows none rather than a part
    const { e2el: _e2el, e2elHistogram: _h, ...older } = row!;
    const merged = new TurnStats();
    merged.mergeRows([row!, older], undefined, decode);
    expect(merged.toRows()[0]!.e2el).toBeUndefined();
    expect(merged.toRows()[0]!.completed).toBe(4);
  });

  test('a row with TTFTs but no histogram cannot be merged exactly', () => {
    const a = new TurnStats();
    a.add(1, 10, true, 5);
    const [row] = a.toRows();
    delete row!.ttftHistogram;
    expect(() => new TurnStats().mergeRows([row!], undefined, decode)).toThrow('no histogram');
  });
});
