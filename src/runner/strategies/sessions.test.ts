import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../sim/index.js';
import type { LoadSpec, RequestRecord, WorkItem } from '../../types.js';
import { createWorkload } from '../../workload/index.js';
import { type LoadResult, runLoad, type SendFn } from '../load.js';

/** Every request takes LATENCY_MS of simulated time; its reply names it. */
const LATENCY_MS = 100;

interface Sent {
  item: WorkItem;
  sentMs: number;
  endMs: number;
}

async function drive(
  load: LoadSpec,
  session: {
    turns?: { min: number; max: number };
    thinkTime?: { meanMs: number; dist: 'fixed' | 'exponential' };
  },
  fail?: (item: WorkItem) => boolean,
): Promise<{ result: LoadResult; sent: Sent[]; records: RequestRecord[]; peak: number }> {
  const clock = new VirtualClock();
  const workload = createWorkload(
    {
      kind: 'synthetic',
      api: 'chat',
      promptTokens: 20,
      maxTokens: 8,
      tokenizer: 'o200k_base',
      systemPromptTokens: 10,
      sessions: {
        turns: session.turns ?? { min: 3, max: 3 },
        turnTokens: 5,
        ...(session.thinkTime ? { thinkTime: session.thinkTime } : {}),
      },
    },
    { seed: 9, warmup: load.warmup, requests: load.requests, rate: load.sessions?.rate },
  );
  const sent: Sent[] = [];
  let inFlight = 0;
  let peak = 0;
  const send: SendFn = (item, { scheduledMs, onReply }) =>
    new Promise((resolve) => {
      const sentMs = clock.now();
      inFlight++;
      peak = Math.max(peak, inFlight);
      clock.at(sentMs + LATENCY_MS, () => {
        inFlight--;
        const failed = fail?.(item) === true;
        if (!failed) onReply?.(` reply to ${item.id}`);
        sent.push({ item, sentMs, endMs: clock.now() });
        resolve({
          id: item.id,
          index: item.index,
          warmup: item.warmup,
          outcome: failed ? 'error' : 'success',
          ...(failed ? { error: { code: 'HTTP_SERVER_ERROR' as const, message: 'boom' } } : {}),
          attempts: 1,
          scheduledMs,
          sentMs,
          firstSentMs: sentMs,
          firstTokenMs: sentMs + 10,
          endMs: clock.now(),
          chunkMs: [sentMs + 10],
          chunkChars: [1],
          promptTokens: item.promptTokens,
          outputTokens: 1,
          outputTokensSource: 'usage',
          maxTokens: item.maxTokens,
          ...(item.sessionId ? { sessionId: item.sessionId, turn: item.turn } : {}),
        });
      });
    });
  const records: RequestRecord[] = [];
  const result = await clock.run(
    runLoad({
      load,
      workItem: (i) => workload.item(i),
      sessions: workload.sessions!,
      send,
      clock,
      onRecord: (r) => records.push(r),
    }),
  );
  return { result, sent, records, peak };
}

const base: LoadSpec = { mode: 'closed', warmup: 0, timeoutMs: 10_000, maxRetries: 0 };

const bySession = (sent: Sent[]) => {
  const m = new Map<string, Sent[]>();
  for (const s of sent) m.set(s.item.sessionId!, [...(m.get(s.item.sessionId!) ?? []), s]);
  return m;
};

