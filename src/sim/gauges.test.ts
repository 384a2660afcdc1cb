import { describe, expect, it } from 'vitest';
import { simulateVirtual, type VirtualRequest } from './virtual.js';

const requests = (n: number, promptTokens: number, outputTokens: number): VirtualRequest[] =>
  Array.from({ length: n }, () => ({ promptTokens, outputTokens }));

describe('the engine’s gauges over simulated time', () => {
  it('see the queue when more requests arrive than sequences may run', () => {
    const few = simulateVirtual(requests(16, 256, 32), { concurrency: 16, engine: { maxNumSeqs: 4 } });
    const many = simulateVirtual(requests(16, 256, 32), { concurrency: 16, engine: { maxNumSeqs: 64 } });
    expect(few.gauges.running?.max).toBe(4);
    expect(few.gauges.waiting?.max).toBe(12);
    expect(few.gauges.waiting?.mean).toBeGreaterThan(1);
    expect(many.gauges.waiting?.max).toBe(0);
    expect(many.gauges.running?.max).toBe(16);
  });

  it('hold KV usage and fragmentation as ratios, fragmentation from partly filled blocks', () => {
    // 16-token blocks: a 20-token prompt leaves its second block mostly empty.
    const r = simulateVirtual(requests(8, 20, 4), { concurrency: 8, engine: { numGpuBlocksOverride: 64 } });
    const usage = r.gauges.kvUsage;
    const frag = r.gauges.kvFragmentation;
    expect(usage?.max).toBeGreaterThan(0);
    expect(usage?.max).toBeLessThanOrEqual(1);
    expect(frag?.mean).toBeGreaterThan(0.2);
    expect(frag?.max).toBeLessThanOrEqual(1);
    expect(frag?.min).toBeLessThanOrEqual(frag?.mean ?? 0);
  });
});
