import { describe, expect, it } from 'vitest';
import type { ServerSample } from '../types.js';
import { diagnose, renderFindings } from './diagnose.js';
import { correlation, type RequestObservation, timeSlices } from './observations.js';
import { kvPressureFinding } from './rules.js';

function obs(over: Partial<RequestObservation> & { sentMs: number }): RequestObservation {
  return {
    scheduledMs: over.sentMs,
    endMs: over.sentMs + 1000,
    outcome: 'success',
    promptTokens: 256,
    outputTokens: 64,
    ttftMs: 50,
    tpotMs: 10,
    e2elMs: 1000,
    dispatchLagMs: 0,
    ...over,
  };
}

/** 60 requests over 60 s, one a second, and a sample a second. */
function steadyRun(
  ttftAt: (t: number) => number,
  values: (t: number) => ServerSample['values'],
  over: (t: number) => Partial<RequestObservation> = () => ({}),
) {
  const observations: RequestObservation[] = [];
  const samples: ServerSample[] = [];
  for (let i = 0; i < 60; i++) {
    const t = i * 1000;
    observations.push(obs({ sentMs: t, endMs: t + 900, ttftMs: ttftAt(t), ...over(t) }));
    samples.push({ tMs: t + 500, engine: 'vllm', values: values(t) });
  }
  return { observations, samples };
}

const kinds = (f: ReturnType<typeof diagnose>) => f.map((x) => x.kind);

describe('correlation', () => {
  it('matches the textbook values', () => {
    expect(
      correlation([
        [1, 2],
        [2, 4],
        [3, 6],
      ]),
    ).toBeCloseTo(1, 12);
    expect(
      correlation([
        [1, 3],
        [2, 2],
        [3, 1],
      ]),
    ).toBeCloseTo(-1, 12);
    expect(
      correlation([
        [1, 1],
        [2, 1],
        [3, 1],
      ]),
    ).toBeUndefined();
    expect(
      correlation([
        [1, 1],
        [2, 2],
      ]),
    ).toBeUndefined();
  });
});

describe('timeSlices', () => {
  it('puts each request and sample in its slice', () => {
    const { observations, samples } = steadyRun(
      (t) => (t < 30_000 ? 50 : 500),
      (t) => ({ waiting: t < 30_000 ? 0 : 4, kvUsage: t / 60_000, preemptionsTotal: Math.floor(t / 10_000) }),
    );
    const slices = timeSlices(observations, samples, 6);
    expect(slices.map((s) => s.requests)).toEqual([10, 10, 10, 10, 10, 10]);
    expect(slices.map((s) => s.ttftMs)).toEqual([50, 50, 50, 500, 500, 500]);
    expect(slices.map((s) => s.waiting)).toEqual([0, 0, 0, 4, 4, 4]);
    // one preemption per 10 s; the first slice has only the baseline sample
    expect(slices.map((s) => s.preemptions)).toEqual([0, 1, 1, 1, 1, 1]);
  });
});

