import { describe, expect, it } from 'vitest';
import { RUN_COLORS, runColor } from './sections.js';

const rgb = (c: string) => [1, 3, 5].map((i) => Number.parseInt(c.slice(i, i + 2), 16));
const distance = (a: string, b: string) => {
  const [x, y] = [rgb(a), rgb(b)];
  return Math.hypot(x[0]! - y[0]!, x[1]! - y[1]!, x[2]! - y[2]!);
};

describe('run colours', () => {
  it('keep the first runs well apart, beyond ten runs too', () => {
    expect(RUN_COLORS.length).toBeGreaterThanOrEqual(18);
    const first = Array.from({ length: RUN_COLORS.length }, (_, i) => runColor(i));
    for (let i = 0; i < first.length; i++) {
      for (let j = 0; j < i; j++)
        expect(distance(first[i]!, first[j]!), `${first[i]} ${first[j]}`).toBeGreaterThan(55);
    }
  });

  it('never repeat a colour, and are valid #rrggbb (the charts add an alpha suffix)', () => {
    const many = Array.from({ length: 60 }, (_, i) => runColor(i));
    expect(new Set(many).size).toBe(60);
    for (const c of many) expect(c).toMatch(/^#[0-9a-f]{6}$/);
  });
});
