import { afterEach, describe, expect, it } from 'vitest';
import { startTinyServer, type TinyServer } from '../../test/helpers/sse-server.js';
import { type Client, type ClientConfig, createClient } from '../client/index.js';
import type { LoadSpec, RequestRecord } from '../types.js';
import { type AgentSource, createWorkload, type SessionSource, type Workload } from '../workload/index.js';
import {
  CLIENT_BOUND_QUEUE_WAIT_MS,
  type LoadResult,
  type RunLoadOptions,
  runLoad,
  waitsOnClock,
} from './load.js';
import { RunClock, sleepUntil } from './timer.js';

let server: TinyServer | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

const base: LoadSpec = { mode: 'closed', warmup: 0, timeoutMs: 10_000, maxRetries: 0 };

async function drive(
  load: LoadSpec,
  serverOpts: Parameters<typeof startTinyServer>[0],
  signal?: AbortSignal,
  backpressure?: () => Promise<void> | undefined,
  clientOver: Partial<ClientConfig> = {},
  loadOver: Partial<RunLoadOptions> = {},
): Promise<{ result: LoadResult; records: RequestRecord[]; elapsedMs: number; workload: Workload }> {
  server = await startTinyServer(serverOpts);
  const clock = new RunClock();
  const workload = createWorkload(
    { kind: 'synthetic', api: 'chat', promptTokens: 16, maxTokens: 4, tokenizer: 'o200k_base' },
    { seed: 7, warmup: load.warmup, requests: load.requests, rate: load.rate, burstiness: load.burstiness },
  );
  client = createClient(
    {
      baseUrl: server.url,
      api: 'chat',
      model: 'tiny-model',
      timeoutMs: load.timeoutMs,
      maxRetries: 0,
      sampling: { temperature: 0, maxTokens: 4, ignoreEos: false },
      ...clientOver,
    },
    clock,
  );
  const records: RequestRecord[] = [];
  const t0 = performance.now();
  const result = await runLoad({
    load,
    workItem: (i) => workload.item(i),
    send: (item, o) => client!.send(item, o),
    clock,
    signal,
    backpressure,
    onRecord: (r) => records.push(r),
    ...loadOver,
  });
  return { result, records, elapsedMs: performance.now() - t0, workload };
}

describe('runLoad closed loop', () => {
  it('keeps exactly N requests in flight and sends warmup first', async () => {
    const { result, records } = await drive(
      { ...base, concurrency: 4, requests: 16, warmup: 3 },
      { ttftMs: 30, gapMs: 5, chunks: 3 },
    );
    expect(records).toHaveLength(19);
    const warmups = records.filter((r) => r.warmup);
    expect(warmups.map((r) => r.index).sort((a, b) => a - b)).toEqual([0, 1, 2]);
    const firstMeasuredSend = Math.min(...records.filter((r) => !r.warmup).map((r) => r.sentMs));
    expect(Math.max(...warmups.map((r) => r.endMs))).toBeLessThanOrEqual(firstMeasuredSend);
    expect(server!.maxInFlight).toBe(4);
    expect(result.peakInFlight).toBe(4);
    expect(result.sent).toBe(16);
    expect(result.interrupted).toBe(false);
    expect(result.stopReason).toBe('requests');
    expect(records.every((r) => r.outcome === 'success')).toBe(true);
    expect(result.dispatchLag.count).toBe(0);
  });

  it('sends exactly the requested count when workers wait on a backlogged sink', async () => {
    const { result, records } = await drive(
      { ...base, concurrency: 8, requests: 20 },
      { chunks: 1 },
      undefined,
      () => new Promise((resolve) => setTimeout(resolve, 3)),
    );
    expect(result.sent).toBe(20);
    expect(records).toHaveLength(20);
    expect(server!.completed).toBe(20);
  });

  it('stops at the duration and interrupts what is in flight', async () => {
    const { result, records, elapsedMs } = await drive(
      { ...base, concurrency: 3, durationMs: 400 },
      { ttftMs: 150, gapMs: 50, chunks: 4 },
    );
    expect(result.stopReason).toBe('duration');
    expect(result.interrupted).toBe(true);
    expect(elapsedMs).toBeLessThan(2_000);
    const interrupted = records.filter((r) => r.error?.code === 'INTERRUPTED');
    expect(interrupted.length).toBe(3);
    expect(interrupted.every((r) => r.outcome === 'cancelled')).toBe(true);
    expect(records).toHaveLength(result.sent);
  });

  it('stops on the signal, records every request sent', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 250);
    const { result, records } = await drive(
      { ...base, concurrency: 2, requests: 1000 },
      { ttftMs: 60, gapMs: 10, chunks: 2 },
      ac.signal,
    );
    expect(result.stopReason).toBe('signal');
    expect(result.interrupted).toBe(true);
    expect(records).toHaveLength(result.sent);
    expect(result.sent).toBeLessThan(1000);
    expect(records.some((r) => r.error?.code === 'INTERRUPTED')).toBe(true);
  });
});

