import { describe, expect, test } from 'vitest';
import { fakeSessions } from '../../../test/fixtures/sessions.js';
import type { LoadSpec } from '../../types.js';
import {
  checkShard,
  inShard,
  inShardRecord,
  peakInFlight,
  sessionNumber,
  shardLoad,
  shardSessions,
} from './shard.js';

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

describe('sessions of a shard', () => {
  const source = fakeSessions((s) => `s-${s + 1}`);

  test('shard i of N runs sessions i, i+N, … whole, at their starts, its turns at the shard’s positions', () => {
    // Warmup 3 over 2 shards: shard 1 has 1 warmup item (index 1), its measured turns are 3 + 1 + 2j.
    const part = { index: 1, count: 2 };
    const mine = shardSessions(source, 3, part);
    expect([0, 1, 2].map((s) => mine.session(s).id)).toEqual(['s-2', 's-4', 's-6']);
    expect([0, 1, 2].map((s) => mine.startMs!(s))).toEqual([100, 300, 500]);
    const s = mine.session(0);
    expect(s.turns).toBe(3);
    expect(s.thinkMs(2)).toBe(20);
    // The runner numbers the shard's turns from its own warmup count (1): 1, 2, 3 → 4, 6, 8.
    expect([1, 2, 3].map((local, t) => s.request(t, ['a', 'b'], local, false).index)).toEqual([4, 6, 8]);
    expect(shardSessions(source, 3, { index: 0, count: 1 })).toBe(source);
  });

  test.each([
    ['s-000001', 0],
    ['s-001234', 1233],
    ['w-000001', undefined],
    [undefined, undefined],
  ])('sessionNumber(%s) = %s', (id, want) => {
    expect(sessionNumber(id)).toBe(want);
  });

  test('a virtual shard keeps whole sessions (s ≡ i mod N), anything else by index', () => {
    const part = { index: 1, count: 2 };
    const rec = (index: number, sessionId: string | undefined, warmup = false) => ({
      index,
      warmup,
      ...(sessionId ? { sessionId } : {}),
    });
    expect(inShardRecord(rec(10, 's-000002'), 2, part)).toBe(true);
    expect(inShardRecord(rec(11, 's-000002'), 2, part)).toBe(true);
    expect(inShardRecord(rec(11, 's-000003'), 2, part)).toBe(false);
    // Warmup sessions and single-turn requests: by index.
    expect(inShardRecord(rec(1, 'w-000002', true), 2, part)).toBe(true);
    expect(inShardRecord(rec(0, 'w-000001', true), 2, part)).toBe(false);
    expect(inShardRecord(rec(3, undefined), 2, part)).toBe(true);
  });

  test('shardLoad splits the sessions at once like the concurrency', () => {
    const load: LoadSpec = { ...closed, concurrency: 5, sessions: { concurrency: 5, userRate: 1 } };
    expect(shardLoad(load, { index: 0, count: 2 })).toMatchObject({
      concurrency: 3,
      sessions: { concurrency: 3, userRate: 1 },
    });
    expect(shardLoad(load, { index: 1, count: 2 }).sessions).toEqual({ concurrency: 2, userRate: 1 });
  });
});