describe('runLoad with sessions', () => {
  it('closed loop over sessions: N at once, turns in order, each carrying the earlier replies', async () => {
    const { result, sent, peak } = await drive(
      { ...base, concurrency: 2, requests: 12, sessions: { concurrency: 2 } },
      {},
    );
    expect(result.sent).toBe(12);
    expect(peak).toBe(2);
    const sessions = bySession(sent);
    expect(sessions.size).toBe(4);
    for (const turns of sessions.values()) {
      expect(turns.map((s) => s.item.turn)).toEqual([1, 2, 3]);
      // Turn t carries the replies to turns 1..t-1, in order, and starts when the last one ended.
      for (let t = 1; t < turns.length; t++) {
        const assistant = turns[t]!.item.messages!.filter((m) => m.role === 'assistant').map(
          (m) => m.content,
        );
        expect(assistant).toEqual(turns.slice(0, t).map((p) => ` reply to ${p.item.id}`));
        expect(turns[t]!.sentMs).toBe(turns[t - 1]!.endMs);
        expect(turns[t]!.item.promptTokens).toBeGreaterThan(turns[t - 1]!.item.promptTokens);
      }
    }
  });

  it('think time separates a reply from the next turn', async () => {
    const { sent } = await drive(
      { ...base, concurrency: 1, requests: 3, sessions: { concurrency: 1 } },
      {
        thinkTime: { meanMs: 2000, dist: 'fixed' },
      },
    );
    expect(sent.map((s) => s.sentMs)).toEqual([0, 2100, 4200]);
  });

  it('max concurrency caps requests in flight, not sessions', async () => {
    const { sent, peak, result, records } = await drive(
      { ...base, mode: 'open', burstiness: 1, maxConcurrency: 2, requests: 18, sessions: { rate: 1000 } },
      { thinkTime: { meanMs: 1, dist: 'fixed' } },
    );
    expect(result.sent).toBe(18);
    expect(peak).toBe(2);
    // Sessions arrive one a millisecond (their first turn's schedule) and wait for slots: many
    // more sessions are open at once than requests are in flight.
    const arrival = new Map<string, number>();
    const last = new Map<string, number>();
    for (const r of records) {
      if (r.turn === 1) arrival.set(r.sessionId!, r.scheduledMs);
      last.set(r.sessionId!, Math.max(last.get(r.sessionId!) ?? 0, r.endMs));
    }
    expect(arrival.size).toBeGreaterThan(2);
    const openAt = (t: number) => [...arrival].filter(([id, a]) => a <= t && last.get(id)! > t).length;
    expect(Math.max(...sent.map((x) => openAt(x.sentMs)))).toBeGreaterThan(2);
    // Due sends that waited for a slot count as late.
    expect(result.lateSends).toBeGreaterThan(0);
  });

  it("user rate: a user's turns are due 1/R apart from the first, a late reply delays the turn", async () => {
    const fast = await drive(
      { ...base, concurrency: 1, requests: 3, sessions: { concurrency: 1, userRate: 2 } },
      {},
    );
    expect(fast.sent.map((s) => s.sentMs)).toEqual([0, 500, 1000]);
    expect(fast.records.map((r) => r.scheduledMs)).toEqual([0, 500, 1000]);
    expect(fast.result.lateSends).toBe(0);
    // 20 turns per second: every turn is due before the last reply is back, so it goes late.
    const slow = await drive(
      { ...base, concurrency: 1, requests: 3, sessions: { concurrency: 1, userRate: 20 } },
      {},
    );
    expect(slow.sent.map((s) => s.sentMs)).toEqual([0, 100, 200]);
    expect(slow.records.map((r) => r.scheduledMs)).toEqual([0, 50, 100]);
    expect(slow.result.lateSends).toBe(2);
  });

  it('a failed turn ends its session (there is no reply to carry on with)', async () => {
    const { sent } = await drive(
      { ...base, concurrency: 1, requests: 5, sessions: { concurrency: 1 } },
      {},
      (item) => item.turn === 2,
    );
    expect(sent.map((s) => `${s.item.sessionId}/${s.item.turn}`)).toEqual([
      's-000001/1',
      's-000001/2',
      's-000002/1',
      's-000002/2',
      's-000003/1',
    ]);
  });

  it('warmup sends first turns of warmup sessions, apart from the measured ones', async () => {
    const { records } = await drive(
      { ...base, warmup: 2, concurrency: 1, requests: 3, sessions: { concurrency: 1 } },
      {},
    );
    expect(records.map((r) => [r.warmup, r.sessionId, r.turn])).toEqual([
      [true, 'w-000001', 1],
      [true, 'w-000002', 1],
      [false, 's-000001', 1],
      [false, 's-000001', 2],
      [false, 's-000001', 3],
    ]);
    expect(records.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
  });
});
