import { describe, expect, it } from 'vitest';
import { simulateVirtual, VirtualClock, type VirtualRequest } from './virtual.js';

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(0.99 * xs.length) - 1]!;

describe('virtual time', () => {
  const reqs: VirtualRequest[] = Array.from({ length: 200 }, (_, i) => ({
    arrivalMs: i * 20,
    promptTokens: 500 + ((i * 37) % 1500),
    outputTokens: 20 + ((i * 11) % 100),
  }));

  it('is deterministic: the same inputs give the same schedule', () => {
    const a = simulateVirtual(reqs);
    const b = simulateVirtual(reqs);
    expect(b.timings).toEqual(a.timings);
    expect(b.counters).toEqual(a.counters);
  });

  it('serves every request in order of arrival, each with its output length', () => {
    const r = simulateVirtual(reqs, { recordTokenTimes: true });
    for (const [i, t] of r.timings.entries()) {
      expect(t.arrivalMs).toBe(reqs[i]!.arrivalMs);
      expect(t.outputTokens).toBe(reqs[i]!.outputTokens);
      expect(t.tokenTimesMs).toHaveLength(reqs[i]!.outputTokens);
      expect(t.firstTokenMs!).toBeGreaterThan(t.arrivalMs);
      expect(t.endMs).toBe(t.tokenTimesMs!.at(-1));
    }
    expect(r.counters.generationTokens).toBe(reqs.reduce((s, x) => s + x.outputTokens, 0));
  });

  it('closed loop never has more than `concurrency` requests in flight', () => {
    const r = simulateVirtual(reqs, { concurrency: 4 });
    const events = r.timings.flatMap((t) => [
      [t.arrivalMs, 1],
      [t.endMs, -1],
    ]);
    events.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
    let inFlight = 0;
    let most = 0;
    for (const [, d] of events) {
      inFlight += d!;
      most = Math.max(most, inFlight);
    }
    expect(most).toBe(4);
  });

  it('cancelled requests are aborted, or keep running as wasted work', () => {
    const cancelled = reqs.slice(0, 20).map((r) => ({ ...r, outputTokens: 500, cancelAfterMs: 100 }));
    const aborted = simulateVirtual(cancelled);
    expect(aborted.counters.finished.abort).toBe(20);
    expect(aborted.counters.abandonedTokens).toBe(0);
    const kept = simulateVirtual(cancelled, { engine: { abortOnDisconnect: false } });
    expect(kept.counters.finished.length).toBe(20);
    expect(kept.counters.abandonedTokens).toBeGreaterThan(0);
  });

  it('reports requests the engine rejects', () => {
    const r = simulateVirtual([{ promptTokens: 200_000, outputTokens: 1 }]);
    expect(r.timings[0]!.finishReason).toBe('rejected');
    expect(r.timings[0]!.error).toMatch(/maximum context length/);
  });
});

describe('incident replay (virtual time)', () => {
  // A long shared system prompt at high concurrency (the workload of examples/incident-replay.sh).
  const load: VirtualRequest[] = Array.from({ length: 300 }, (_, i) => ({
    promptTokens: 2000 + 200 + (i % 7),
    sharedPrefixTokens: 2000,
    prefixId: 1,
    outputTokens: 128,
  }));
  const good = { enableChunkedPrefill: true, maxNumBatchedTokens: 2048, gpuMemoryUtilization: 0.27 };
  const bad = { enableChunkedPrefill: false, maxNumBatchedTokens: 65536, gpuMemoryUtilization: 0.27 };

  it('chunked prefill off + large budget on tight memory preempts and has ≥3× the P99 TTFT', () => {
    const ttfts = (engine: typeof good) => {
      const r = simulateVirtual(load, { engine, concurrency: 64 });
      return {
        p99: p99(r.timings.map((t) => t.firstTokenMs! - t.arrivalMs)),
        preemptions: r.counters.preemptions,
      };
    };
    const g = ttfts(good);
    const b = ttfts(bad);
    expect(b.preemptions).toBeGreaterThan(0);
    expect(b.p99).toBeGreaterThanOrEqual(3 * g.p99);
  });
});

describe('VirtualClock', () => {
  it('fires timers in order of time, then of priority and insertion, moving time to each', () => {
    const clock = new VirtualClock();
    const seen: string[] = [];
    clock.at(20, () => seen.push(`b@${clock.now()}`));
    clock.at(10, () => seen.push(`a@${clock.now()}`));
    const cancel = clock.at(15, () => seen.push('cancelled'));
    clock.at(20, () => seen.push(`c@${clock.now()}`));
    clock.at(20, () => seen.push(`first@${clock.now()}`), 0);
    cancel();
    clock.runAll();
    expect(seen).toEqual(['a@10', 'first@20', 'b@20', 'c@20']);
    expect(clock.now()).toBe(20);
  });

  it('lets the promise continuations of one timer run before the next fires', async () => {
    const clock = new VirtualClock();
    const seen: number[] = [];
    const work = (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleepUntil(clock.now() + 100);
        seen.push(clock.now());
      }
      return 'done';
    })();
    expect(await clock.runUntil(work)).toBe('done');
    expect(seen).toEqual([100, 200, 300]);
  });

  it('sleepUntil resolves false when aborted, and time does not move while something outside is awaited', async () => {
    const clock = new VirtualClock();
    const ac = new AbortController();
    clock.at(50, () => ac.abort());
    let outsideDoneAt = -1;
    const work = (async () => {
      const outside = clock.outside(new Promise((resolve) => setTimeout(resolve, 20)));
      await outside;
      outsideDoneAt = clock.now();
      return clock.sleepUntil(1_000, ac.signal);
    })();
    expect(await clock.runUntil(work)).toBe(false);
    expect(outsideDoneAt).toBe(0);
    expect(clock.now()).toBe(50);
  });

  it('rejects when the work waits on nothing the clock can fire (it could never finish)', async () => {
    const clock = new VirtualClock();
    await expect(clock.runUntil(new Promise(() => undefined))).rejects.toThrow(/nothing left to wait for/);
  });
});