describe('diagnose', () => {
  it('a healthy run has no findings', () => {
    const { observations, samples } = steadyRun(
      () => 50,
      () => ({ waiting: 0, running: 4, kvUsage: 0.3, preemptionsTotal: 0 }),
    );
    expect(diagnose({ observations, samples })).toEqual([]);
    expect(renderFindings([])).toBe('');
  });

  it('names queueing when waiting > 0 lines up with rising TTFT, with the time range', () => {
    const { observations, samples } = steadyRun(
      (t) => (t < 30_000 ? 50 : 50 + (t - 30_000) / 10),
      (t) => ({ waiting: t < 30_000 ? 0 : (t - 30_000) / 3000, running: 8, kvUsage: 0.5 }),
    );
    const findings = diagnose({ observations, samples });
    expect(kinds(findings)).toEqual(['queueing']);
    const q = findings[0]!;
    expect(q.fromMs).toBeGreaterThanOrEqual(29_000);
    expect(q.toMs).toBeLessThanOrEqual(60_000);
    expect(q.evidence).toMatch(/waiting averaged/);
    expect(q.knob).toMatch(/max-num-seqs/);
  });

  it('names KV pressure from usage near 1 and preemptions', () => {
    const { observations, samples } = steadyRun(
      () => 50,
      (t) => ({
        waiting: 0,
        running: 8,
        kvUsage: t > 40_000 ? 0.99 : 0.5,
        preemptionsTotal: t > 40_000 ? (t - 40_000) / 1000 : 0,
      }),
    );
    const findings = diagnose({ observations, samples });
    expect(kinds(findings)).toEqual(['kv-pressure']);
    expect(findings[0]!.evidence).toMatch(/99%/);
    expect(findings[0]!.evidence).toMatch(/19 preemptions/);
  });

  it('names prefill-bound when TTFT grows with the prompt bucket', () => {
    const observations = Array.from({ length: 40 }, (_, i) => {
      const prompt = [128, 512, 2048, 8192][i % 4]!;
      return obs({ sentMs: i * 100, promptTokens: prompt, ttftMs: prompt / 4 });
    });
    const findings = diagnose({ observations });
    expect(kinds(findings)).toEqual(['prefill-bound']);
    expect(findings[0]!.evidence).toMatch(/128–255 tokens/);
    expect(findings[0]!.evidence).toMatch(/8192–16383 tokens/);
  });

  it('names decode-bound when TPOT grows with running', () => {
    const { observations, samples } = steadyRun(
      () => 50,
      (t) => ({ waiting: 0, running: 1 + Math.floor(t / 5000), kvUsage: 0.4 }),
      (t) => ({ tpotMs: 10 + Math.floor(t / 5000) * 3 }),
    );
    expect(kinds(diagnose({ observations, samples }))).toEqual(['decode-bound']);
  });

  it('does not blame abort-on-disconnect for requests the run itself interrupted', () => {
    const observations = Array.from({ length: 20 }, (_, i) =>
      obs({
        sentMs: i * 100,
        outcome: i < 4 ? 'cancelled' : 'success',
        errorCode: i < 4 ? 'INTERRUPTED' : undefined,
      }),
    );
    const server = {
      engine: 'vllm' as const,
      metricsUrl: 'u',
      samples: 2,
      series: {},
      generatedTokens: 2000,
    };
    // The same server waste with users who gave up is named; with the run's own cut it is not.
    expect(
      kinds(diagnose({ observations, summary: { server: { ...server, wastedTokens: 800 } } })),
    ).not.toContain('wasted-work');
    const userCancels = observations.map((o) => ({
      ...o,
      errorCode: o.outcome === 'cancelled' ? ('ABORTED' as const) : undefined,
    }));
    expect(
      kinds(diagnose({ observations: userCancels, summary: { server: { ...server, wastedTokens: 800 } } })),
    ).toContain('wasted-work');
  });

  it('names client-bound from late sends, wasted work from cancels, errors by code', () => {
    const observations = Array.from({ length: 20 }, (_, i) =>
      obs({
        sentMs: i * 100,
        dispatchLagMs: i % 2 === 0 ? 80 : 0,
        outcome: i < 4 ? 'cancelled' : i < 6 ? 'error' : 'success',
        errorCode: i >= 4 && i < 6 ? 'HTTP_UNAVAILABLE' : undefined,
      }),
    );
    const findings = diagnose({
      observations,
      summary: {
        server: {
          engine: 'vllm',
          metricsUrl: 'u',
          samples: 2,
          series: {},
          generatedTokens: 2000,
          wastedTokens: 800,
        },
      },
    });
    expect(new Set(kinds(findings))).toEqual(new Set(['client-bound', 'wasted-work', 'errors']));
    const wasted = findings.find((f) => f.kind === 'wasted-work')!;
    // 4 cancelled clients received 4 × 64 tokens; the server burnt 800
    expect(wasted.evidence).toMatch(/800 of 2000 generated tokens \(40%\)/);
    expect(wasted.evidence).toMatch(/544 of them generated after the client had gone/);
    expect(findings.find((f) => f.kind === 'errors')!.evidence).toMatch(/HTTP_UNAVAILABLE ×2/);
    // ranked
    for (let i = 1; i < findings.length; i++)
      expect(findings[i - 1]!.score).toBeGreaterThanOrEqual(findings[i]!.score);
    const text = renderFindings(findings);
    expect(text.split('\n').filter((l) => /^ {2}\d\./.test(l)).length).toBe(findings.length);
  });
});

describe('kv-pressure without time slices', () => {
  it("places the server's preemptions nowhere in time rather than failing (a virtual run has no samples)", () => {
    const server = {
      engine: 'goodput-sim',
      metricsUrl: 'virtual',
      samples: 0,
      series: {},
      preemptions: 4,
    } as const;
    const f = kvPressureFinding([], { server });
    expect(f?.kind).toBe('kv-pressure');
    expect(f?.evidence).toMatch(/^4 preemptions/);
    expect(f?.fromMs).toBeUndefined();
  });
});
