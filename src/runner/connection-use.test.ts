import { describe, expect, it } from 'vitest';
import type { ConnectionStats } from '../client/index.js';
import type { ConnectionWarmup, LoadSpec } from '../types.js';
import { connectionUse, describeServerConnections, HeadersTally } from './connection-use.js';
import { filesCapOf, planConnections, poolLimit } from './live-client.js';

const base: LoadSpec = { mode: 'closed', warmup: 0, timeoutMs: 60_000, maxRetries: 1 };

describe('planConnections', () => {
  it.each<[string, Partial<LoadSpec>, { mode: string; limit?: number; warm: number }]>([
    [
      'closed loop: one per request in flight, all first',
      { concurrency: 8 },
      { mode: 'pooled', limit: 8, warm: 8 },
    ],
    [
      'closed loop with stages: the highest stage',
      {
        stages: [
          { durationMs: 1000, target: 3 },
          { durationMs: 1000, target: 12.5 },
        ],
        stagesOf: 'concurrency',
      },
      { mode: 'pooled', limit: 13, warm: 13 },
    ],
    // 3/s × (0.25 + 128 × 0.02 s) = 8.4 → 9, no cap: more as the load needs them.
    ['open loop: rate × expected latency', { mode: 'open', rate: 3 }, { mode: 'pooled', warm: 9 }],
    [
      'open loop within --max-concurrency',
      { mode: 'open', rate: 50, maxConcurrency: 16 },
      { mode: 'pooled', limit: 16, warm: 16 },
    ],
    [
      'rate inf: every request at once',
      { mode: 'open', rate: Number.POSITIVE_INFINITY, requests: 20 },
      { mode: 'pooled', warm: 20 },
    ],
    ['no rate known ahead (a trace)', { mode: 'open' }, { mode: 'pooled', warm: 8 }],
    [
      'pooled:N caps a closed loop',
      { concurrency: 32, connections: { mode: 'pooled', limit: 4 } },
      { mode: 'pooled', limit: 4, warm: 4 },
    ],
    [
      'per-request: none opened first',
      { concurrency: 8, connections: { mode: 'per-request' } },
      { mode: 'per-request', limit: 8, warm: 0 },
    ],
  ])('%s', (_name, load, expected) => {
    const plan = planConnections({ ...base, ...load }, 128);
    expect({ mode: plan.mode, limit: plan.limit, warm: plan.warm }).toEqual({
      limit: undefined,
      ...expected,
    });
    expect(plan.sizing.length).toBeGreaterThan(10);
  });

  it('never opens more than 256 first', () => {
    expect(planConnections({ ...base, concurrency: 5000 }, 128).warm).toBe(256);
  });
});

describe('planConnections within the open-file limit', () => {
  const files = { openFiles: 160, connections: 96 };
  it.each<[string, Partial<LoadSpec>, { limit?: number; warm: number; held?: number; said: boolean }]>([
    [
      'a closed loop wider than the room: held at 96, said',
      { concurrency: 200 },
      { limit: 200, warm: 96, held: 96, said: true },
    ],
    ['a closed loop that fits: untouched', { concurrency: 64 }, { limit: 64, warm: 64, said: false }],
    ['exactly the room: untouched', { concurrency: 96 }, { limit: 96, warm: 96, said: false }],
    // An open loop opens more as it needs them: the cap holds it, said only if it reaches it (connectionUse).
    [
      'an open loop: held at 96, not said up front',
      { mode: 'open', rate: 3 },
      { warm: 9, held: 96, said: false },
    ],
    [
      'per-request under pooled limits alike',
      { concurrency: 200, connections: { mode: 'per-request' } },
      { limit: 200, warm: 0, held: 96, said: true },
    ],
  ])('%s', (_name, load, expected) => {
    const plan = planConnections({ ...base, ...load }, 128, files);
    expect(plan.limit).toBe(expected.limit);
    expect(plan.warm).toBe(expected.warm);
    expect(plan.filesCap?.connections).toBe(expected.held);
    expect(poolLimit(plan)).toBe(expected.held ?? expected.limit);
    expect(plan.sizing.includes("within this process's open-file limit (ulimit -n 160)")).toBe(expected.said);
  });
});

describe("filesCapOf: one client's room under the open-file limit", () => {
  it.each<
    [string, number | undefined, boolean, number, { openFiles: number; connections: number } | undefined]
  >([
    ['a URL: one descriptor a connection', 1024, false, 1, { openFiles: 1024, connections: 960 }],
    ['the embedded engine: two', 1024, true, 1, { openFiles: 1024, connections: 480 }],
    ['a load worker of 3: its share', 1024, false, 3, { openFiles: 1024, connections: 320 }],
    ['never none', 70, true, 8, { openFiles: 70, connections: 1 }],
    ['unknown limit: no cap', undefined, false, 1, undefined],
  ])('%s', (_name, openFiles, embedded, workers, cap) => {
    expect(filesCapOf(openFiles === undefined ? {} : { openFiles }, embedded, workers)).toEqual(cap);
  });
});

