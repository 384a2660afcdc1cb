import { describe, expect, it } from 'vitest';
import {
  bucketMedians,
  cdfPoints,
  LogHistogram,
  medianOfSorted,
  NumberColumn,
  rangeMedians,
  TimeBuckets,
  thinScatter,
  type XRange,
} from './series.js';

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Plain reference: percent of values ≤ x. */
function fractionAtOrBelow(values: number[], x: number): number {
  return (values.filter((v) => v <= x).length / values.length) * 100;
}

/** Plain reference: nearest-rank quantile. */
function nearestRank(values: number[], q: number): number {
  const s = values.slice().sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(q * s.length) - 1)]!;
}

describe('cdfPoints', () => {
  const rnd = seeded(3);
  const cases = [
    { name: '10 values', values: Array.from({ length: 10 }, (_, i) => i * 3 + 1) },
    { name: '5000 distinct values', values: Array.from({ length: 5000 }, () => rnd() * 1000) },
    { name: 'one value', values: [42] },
  ];
  for (const c of cases) {
    it(`every point matches the empirical CDF: ${c.name}`, () => {
      const sorted = Float64Array.from(c.values).sort();
      const points = cdfPoints(sorted, 200);
      expect(points.x.length).toBeGreaterThan(0);
      for (let i = 0; i < points.x.length; i++) {
        expect(points.y[i]).toBeCloseTo(fractionAtOrBelow(c.values, points.x[i]!), 9);
      }
      expect(points.x[0]).toBe(Math.min(...c.values));
      expect(points.x[points.x.length - 1]).toBe(Math.max(...c.values));
      expect(points.y[points.y.length - 1]).toBe(100);
    });
  }

  it('stays small for large inputs and keeps a dense tail', () => {
    const sorted = Float64Array.from({ length: 100_000 }, (_, i) => i);
    const points = cdfPoints(sorted, 1000);
    expect(points.x.length).toBeLessThan(1200);
    expect(points.y.filter((y) => y >= 99).length).toBeGreaterThan(30);
    expect(cdfPoints(new Float64Array(0))).toEqual({ x: [], y: [] });
  });
});

describe('LogHistogram', () => {
  const rnd = seeded(11);
  const values = Array.from({ length: 20_000 }, () => Math.exp(rnd() * 8) / 10);
  const hist = new LogHistogram(1.01);
  for (const v of values) hist.add(v);
  for (const q of [0.01, 0.5, 0.9, 0.99, 0.999, 1]) {
    it(`quantile ${q} is within 1% of the exact nearest-rank value`, () => {
      const exact = nearestRank(values, q);
      expect(Math.abs(hist.quantile(q) - exact) / exact).toBeLessThanOrEqual(0.0101);
    });
  }
  it('cdf rises monotonically from the minimum to 100% at the maximum', () => {
    const { x, y } = hist.cdf();
    expect(x[0]).toBe(Math.min(...values));
    expect(x[x.length - 1]).toBe(Math.max(...values));
    expect(y[y.length - 1]).toBe(100);
    for (let i = 1; i < x.length; i++) {
      expect(x[i]!).toBeGreaterThanOrEqual(x[i - 1]!);
      expect(y[i]!).toBeGreaterThan(y[i - 1]!);
    }
    expect(hist.count).toBe(values.length);
  });
});

describe('TimeBuckets', () => {
  /** Plain reference: average occupancy of each bucket by direct overlap. */
  function referenceOccupancy(intervals: Array<[number, number]>, width: number, buckets: number): number[] {
    return Array.from({ length: buckets }, (_, b) =>
      intervals.reduce(
        (s, [a, e]) => s + Math.max(0, Math.min(e, (b + 1) * width) - Math.max(a, b * width)) / width,
        0,
      ),
    );
  }
  const rnd = seeded(5);
  const cases: Array<{ name: string; intervals: Array<[number, number]>; width: number }> = [
    { name: 'inside one bucket', intervals: [[1, 3]], width: 10 },
    {
      name: 'spanning many buckets',
      intervals: [
        [5, 95],
        [0, 10],
        [12, 31],
      ],
      width: 10,
    },
    {
      name: '300 random intervals, growing past the initial size',
      intervals: Array.from({ length: 300 }, () => {
        const a = rnd() * 5000;
        return [a, a + rnd() * 800] as [number, number];
      }),
      width: 7,
    },
  ];
  for (const c of cases) {
    it(`interval occupancy matches direct overlap: ${c.name}`, () => {
      const tb = new TimeBuckets(c.width);
      for (const [a, e] of c.intervals) tb.addInterval(a, e);
      const totals = tb.totals();
      const ref = referenceOccupancy(c.intervals, c.width, totals.length);
      totals.forEach((v, i) => {
        expect(v).toBeCloseTo(ref[i]!, 9);
      });
      expect(totals.length).toBe(Math.floor(Math.max(...c.intervals.map((i) => i[1])) / c.width) + 1);
    });
  }
  it('addAt sums values per bucket', () => {
    const tb = new TimeBuckets(100);
    tb.addAt(10, 2);
    tb.addAt(99, 3);
    tb.addAt(100, 1);
    tb.addAt(1050, 4);
    expect(tb.totals()).toEqual([5, 1, 0, 0, 0, 0, 0, 0, 0, 0, 4]);
  });
});

