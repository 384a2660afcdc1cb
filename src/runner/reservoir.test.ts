import { describe, expect, it } from 'vitest';
import { createRng } from '../workload/index.js';
import { Reservoir } from './reservoir.js';

describe('Reservoir', () => {
  it('keeps everything below capacity, in order', () => {
    const r = new Reservoir<number>(10, Math.random);
    for (let i = 0; i < 7; i++) r.offer(() => i);
    expect(r.items).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(r.offered).toBe(7);
  });

  it('never holds more than its capacity and samples the stream uniformly', () => {
    const n = 10_000;
    const capacity = 100;
    const hits = new Array<number>(10).fill(0);
    const rng = createRng('reservoir-test');
    const trials = 300;
    for (let t = 0; t < trials; t++) {
      const r = new Reservoir<number>(capacity, () => rng.next());
      for (let i = 0; i < n; i++) r.offer(() => i);
      expect(r.items).toHaveLength(capacity);
      expect(new Set(r.items).size).toBe(capacity);
      for (const v of r.items) hits[Math.floor((v / n) * 10)]!++;
    }
    // Each tenth of the stream should hold a tenth of the sample: 3000 of 30000, ± a few σ (σ ≈ 52).
    for (const h of hits) expect(Math.abs(h - (trials * capacity) / 10)).toBeLessThan(300);
  });

  it('builds an item only when it is kept', () => {
    let built = 0;
    const r = new Reservoir<number>(5, () => 0.999);
    for (let i = 0; i < 1000; i++)
      r.offer(() => {
        built++;
        return i;
      });
    expect(built).toBe(5);
  });
});

describe('Reservoir.slot', () => {
  it('picks the same slots as offer keeps items in, for the same random stream', () => {
    const a = createRng('reservoir-slots');
    const b = createRng('reservoir-slots');
    const kept = new Reservoir<number>(50, () => a.next());
    const slots = new Reservoir<never>(50, () => b.next());
    const mine: number[] = [];
    for (let i = 0; i < 5000; i++) {
      kept.offer(() => i);
      const slot = slots.slot();
      if (slot >= 0) mine[slot] = i;
    }
    expect(mine).toEqual(kept.items);
    expect(slots.size).toBe(50);
    expect(slots.offered).toBe(5000);
  });
});