describe('runLoad open loop', () => {
  it('sends on schedule whatever the latency, and measures dispatch lag', async () => {
    const { result, records } = await drive(
      { ...base, mode: 'open', rate: 40, burstiness: 1, requests: 20 },
      { ttftMs: 200, gapMs: 0, chunks: 2 },
    );
    expect(records).toHaveLength(20);
    // Latency 200 ms at 40 req/s: a closed loop of width 1 could not do this; the open loop overlaps requests.
    expect(server!.maxInFlight).toBeGreaterThan(2);
    expect(result.dispatchLag.count).toBe(20);
    expect(result.dispatchLag.percentile(50)).toBeLessThan(5);
    for (const r of records) expect(r.firstSentMs - r.scheduledMs).toBeGreaterThanOrEqual(-0.01);
    expect(result.dropped).toBe(0);
  });

  it('caps requests in flight with max-concurrency and counts the late sends', async () => {
    const { result, records } = await drive(
      { ...base, mode: 'open', rate: 200, burstiness: 1, requests: 12, maxConcurrency: 2 },
      { ttftMs: 60, chunks: 1 },
    );
    expect(records).toHaveLength(12);
    expect(server!.maxInFlight).toBeLessThanOrEqual(2);
    expect(result.peakInFlight).toBe(2);
    expect(result.lateSends).toBeGreaterThan(5);
    expect(result.dispatchLag.stats().max).toBeGreaterThan(100);
  });

  it("sends the warmup on the load's own schedule, running into the measured phase with no pause", async () => {
    const { result, records, workload } = await drive(
      { ...base, mode: 'open', rate: 40, burstiness: 1, requests: 10, warmup: 8 },
      { ttftMs: 200, gapMs: 0, chunks: 2 },
    );
    const warmups = records.filter((r) => r.warmup).sort((a, b) => a.index - b.index);
    const measured = records.filter((r) => !r.warmup);
    expect(result.warmupSent).toBe(8);
    expect(warmups).toHaveLength(8);
    expect(measured).toHaveLength(10);
    // Each warmup request at its arrival before the measured start, sent on time.
    for (const r of warmups) {
      expect(r.scheduledMs).toBeCloseTo(result.measuredStartMs + workload.item(r.index).scheduledMs!, 2);
      expect(r.firstSentMs - r.scheduledMs).toBeGreaterThanOrEqual(-0.01);
      expect(r.firstSentMs - r.scheduledMs).toBeLessThan(20);
    }
    expect(warmups.at(-1)!.scheduledMs).toBeLessThan(result.measuredStartMs);
    // No pause between the phases: the measured load starts while the warmup's requests
    // (200 ms each, arriving every 25 ms on average) are still in flight.
    const firstMeasuredSend = Math.min(...measured.map((r) => r.firstSentMs));
    expect(Math.max(...warmups.map((r) => r.endMs))).toBeGreaterThan(firstMeasuredSend);
    // Only the measured sends count in the lag and the start window.
    expect(result.dispatchLag.count).toBe(10);
    expect(result.sent).toBe(10);
    const inFirstSecond = measured.filter((r) => r.scheduledMs - result.measuredStartMs < 1000).length;
    expect(result.startWindow).toMatchObject({
      ms: 1000,
      sends: inFirstSecond,
      laterSends: 10 - inFirstSecond,
    });
  });

  it('starts the measured phase after a warmup that fell behind, not owing its backlog', async () => {
    // One slot, 60 ms a request, 200 arrivals a second: the warmup's last send is far behind.
    const { result, records } = await drive(
      { ...base, mode: 'open', rate: 200, burstiness: 1, requests: 1, warmup: 5, maxConcurrency: 1 },
      { ttftMs: 60, chunks: 1 },
    );
    const warmups = records.filter((r) => r.warmup);
    const last = warmups.reduce((a, r) => (r.firstSentMs > a.firstSentMs ? r : a));
    expect(last.firstSentMs - last.scheduledMs).toBeGreaterThan(150);
    // Its measured start moved from one gap after that arrival to when the warmup got it out.
    expect(result.measuredStartMs - last.scheduledMs).toBeGreaterThan(150);
    // The measured send waits for the warmup's last slot (60 ms), not for its 150 ms backlog too.
    expect(result.dispatchLag.stats().max).toBeLessThan(last.firstSentMs - last.scheduledMs);
  });

  it('keeps the warmup a closed loop before a shared start (workers and shards start together)', async () => {
    const { result, records } = await drive(
      { ...base, mode: 'open', rate: 40, burstiness: 1, requests: 4, warmup: 4 },
      { ttftMs: 100, chunks: 1 },
      undefined,
      undefined,
      {},
      { startAtMs: 0 },
    );
    const warmups = records.filter((r) => r.warmup);
    const firstMeasuredSend = Math.min(...records.filter((r) => !r.warmup).map((r) => r.firstSentMs));
    expect(warmups).toHaveLength(4);
    expect(Math.max(...warmups.map((r) => r.endMs))).toBeLessThanOrEqual(firstMeasuredSend);
    expect(result.measuredStartMs).toBeGreaterThanOrEqual(Math.max(...warmups.map((r) => r.endMs)));
  });

  it('counts requests that were due but never sent when the duration ends', async () => {
    const { result } = await drive(
      { ...base, mode: 'open', rate: 100, burstiness: 1, durationMs: 300, maxConcurrency: 1 },
      { ttftMs: 250, chunks: 1 },
    );
    expect(result.stopReason).toBe('duration');
    expect(result.sent).toBeLessThanOrEqual(2);
    expect(result.dropped).toBeGreaterThan(10);
  });
});