describe('thinScatter', () => {
  const rnd = seeded(9);
  const xs: number[] = [];
  const ys: number[] = [];
  // A dense band (90% of points with y < 10) and a sparse tail up to 100, plus one far outlier.
  for (let i = 0; i < 50_000; i++) {
    xs.push(rnd() * 1000);
    ys.push(rnd() < 0.9 ? rnd() * 10 : 10 + rnd() * 90);
  }
  xs.push(500);
  ys.push(9000);
  const out = thinScatter(xs, ys, 2000, 50, 30, 2);

  it('keeps about the target count, sorted by x, and the outlier', () => {
    expect(out.x.length).toBeGreaterThan(1900);
    expect(out.x.length).toBeLessThan(2600);
    expect(out.x).toContain(500);
    expect(out.y).toContain(9000);
    for (let i = 1; i < out.x.length; i++) expect(out.x[i]!).toBeGreaterThanOrEqual(out.x[i - 1]!);
  });

  it('keeps the density: the share of points in the dense band stays close to the input', () => {
    const share = (v: number[]) => v.filter((y) => y < 10).length / v.length;
    expect(Math.abs(share(out.y) - share(ys))).toBeLessThan(0.03);
  });

  it('keeps every point of a small input', () => {
    expect(thinScatter([3, 1, 2], [30, 10, 20])).toEqual({ x: [1, 2, 3], y: [10, 20, 30] });
  });
});

describe('bucketMedians and medianOfSorted', () => {
  it.each([
    { sorted: [1], median: 1 },
    { sorted: [1, 3], median: 2 },
    { sorted: [1, 2, 10], median: 2 },
  ])('median of $sorted is $median', ({ sorted, median }) => {
    expect(medianOfSorted(sorted)).toBe(median);
  });
  it('gives one median per non-empty equal-width bucket, a gap where empty buckets lie between', () => {
    // x in two clusters: 0..9 (y = 2x) and 90..99 (y = 1000 + x)
    const xs = [...Array.from({ length: 10 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => 90 + i)];
    const ys = xs.map((x) => (x < 50 ? 2 * x : 1000 + x));
    const out = bucketMedians(xs, ys, 10);
    expect(out.x).toEqual([4.5, 9.9, 94.5]);
    expect(out.y).toEqual([9, Number.NaN, 1094.5]);
  });
  it('one bucket for equal x values', () => {
    expect(bucketMedians([5, 5, 5], [1, 2, 9])).toEqual({ x: [5], y: [2] });
  });
});

describe('rangeMedians', () => {
  const ranges: XRange[] = [
    [0, 100],
    [100, 200],
    [200, 400],
    [512, 1024],
  ];
  it.each([
    {
      name: 'adjacent non-empty ranges join: no gap',
      xs: [10, 20, 30, 150, 160],
      ys: [1, 2, 3, 10, 30],
      out: { x: [20, 155], y: [2, 20] },
    },
    {
      name: 'an empty range between two: a gap at the end of the earlier one',
      xs: [10, 20, 300, 310],
      ys: [1, 3, 7, 9],
      out: { x: [15, 100, 305], y: [2, Number.NaN, 8] },
    },
    {
      name: 'ranges that do not touch (400 to 512 is no range): a gap between',
      xs: [300, 600, 700],
      ys: [5, 6, 8],
      out: { x: [300, 400, 650], y: [5, Number.NaN, 7] },
    },
    {
      name: 'points outside every range are ignored; the median sits where the points are, not mid-range',
      xs: [-5, 450, 520, 530, 2000],
      ys: [99, 99, 4, 6, 99],
      out: { x: [525], y: [5] },
    },
    { name: 'no points', xs: [], ys: [], out: { x: [], y: [] } },
  ])('$name', ({ xs, ys, out }) => {
    expect(rangeMedians(xs, ys, ranges)).toEqual(out);
  });
});

describe('TimeBuckets.addSpread', () => {
  it.each([
    { name: 'inside one bucket', spreads: [[10, 30, 4]], totals: [4] },
    { name: 'over two buckets, by overlap', spreads: [[50, 150, 10]], totals: [5, 5] },
    { name: 'over four buckets', spreads: [[75, 375, 30]], totals: [2.5, 10, 10, 7.5] },
    { name: 'an empty interval lands at its instant', spreads: [[120, 120, 3]], totals: [0, 3] },
  ])('$name', ({ spreads, totals }) => {
    const tb = new TimeBuckets(100);
    for (const [a, b, v] of spreads) tb.addSpread(a!, b!, v!);
    tb.totals().forEach((v, i) => {
      expect(v).toBeCloseTo(totals[i]!, 9);
    });
    expect(tb.totals()).toHaveLength(totals.length);
  });
});

describe('NumberColumn', () => {
  it('grows past its initial capacity and sorts numerically', () => {
    const col = new NumberColumn();
    for (let i = 3000; i > 0; i--) col.push(i / 10);
    expect(col.length).toBe(3000);
    const s = col.sorted();
    expect(s[0]).toBe(0.1);
    expect(s[2999]).toBe(300);
  });
});
