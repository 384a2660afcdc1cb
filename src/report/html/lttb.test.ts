import { describe, expect, it } from 'vitest';
import { lttb, type XY } from './lttb.js';

/** Plain reference: the textbook LTTB, written with explicit bucket arrays. */
function referenceLttb(points: Array<[number, number]>, threshold: number): Array<[number, number]> {
  if (threshold >= points.length || threshold < 3) return points.slice();
  const interior = points.slice(1, -1);
  const size = interior.length / (threshold - 2);
  const buckets: Array<Array<[number, number]>> = [];
  for (let i = 0; i < threshold - 2; i++) {
    buckets.push(interior.slice(Math.floor(i * size), Math.floor((i + 1) * size)));
  }
  const out: Array<[number, number]> = [points[0]!];
  for (let i = 0; i < buckets.length; i++) {
    const next = i + 1 < buckets.length ? buckets[i + 1]! : [points[points.length - 1]!];
    const avg = next.reduce((s, p) => [s[0] + p[0] / next.length, s[1] + p[1] / next.length], [0, 0]);
    const prev = out[out.length - 1]!;
    let best = buckets[i]![0]!;
    let bestArea = -1;
    for (const p of buckets[i]!) {
      // Twice the triangle area via the shoelace formula.
      const area = Math.abs(
        prev[0] * (p[1] - avg[1]) + p[0] * (avg[1] - prev[1]) + avg[0] * (prev[1] - p[1]),
      );
      if (area > bestArea) {
        bestArea = area;
        best = p;
      }
    }
    out.push(best);
  }
  out.push(points[points.length - 1]!);
  return out;
}

function toXY(points: Array<[number, number]>): XY {
  return { x: points.map((p) => p[0]), y: points.map((p) => p[1]) };
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('lttb', () => {
  const rnd = seeded(7);
  const noisy: Array<[number, number]> = Array.from({ length: 1000 }, (_, i) => [
    i * 0.5,
    Math.sin(i / 40) * 10 + rnd(),
  ]);
  const spiky: Array<[number, number]> = Array.from({ length: 500 }, (_, i) => [i, i === 321 ? 1000 : i % 7]);
  const cases: Array<{ name: string; points: Array<[number, number]>; threshold: number }> = [
    { name: 'noisy sine to 100', points: noisy, threshold: 100 },
    { name: 'noisy sine to 3', points: noisy, threshold: 3 },
    { name: 'noisy sine to 999', points: noisy, threshold: 999 },
    { name: 'spike to 20', points: spiky, threshold: 20 },
    {
      name: 'uneven x to 7',
      points: [
        [0, 1],
        [1, 5],
        [3, 2],
        [4, 8],
        [9, 0],
        [10, 3],
        [12, 7],
        [20, 1],
        [21, 4],
        [30, 2],
      ],
      threshold: 7,
    },
  ];
  for (const c of cases) {
    it(`matches the reference: ${c.name}`, () => {
      expect(lttb(toXY(c.points), c.threshold)).toEqual(toXY(referenceLttb(c.points, c.threshold)));
    });
  }

  it('keeps first, last, the spike, and returns exactly threshold points in order', () => {
    const out = lttb(toXY(spiky), 20);
    expect(out.x).toHaveLength(20);
    expect(out.x[0]).toBe(0);
    expect(out.x[19]).toBe(499);
    expect(out.y).toContain(1000);
    for (let i = 1; i < out.x.length; i++) expect(out.x[i]!).toBeGreaterThan(out.x[i - 1]!);
  });

  it('returns the input unchanged when it is already small enough', () => {
    const s = { x: [1, 2, 3], y: [4, 5, 6] };
    expect(lttb(s, 10)).toEqual(s);
    expect(lttb(s, 2)).toEqual(s);
  });
});
