import { describe, expect, test } from 'vitest';
import type { LoadSpec } from '../types.js';
import { checkShard, inShard, peakInFlight, shardLoad } from './shard.js';

const closed: LoadSpec = {
  mode: 'closed',
  concurrency: 10,
  requests: 100,
  warmup: 4,
  timeoutMs: 1000,
  maxRetries: 0,
};
const open: LoadSpec = {
  mode: 'open',
  rate: 50,
  maxConcurrency: 7,
  requests: 10,
  warmup: 0,
  timeoutMs: 1000,
  maxRetries: 0,
};

describe('shardLoad', () => {
  test.each([
    [closed, 0, 3, { concurrency: 4, requests: 34, warmup: 2 }],
    [closed, 2, 3, { concurrency: 3, requests: 33, warmup: 1 }],
    [open, 1, 2, { rate: 50, maxConcurrency: 3, requests: 5, warmup: 0 }],
  ])('%#', (load, index, count, expected) => {
    expect(shardLoad(load, { index, count })).toMatchObject(expected);
  });

  test('a run bounded by duration stays so', () => {
    const { requests: _, ...byTime } = closed;
    expect(shardLoad({ ...byTime, durationMs: 5000 }, { index: 1, count: 2 })).toMatchObject({
      durationMs: 5000,
      concurrency: 5,
    });
  });
});

test('inShard follows the measured position, warmup apart', () => {
  const part = { index: 1, count: 3 };
  expect([0, 1, 2, 3, 4].map((i) => inShard(i, 2, part))).toEqual([false, true, false, true, false]);
});

test.each([
  [[], 0],
  [[[0, 10]], 1],
  [
    [
      [0, 10],
      [5, 15],
      [9, 20],
    ],
    3,
  ],
  [
    [
      [0, 5],
      [5, 10],
    ],
    1,
  ], // one ended as the other began
  [
    [
      [0, 2],
      [3, 4],
      [1, 3.5],
    ],
    2,
  ],
] as Array<[Array<[number, number]>, number]>)('peakInFlight %j = %i', (spans, peak) => {
  expect(peakInFlight(spans)).toBe(peak);
});

describe('checkShard', () => {
  test.each([
    [{ ...closed, concurrency: 2 }, 3, false, /--concurrency 2 cannot be split over 3 shards/],
    [{ ...closed, requests: 2 }, 3, false, /--requests 2 leaves some of the 3 shards nothing/],
    [{ ...open, maxConcurrency: 1 }, 2, false, /--max-concurrency 1 cannot be split/],
    [open, 2, true, /--max-concurrency with --shard in virtual time/],
  ] as const)('%# refused', (load, count, virtual, message) => {
    expect(() => checkShard(load, { index: 0, count }, virtual)).toThrow(message);
  });

  test('a load every shard can share passes', () => {
    expect(() => checkShard(closed, { index: 0, count: 10 }, false)).not.toThrow();
    expect(() => checkShard(open, { index: 0, count: 7 }, false)).not.toThrow();
  });
});