describe('runLoad client self-check', () => {
  it('sees requests queueing inside the client (a pool smaller than the concurrency) and says why it is client-bound', async () => {
    const { result, records } = await drive(
      { ...base, concurrency: 24, requests: 48 },
      { ttftMs: 60, chunks: 2 },
      undefined,
      undefined,
      { connections: 1 },
    );
    expect(records.filter((r) => r.outcome === 'success')).toHaveLength(48);
    expect(result.clientQueueWait.count).toBe(48);
    // 24 waiting on one connection that takes ≥ 60 ms a request: the last waits ≥ 1.3 s.
    expect(result.clientQueueWait.percentile(99)).toBeGreaterThan(CLIENT_BOUND_QUEUE_WAIT_MS);
    expect(result.clientBound).toBe(true);
    expect(result.clientBoundReason).toMatch(/client queue wait p99 \d+ ms > 250 ms/);
  });

  it('a pool as wide as the concurrency does not queue', async () => {
    const { result } = await drive({ ...base, concurrency: 4, requests: 8 }, { ttftMs: 30, chunks: 2 });
    expect(result.clientQueueWait.count).toBe(8);
    expect(result.clientQueueWait.percentile(99)).toBeLessThan(CLIENT_BOUND_QUEUE_WAIT_MS);
    expect(result.clientBoundReason ?? '').not.toMatch(/queue wait/);
    // Live time: the GC pauses of the load thread are counted (maybe none in so short a load).
    expect(result.gcPauses).toBeDefined();
    expect(result.gcPauses!.maxMs).toBeGreaterThanOrEqual(result.gcPauses!.p99Ms);
  });
});

describe('sleepUntil', () => {
  it('wakes at the target, not before, and promptly', async () => {
    const clock = new RunClock();
    const late: number[] = [];
    for (let i = 1; i <= 10; i++) {
      const target = clock.now() + 3 + i;
      expect(await sleepUntil(clock, target)).toBe(true);
      late.push(clock.now() - target);
    }
    expect(Math.min(...late)).toBeGreaterThanOrEqual(0);
    late.sort((a, b) => a - b);
    expect(late[4]!).toBeLessThan(2);
  });

  it('returns false at once when the signal aborts', async () => {
    const clock = new RunClock();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    const t = clock.now();
    expect(await sleepUntil(clock, t + 5_000, ac.signal)).toBe(false);
    expect(clock.now() - t).toBeLessThan(1_000);
  });
});

describe('waitsOnClock (a live run boots the pacer thread ahead only when its load waits)', () => {
  // Only their presence picks the strategy.
  const sessions = {} as SessionSource;
  const agents = {} as AgentSource;
  const sessionLoad: LoadSpec = { ...base, sessions: { concurrency: 2 } };

  it('is false for the plain closed loop only', () => {
    expect(
      waitsOnClock({ ...base, concurrency: 1000, requests: 2000 }, undefined, undefined, undefined),
    ).toBe(false);
    expect(
      waitsOnClock({ ...base, concurrency: 4, durationMs: 60_000 }, undefined, undefined, undefined),
    ).toBe(false);
  });

  it('is true for a rate, stages, sessions, agents and a shared start', () => {
    expect(waitsOnClock({ ...base, mode: 'open', rate: 5 }, undefined, undefined, undefined)).toBe(true);
    const stages = [{ durationMs: 1000, target: 4 }];
    expect(waitsOnClock({ ...base, stages, stagesOf: 'concurrency' }, undefined, undefined, undefined)).toBe(
      true,
    );
    expect(
      waitsOnClock({ ...base, mode: 'open', stages, stagesOf: 'rate' }, undefined, undefined, undefined),
    ).toBe(true);
    expect(waitsOnClock(sessionLoad, sessions, undefined, undefined)).toBe(true);
    expect(waitsOnClock(base, undefined, agents, undefined)).toBe(true);
    expect(waitsOnClock(base, undefined, undefined, 1_000)).toBe(true);
  });
});
