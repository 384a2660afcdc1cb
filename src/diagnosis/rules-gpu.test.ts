import { describe, expect, it } from 'vitest';
import type { GpuSummary, ServerSample, ServerSummary } from '../types.js';
import { diagnose } from './diagnose.js';
import type { RequestObservation } from './observations.js';
import { schedulerBoundFinding } from './rules-gpu.js';

/** 20 scrapes a second apart; `waiting(i)` requests waiting, 8 running, KV usage `kv(i)`. */
function samples(waiting: (i: number) => number, kv?: (i: number) => number): ServerSample[] {
  return Array.from({ length: 20 }, (_, i) => ({
    tMs: i * 1000,
    engine: 'vllm' as const,
    values: { waiting: waiting(i), running: 8, ...(kv ? { kvUsage: kv(i) } : {}) },
  }));
}

function server(utilMean: number | undefined, extra: Partial<ServerSummary> = {}): ServerSummary {
  const gpu: GpuSummary = { metricsUrl: 'http://g:9400/metrics', samples: 20, gpuCount: 2, gpus: [] };
  if (utilMean !== undefined) gpu.utilPct = { min: utilMean, mean: utilMean, max: utilMean, last: utilMean };
  return { engine: 'vllm', metricsUrl: 'http://s/metrics', samples: 20, series: {}, gpu, ...extra };
}

describe('schedulerBoundFinding', () => {
  const cases: Array<{ name: string; s: ServerSample[]; srv?: ServerSummary; fires: boolean }> = [
    {
      name: 'idle GPUs (30%), a queue in every scrape, KV at 40%',
      s: samples(
        () => 6,
        () => 0.4,
      ),
      srv: server(30),
      fires: true,
    },
    {
      name: 'a queue in 60% of the scrapes, KV not exposed',
      s: samples((i) => (i < 12 ? 3 : 0)),
      srv: server(20),
      fires: true,
    },
    {
      name: 'just under the line: 49.9% utilisation',
      s: samples(
        () => 2,
        () => 0.5,
      ),
      srv: server(49.9),
      fires: true,
    },
    {
      name: 'busy GPUs (50%): compute is the limit',
      s: samples(
        () => 6,
        () => 0.4,
      ),
      srv: server(50),
      fires: false,
    },
    {
      name: 'a queue in only 40% of the scrapes',
      s: samples(
        (i) => (i < 8 ? 3 : 0),
        () => 0.4,
      ),
      srv: server(20),
      fires: false,
    },
    {
      name: 'waiting below one request (fractional averages)',
      s: samples(
        () => 0.5,
        () => 0.4,
      ),
      srv: server(20),
      fires: false,
    },
    {
      name: 'KV cache full: the KV finding says it',
      s: samples(
        () => 6,
        (i) => (i === 5 ? 0.95 : 0.5),
      ),
      srv: server(20),
      fires: false,
    },
    {
      name: 'preemptions: KV is the limit',
      s: samples(
        () => 6,
        () => 0.5,
      ),
      srv: server(20, { preemptions: 3 }),
      fires: false,
    },
    {
      name: 'no GPU figures (no --gpu-metrics-url)',
      s: samples(
        () => 6,
        () => 0.4,
      ),
      fires: false,
    },
    {
      name: 'GPU block without utilisation',
      s: samples(
        () => 6,
        () => 0.4,
      ),
      srv: server(undefined),
      fires: false,
    },
    {
      name: 'no queue gauge from the server',
      s: [{ tMs: 0, engine: 'unknown', values: {} }],
      srv: server(10),
      fires: false,
    },
  ];
  it.each(cases)('$name → fires: $fires', ({ s, srv, fires }) => {
    const f = schedulerBoundFinding(s, srv ? { server: srv } : {});
    expect(f !== undefined).toBe(fires);
    if (!f) return;
    expect(f.kind).toBe('scheduler-bound');
    expect(f.score).toBeGreaterThan(0);
    expect(f.score).toBeLessThanOrEqual(1);
    expect(f.knob).toMatch(/--max-num-seqs/);
    expect(f.knob).toMatch(/--max-num-batched-tokens/);
  });

  it('says what it saw: utilisation, the queue, KV headroom, the time range', () => {
    const f = schedulerBoundFinding(
      samples(
        (i) => (i >= 2 && i < 18 ? 4 : 0),
        () => 0.42,
      ),
      { server: server(31) },
    )!;
    expect(f.evidence).toBe(
      'GPU utilisation averaged 31% over 2 GPUs while requests waited in 80% of the scrapes (mean waiting 4.0, running 8.0); KV usage peaked at 42%, no preemption',
    );
    expect([f.fromMs, f.toMs]).toEqual([2000, 17000]);
    // Idler GPUs and a longer queue rank higher.
    const idler = schedulerBoundFinding(
      samples(
        () => 4,
        () => 0.42,
      ),
      { server: server(5) },
    )!;
    expect(idler.score).toBeGreaterThan(f.score);
  });

  it('is one of the ranked findings of diagnose', () => {
    const observations: RequestObservation[] = Array.from({ length: 20 }, (_, i) => ({
      sentMs: i * 1000,
      scheduledMs: i * 1000,
      endMs: i * 1000 + 900,
      outcome: 'success' as const,
      promptTokens: 256,
      outputTokens: 64,
      ttftMs: 50,
      tpotMs: 10,
      e2elMs: 900,
      dispatchLagMs: 0,
    }));
    const kinds = diagnose({
      observations,
      samples: samples(
        () => 6,
        () => 0.4,
      ),
      summary: { server: server(25) },
    }).map((f) => f.kind);
    expect(kinds).toContain('scheduler-bound');
  });
});
