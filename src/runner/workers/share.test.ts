import { describe, expect, test } from 'vitest';
import { bareItem, fakeSessions } from '../../../test/fixtures/sessions.js';
import type { LoadSpec, WorkItem } from '../../types.js';
import { Part } from '../../workload/index.js';
import { openLoopSplit, shareArrivals, shareSessions, shareWorkItem, workerLoad } from './share.js';

/** Worker k of n. */
const w = (k: number, n: number) => Part.whole.sub(k, n);

const closed = (concurrency: number, requests?: number): LoadSpec => ({
  mode: 'closed',
  concurrency,
  ...(requests !== undefined ? { requests } : {}),
  warmup: 0,
  timeoutMs: 1000,
  maxRetries: 0,
});
const open = (rate: number, burstiness: number, extra: Partial<LoadSpec> = {}): LoadSpec => ({
  mode: 'open',
  rate,
  burstiness,
  warmup: 0,
  timeoutMs: 1000,
  maxRetries: 0,
  ...extra,
});

/** The first `count` arrivals of the union of n shares, in time order. */
function union(load: LoadSpec, n: number, perWorker: number): number[] {
  const all: number[] = [];
  for (let k = 0; k < n; k++) {
    const at = shareArrivals(load, 7, w(k, n));
    for (let j = 0; j < perWorker; j++) all.push(at(j));
  }
  return all.sort((a, b) => a - b);
}

function gapStats(offsets: number[]): { mean: number; cv2: number } {
  const g = offsets.slice(1).map((t, i) => t - offsets[i]!);
  const mean = g.reduce((a, b) => a + b, 0) / g.length;
  const variance = g.reduce((a, b) => a + (b - mean) ** 2, 0) / (g.length - 1);
  return { mean, cv2: variance / (mean * mean) };
}

describe('workerLoad', () => {
  test('closed loop: the concurrency is split, the request count is shared (one counter)', () => {
    const shares = [0, 1, 2].map((k) => workerLoad(closed(8, 100), w(k, 3)));
    expect(shares.map((s) => s.concurrency)).toEqual([3, 3, 2]);
    expect(shares.every((s) => s.requests === 100)).toBe(true);
  });

  test('open loop: requests and the cap on requests in flight are split; rate stays the run’s', () => {
    const shares = [0, 1].map((k) => workerLoad(open(100, 1, { requests: 11, maxConcurrency: 5 }), w(k, 2)));
    expect(shares.map((s) => s.requests)).toEqual([6, 5]);
    expect(shares.map((s) => s.maxConcurrency)).toEqual([3, 2]);
    const timed = workerLoad(open(100, 1, { durationMs: 1000 }), w(1, 2));
    expect(timed.requests).toBeUndefined();
    expect(timed.durationMs).toBe(1000);
  });
});

