import { describe, expect, it } from 'vitest';
import { gcPausesOf, watchGcPauses } from './gc-pauses.js';

describe('watchGcPauses', () => {
  it('counts the pauses of a burst of garbage, the queued ones included', async () => {
    const watch = watchGcPauses();
    // Some ten megabytes of short-lived objects: several scavenges at least.
    let keep = 0;
    for (let round = 0; round < 10; round++) {
      const junk = Array.from({ length: 30_000 }, (_, i) => ({ i, s: `x${i}` }));
      keep += junk.length;
    }
    expect(keep).toBe(300_000);
    const gc = await watch.stop();
    expect(gc.count).toBeGreaterThan(0);
    expect(gc.maxMs).toBeGreaterThan(0);
    expect(gc.maxMs).toBeGreaterThanOrEqual(gc.p99Ms * 0.999);
    expect(gc.totalMs).toBeGreaterThanOrEqual(gc.maxMs);
    // Stopped: later garbage is not counted.
    await new Promise((r) => setTimeout(r, 5));
    expect((await watch.stop()).count).toBe(gc.count);
  });

  it('rounds to microseconds', () => {
    expect(gcPausesOf(3, 1.23456, 0.98765, 1.00049)).toEqual({
      count: 3,
      totalMs: 1.235,
      p99Ms: 0.988,
      maxMs: 1,
    });
  });
});
