import { describe, expect, it } from 'vitest';
import type { SweepView } from './model.js';
import { paretoChart, paretoFrontier, sweepChart } from './sweep-charts.js';

/** Plain reference: a point is on the frontier when no other point is at least as good on both and better on one. */
function dominated(xs: number[], ys: number[], i: number): boolean {
  return xs.some((x, j) => j !== i && x >= xs[i]! && ys[j]! >= ys[i]! && (x > xs[i]! || ys[j]! > ys[i]!));
}

describe('paretoFrontier', () => {
  it.each([
    { name: 'already a frontier', x: [1, 2, 3], y: [9, 8, 5], out: { x: [1, 2, 3], y: [9, 8, 5] } },
    {
      name: 'past saturation throughput falls back: the later loads are dominated',
      x: [133, 506, 1579, 2512, 2520, 3509, 3300],
      y: [132, 130, 120, 112, 102, 108, 100],
      out: { x: [133, 506, 1579, 2512, 3509], y: [132, 130, 120, 112, 108] },
    },
    { name: 'two equal points: one kept', x: [5, 5, 1], y: [2, 2, 4], out: { x: [1, 5], y: [4, 2] } },
    { name: 'equal x: the higher y', x: [5, 5], y: [1, 3], out: { x: [5], y: [3] } },
    { name: 'no points', x: [], y: [], out: { x: [], y: [] } },
  ])('$name', ({ x, y, out }) => {
    expect(paretoFrontier({ x, y })).toEqual(out);
  });

  it('matches the plain reference on random points: x ascending, y descending, none dominated', () => {
    let s = 7;
    const rnd = () => {
      s = (s * 1664525 + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
    for (let trial = 0; trial < 20; trial++) {
      const xs = Array.from({ length: 30 }, () => Math.round(rnd() * 50));
      const ys = Array.from({ length: 30 }, () => Math.round(rnd() * 50));
      const f = paretoFrontier({ x: xs, y: ys });
      const expected = new Set(
        xs.map((x, i) => (dominated(xs, ys, i) ? '' : `${x},${ys[i]}`)).filter((k) => k !== ''),
      );
      expect(new Set(f.x.map((x, i) => `${x},${f.y[i]}`))).toEqual(expected);
      for (let i = 1; i < f.x.length; i++) {
        expect(f.x[i]!).toBeGreaterThan(f.x[i - 1]!);
        expect(f.y[i]!).toBeLessThan(f.y[i - 1]!);
      }
    }
  });
});

const view: SweepView = {
  loadLabel: 'concurrency',
  points: [1, 4, 16, 64].map((load, i) => ({
    load,
    values: {
      output_throughput: [130, 500, 1600, 1500][i]!,
      user_tps_p50: [130, 128, 110, 90][i]!,
      ttft_p99: 20 * load,
      tpot_p99: 8 + load / 10,
      e2el_p99: 400 + 20 * load,
    },
  })),
  saturationLoad: 16,
  capacityAtSloLoad: 16,
  notes: [],
};

describe('sweep charts', () => {
  it('TPOT p99 has an axis of its own, apart from TTFT and E2EL', () => {
    const [spec] = sweepChart(view);
    const axisOf = (label: string) => spec!.series.find((s) => s.label.startsWith(label))?.axis ?? 0;
    expect(axisOf('TPOT p99')).toBe(2);
    expect(axisOf('E2EL p99')).toBe(1);
    expect(axisOf('TTFT p99')).toBe(1);
    expect(axisOf('Output throughput')).toBe(0);
    expect(spec!.y3Label).toBe('TPOT p99 (ms per token)');
  });

  it('Pareto: every load as a point, the frontier as a line without the dominated load', () => {
    const [spec] = paretoChart(view);
    const [points, frontier] = spec!.series;
    expect(points!.style).toBe('points');
    expect(points!.data.x).toEqual([130, 500, 1500, 1600]);
    expect(frontier!.data).toEqual({ x: [130, 500, 1600], y: [130, 128, 110] });
  });
});