describe('connectionUse with the pool held by the client', () => {
  const headers = { early: 50, of: 50 };
  it('the open-file cap is reported as the limit, and the server is not blamed for the client holding 96 of 200', () => {
    const held = planConnections({ ...base, concurrency: 200 }, 16, { openFiles: 160, connections: 96 });
    const use = connectionUse({
      plan: held,
      stats: stats({ opened: 96, peakOpen: 96, peakServed: 96, waited: 3, longestWaitMs: 400 }),
      peakInFlight: 200,
      headers,
    });
    expect(use).toMatchObject({ limit: 96, openFilesLimit: 160, serverLimited: false });
  });

  it('--connections pooled:4 under concurrency 8 is the client holding them, not the server', () => {
    const pooled = planConnections(
      { ...base, concurrency: 8, connections: { mode: 'pooled', limit: 4 } },
      16,
    );
    const use = connectionUse({
      plan: pooled,
      stats: stats({ opened: 4, peakOpen: 4, peakServed: 4, waited: 4, longestWaitMs: 900 }),
      peakInFlight: 8,
      headers,
    });
    expect(use.serverLimited).toBe(false);
    expect(use.openFilesLimit).toBeUndefined();
  });

  it.each([
    ['reached the cap: said', 96, 160],
    ['stayed below it: nothing to say', 40, undefined],
  ])('an open loop %s', (_name, peakOpen, said) => {
    const open = planConnections({ ...base, mode: 'open', rate: 3 }, 16, { openFiles: 160, connections: 96 });
    const use = connectionUse({
      plan: open,
      stats: stats({ opened: peakOpen, peakOpen, peakServed: peakOpen }),
      peakInFlight: peakOpen,
      headers,
    });
    expect(use.openFilesLimit).toBe(said);
    expect(use.limit).toBe(said === undefined ? undefined : 96);
  });
});

const plan = planConnections({ ...base, concurrency: 8 }, 16);
const stats = (s: Partial<ConnectionStats>): ConnectionStats => ({
  opened: 8,
  peakOpen: 8,
  peakServed: 8,
  waited: 0,
  longestWaitMs: 0,
  ...s,
});
const headersEarly = { early: 50, of: 50 };

describe('connectionUse: did the server limit connections?', () => {
  it.each<
    [string, ConnectionStats, ConnectionWarmup | undefined, number, { early: number; of: number }, boolean]
  >([
    ['every connection served, none waited', stats({}), undefined, 8, headersEarly, false],
    [
      '4 served of 8 in flight, 4 waited',
      stats({ peakServed: 4, waited: 4, longestWaitMs: 3000 }),
      undefined,
      8,
      headersEarly,
      true,
    ],
    // Waits, but as many served as in flight: the wait was something else (a slow first answer).
    [
      'waits, yet every request in flight served',
      stats({ waited: 2, longestWaitMs: 400 }),
      undefined,
      8,
      headersEarly,
      false,
    ],
    // A server that sends its headers with the first token: a queued request looks the same.
    [
      'headers only with the first token',
      stats({ peakServed: 4, waited: 4, longestWaitMs: 3000 }),
      undefined,
      8,
      { early: 3, of: 50 },
      false,
    ],
    // Nothing served at all is a dead server, not a connection limit.
    [
      'no connection served at all',
      stats({ peakServed: 0, waited: 8, longestWaitMs: 3000 }),
      undefined,
      8,
      { early: 0, of: 0 },
      false,
    ],
    [
      'the warm-up answered some and left the others',
      stats({}),
      { requested: 8, ok: 4, ms: 2000, reason: 'budget' },
      8,
      headersEarly,
      true,
    ],
    [
      'a warm-up that got no answer at all',
      stats({}),
      { requested: 8, ok: 0, ms: 2000, reason: 'budget' },
      8,
      headersEarly,
      false,
    ],
    [
      'a warm-up stopped by Ctrl-C',
      stats({}),
      { requested: 8, ok: 4, ms: 300, reason: 'aborted' },
      8,
      headersEarly,
      false,
    ],
  ])('%s', (_name, s, warmup, peakInFlight, headers, limited) => {
    const use = connectionUse({ plan, stats: s, ...(warmup ? { warmup } : {}), peakInFlight, headers });
    expect(use.serverLimited).toBe(limited);
    expect(use).toMatchObject({
      mode: 'pooled',
      limit: 8,
      warmed: 8,
      peakServed: s.peakServed,
      waited: s.waited,
    });
    const text = describeServerConnections(use, warmup);
    if (limited)
      expect(text).toMatch(
        /^the server served \d+ connections at once; requests waited for a connection, not for the GPU/,
      );
    else expect(text).toBeUndefined();
  });
});

describe('HeadersTally', () => {
  it('counts answered requests whose headers came at least half their TTFT before the first token', () => {
    const t = new HeadersTally();
    const r = { warmup: false, sentMs: 0 } as const;
    t.add({ ...r, headersMs: 1, firstTokenMs: 100 } as never);
    t.add({ ...r, headersMs: 99, firstTokenMs: 100 } as never);
    t.add({ ...r, firstTokenMs: 100 } as never);
    t.add({ ...r, warmup: true, headersMs: 1, firstTokenMs: 100 } as never);
    expect({ early: t.early, of: t.of }).toEqual({ early: 1, of: 2 });
  });
});