describe('open-loop split', () => {
  test.each([
    [10, 1, 'independent'],
    [Number.POSITIVE_INFINITY, 0.5, 'independent'],
    [10, 0.5, 'round-robin'],
    [10, 4, 'round-robin'],
  ])('rate %f, burstiness %f → %s', (rate, b, want) => {
    expect(openLoopSplit(rate, b)).toBe(want);
  });

  test.each([
    [200, 2],
    [2000, 3],
    [50, 4],
  ])('Poisson %f/s over %i workers: the union has mean gap 1000/rate and CV² ≈ 1', (rate, n) => {
    const offsets = union(open(rate, 1), n, 12_000);
    // Compare over the span where every share is still running.
    const end = Math.min(
      ...Array.from({ length: n }, (_, k) => shareArrivals(open(rate, 1), 7, w(k, n))(11_999)),
    );
    const s = gapStats(offsets.filter((t) => t <= end));
    expect(Math.abs(s.mean / (1000 / rate) - 1)).toBeLessThan(0.03);
    expect(Math.abs(s.cv2 - 1)).toBeLessThan(0.1);
    // One arrival at 0, as in a one-worker run, and the shares are not copies of each other.
    expect(offsets.filter((t) => t === 0)).toHaveLength(1);
    expect(shareArrivals(open(rate, 1), 7, w(1, n))(0)).not.toBe(
      shareArrivals(open(rate, 1), 7, w(2 % n, n))(0),
    );
  });

  test.each([
    [100, 0.25, 2],
    [100, 4, 3],
  ])(
    'gamma %f/s burstiness %f over %i workers: the union is the one-worker schedule exactly',
    (rate, b, n) => {
      const one = shareArrivals(open(rate, b), 7, w(0, 1));
      const merged = union(open(rate, b), n, 300);
      expect(merged).toEqual(Array.from({ length: 300 * n }, (_, i) => one(i)));
    },
  );

  test('items: each measured item goes to exactly one worker, warmup items are the run’s', () => {
    const item = (i: number): WorkItem => ({
      index: i,
      id: `r-${i}`,
      warmup: i < 2,
      promptTokens: 1,
      maxTokens: 1,
    });
    const load = open(100, 0.5, { warmup: 2, requests: 10 });
    const seen: number[] = [];
    for (let k = 0; k < 3; k++) {
      const share = workerLoad(load, w(k, 3));
      const at = shareWorkItem({ item }, load, 7, w(k, 3));
      expect(at(1).index).toBe(1);
      for (let i = load.warmup; i < load.warmup + share.requests!; i++) seen.push(at(i).index);
    }
    expect(seen.sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  test('a trace keeps its own times: round-robin hands each worker every N-th request as scheduled', () => {
    const item = (i: number): WorkItem => ({
      index: i,
      id: `r-${i}`,
      warmup: false,
      promptTokens: 1,
      maxTokens: 1,
      scheduledMs: 10 * i * i,
    });
    const load = open(100, 1, { requests: 9 });
    const second = shareWorkItem({ item }, load, 7, w(1, 3), 'round-robin');
    expect([0, 1, 2].map((j) => second(j))).toEqual([item(1), item(4), item(7)]);
  });
});

describe('sessions split across workers', () => {
  const sessionsOpen = (burstiness: number): LoadSpec => ({
    ...open(Number.POSITIVE_INFINITY, burstiness),
    sessions: { rate: 10 },
  });

  test('closed loop: every worker takes the run’s next session from the shared counter', () => {
    let next = 0;
    const take = () => next++;
    const closedSessions: LoadSpec = { ...closed(4), sessions: { concurrency: 4 } };
    const a = shareSessions(fakeSessions(), closedSessions, 7, w(0, 2), take);
    const b = shareSessions(fakeSessions(), closedSessions, 7, w(1, 2), take);
    // Whatever number the loop asks for, the counter decides: sessions 0, 1, 2, 3 once each.
    expect([a.session(0).id, b.session(0).id, b.session(1).id, a.session(1).id]).toEqual([
      's0',
      's1',
      's2',
      's3',
    ]);
  });

  test('session rate, gamma: worker k starts sessions k, k+N, … at their times in the one schedule', () => {
    const take = () => {
      throw new Error('not used in the open loop');
    };
    const shares = [0, 1, 2].map((k) => shareSessions(fakeSessions(), sessionsOpen(2), 7, w(k, 3), take));
    expect(shares.map((s) => [0, 1].map((j) => s.session(j).id))).toEqual([
      ['s0', 's3'],
      ['s1', 's4'],
      ['s2', 's5'],
    ]);
    expect(shares.map((s) => [0, 1].map((j) => s.startMs!(j)))).toEqual([
      [0, 300],
      [100, 400],
      [200, 500],
    ]);
  });

  test('session rate, Poisson: worker k’s starts are its own Poisson share of rate/N', () => {
    const take = () => 0;
    const s = shareSessions(fakeSessions(), sessionsOpen(1), 7, w(1, 2), take);
    const at = shareArrivals({ rate: 10, burstiness: 1 }, 7, w(1, 2));
    expect([0, 1, 2].map((j) => s.startMs!(j))).toEqual([0, 1, 2].map(at));
    expect(s.session(2).id).toBe('s5');
    // A shard's sessions keep the one schedule: round-robin over it.
    const rr = shareSessions(fakeSessions(), sessionsOpen(1), 7, w(1, 2), take, 'round-robin');
    expect([0, 1].map((j) => rr.startMs!(j))).toEqual([100, 300]);
  });

  test('one worker: the sessions as they are', () => {
    const source = fakeSessions();
    expect(shareSessions(source, sessionsOpen(1), 7, w(0, 1), () => 0)).toBe(source);
  });

  test('workerLoad splits the sessions at once and keeps the run’s turn count (one shared counter)', () => {
    const closedSessions: LoadSpec = { ...closed(5, 30), sessions: { concurrency: 5 } };
    expect(workerLoad(closedSessions, w(1, 2))).toMatchObject({
      concurrency: 2,
      requests: 30,
      sessions: { concurrency: 2 },
    });
    const rate: LoadSpec = { ...sessionsOpen(1), requests: 30, maxConcurrency: 5 };
    expect(workerLoad(rate, w(0, 2))).toMatchObject({
      requests: 30,
      maxConcurrency: 3,
      sessions: { rate: 10 },
    });
  });
});

describe('stages split across workers', () => {
  test('stages of rate: every worker sends every N-th arrival of the one staged schedule', () => {
    const load: LoadSpec = {
      mode: 'open',
      warmup: 0,
      timeoutMs: 1000,
      maxRetries: 0,
      burstiness: 1,
      stages: [{ durationMs: 1000, target: 10 }],
      stagesOf: 'rate',
    };
    const item = (i: number): WorkItem => bareItem(i, { scheduledMs: i * 10 });
    const share = shareWorkItem({ item }, load, 7, w(1, 2));
    expect([0, 1, 2].map((i) => share(i).scheduledMs)).toEqual([10, 30, 50]);
  });
});
