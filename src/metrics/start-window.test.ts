import { describe, expect, test } from 'vitest';
import { mergeStartWindows, START_WINDOW_MS, StartWindowTally } from './start-window.js';

describe('StartWindowTally', () => {
  test('nothing sent: no window', () => {
    expect(new StartWindowTally().result()).toBeUndefined();
  });

  test('splits the sends at the window, each side with its own p99', () => {
    const t = new StartWindowTally();
    // 100 sends in the first second, one of them 30 ms late; 300 after it at 1 ms.
    for (let k = 0; k < 100; k++) t.add(k * 9.99, k === 50 ? 30 : 0.5);
    for (let k = 0; k < 300; k++) t.add(START_WINDOW_MS + k, 1);
    const w = t.result()!;
    expect(w).toMatchObject({ ms: START_WINDOW_MS, sends: 100, laterSends: 300 });
    // The 99th of 100 sends is a 0.5 ms one; the 30 ms send is the max, above the p99.
    expect(w.p99Ms).toBeCloseTo(0.5, 1);
    expect(w.laterP99Ms).toBeCloseTo(1, 1);
  });

  test('a send at the window edge counts after it', () => {
    const t = new StartWindowTally();
    t.add(START_WINDOW_MS, 5);
    expect(t.result()).toMatchObject({ sends: 0, p99Ms: 0, laterSends: 1 });
    expect(t.result()!.laterP99Ms).toBeCloseTo(5, 1);
  });
});

describe('mergeStartWindows', () => {
  test.each([
    ['none', [], undefined],
    ['only parts without one', [undefined, undefined], undefined],
    [
      'sends added, the largest p99 standing for each',
      [
        { ms: 1000, sends: 1000, p99Ms: 6, laterSends: 9000, laterP99Ms: 2 },
        undefined,
        { ms: 1000, sends: 900, p99Ms: 4, laterSends: 8000, laterP99Ms: 3 },
      ],
      { ms: 1000, sends: 1900, p99Ms: 6, laterSends: 17000, laterP99Ms: 3 },
    ],
  ])('%s', (_name, parts, merged) => {
    expect(mergeStartWindows(parts)).toEqual(merged);
  });
});
