import { describe, expect, it } from 'vitest';
import { gcPausesOf, heapFlagOf, pretenuringFlagOf, watchGcPauses } from './gc-pauses.js';

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

describe('heapFlagOf: the option of node that started the heap larger', () => {
  it.each<[string, string[], string | undefined]>([
    ['none', ['--expose-gc', '/x/goodput.js'], undefined],
    ['the goodput command', ['--initial-old-space-size=64', '/x/goodput.js'], '--initial-old-space-size=64'],
    ["V8's underscore spelling", ['--initial_old_space_size=128'], '--initial_old_space_size=128'],
    ['the whole heap', ['--initial-heap-size=256'], '--initial-heap-size=256'],
    [
      'the last of several, as V8 reads them',
      ['--initial-old-space-size=64', '--initial-heap-size=256'],
      '--initial-heap-size=256',
    ],
    ['a limit is not a start', ['--max-old-space-size=4096', '--max-semi-space-size=16'], undefined],
    ['a flag without a size', ['--initial-old-space-size'], undefined],
  ])('%s', (_, argv, expected) => {
    expect(heapFlagOf(argv)).toBe(expected);
  });
});

describe('pretenuringFlagOf: the option of node that turned allocation-site pretenuring off', () => {
  it.each<[string, string[], string | undefined]>([
    ['none', ['--initial-old-space-size=64', '/x/goodput.js'], undefined],
    [
      'the goodput command',
      ['--initial-old-space-size=64', '--no-allocation-site-pretenuring', '--v8-pool-size=1'],
      '--no-allocation-site-pretenuring',
    ],
    ["V8's underscore spelling", ['--no_allocation_site_pretenuring'], '--no_allocation_site_pretenuring'],
    [
      'turned on again after, as V8 reads them',
      ['--no-allocation-site-pretenuring', '--allocation-site-pretenuring'],
      undefined,
    ],
    [
      'turned on, then off',
      ['--allocation-site-pretenuring', '--no-allocation-site-pretenuring'],
      '--no-allocation-site-pretenuring',
    ],
    ['another flag of the same words', ['--trace-pretenuring'], undefined],
  ])('%s', (_, argv, expected) => {
    expect(pretenuringFlagOf(argv)).toBe(expected);
  });
});
