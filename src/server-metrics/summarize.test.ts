import { describe, expect, it } from 'vitest';
import type { RequestRecord, ServerSample } from '../types.js';
import { clientHeldTokens, derivedFragmentation } from './fragmentation.js';
import {
  ClientViewBuilder,
  clientViewOf,
  counterDelta,
  measuredServerGeneratedTokens,
  seriesStats,
  summarizeServer,
} from './summarize.js';

const sample = (tMs: number, values: ServerSample['values']): ServerSample => ({
  tMs,
  engine: 'vllm',
  values,
});

function record(over: Partial<RequestRecord>): RequestRecord {
  return {
    id: 'r',
    index: 0,
    warmup: false,
    outcome: 'success',
    attempts: 1,
    scheduledMs: 0,
    sentMs: 0,
    firstSentMs: 0,
    endMs: 100,
    chunkMs: [],
    chunkChars: [],
    promptTokens: 0,
    outputTokens: 0,
    outputTokensSource: 'usage',
    maxTokens: 100,
    ...over,
  };
}

describe('counterDelta', () => {
  const cases: Array<[string, Array<number | undefined>, number | undefined]> = [
    ['no values', [undefined, undefined], undefined],
    ['one value', [5], 0],
    ['monotone', [5, 7, 7, 12], 7],
    ['reset counts the new value', [10, 15, 3, 8], 5 + 3 + 5],
    ['gaps are skipped', [1, undefined, 4], 3],
  ];
  for (const [label, values, expected] of cases) {
    it(label, () => {
      const samples = values.map((v, i) => sample(i, v === undefined ? {} : { preemptionsTotal: v }));
      expect(counterDelta(samples, 'preemptionsTotal')).toBe(expected);
    });
  }
});

describe('seriesStats', () => {
  it('matches a plain reference on random data', () => {
    const values = Array.from({ length: 50 }, (_, i) => Math.sin(i * 7.3) * 10 + i / 3);
    const stats = seriesStats(
      values.map((v, i) => sample(i, { waiting: v })),
      'waiting',
    );
    expect(stats).toEqual({
      min: Math.min(...values),
      max: Math.max(...values),
      mean: expect.closeTo(values.reduce((a, b) => a + b, 0) / values.length, 10),
      last: values.at(-1),
    });
  });
});

describe('summarizeServer', () => {
  const samples = [
    sample(0, {
      running: 0,
      waiting: 0,
      kvUsage: 0,
      preemptionsTotal: 10,
      generationTokensTotal: 1000,
      prefixCacheQueriesTotal: 500,
      prefixCacheHitsTotal: 100,
      serverTtftSecondsSum: 1,
      serverTtftCount: 10,
    }),
    sample(1000, {
      running: 4,
      waiting: 2,
      kvUsage: 0.5,
      preemptionsTotal: 12,
      generationTokensTotal: 1600,
      prefixCacheQueriesTotal: 900,
      prefixCacheHitsTotal: 200,
      serverTtftSecondsSum: 2,
      serverTtftCount: 15,
    }),
    sample(2000, {
      running: 2,
      waiting: 0,
      kvUsage: 0.25,
      preemptionsTotal: 13,
      generationTokensTotal: 2000,
      prefixCacheQueriesTotal: 1500,
      prefixCacheHitsTotal: 400,
      serverTtftSecondsSum: 3,
      serverTtftCount: 20,
    }),
  ];
  const records = [
    record({ outputTokens: 600 }),
    record({ outputTokens: 150, outcome: 'cancelled' }),
    record({ outputTokens: 50, outcome: 'error' }),
    record({
      outputTokens: 100,
      outcome: 'cancelled',
      error: { code: 'INTERRUPTED', message: 'run stopped' },
    }),
  ];

  it('reports deltas, hit rate, server TTFT and wasted tokens', () => {
    const s = summarizeServer(samples, { metricsUrl: 'http://x/metrics', records, scrapeFailures: 1 });
    expect(s.engine).toBe('vllm');
    expect(s.samples).toBe(3);
    expect(s.scrapeFailures).toBe(1);
    expect(s.preemptions).toBe(3);
    expect(s.preemptionsPerS).toBeCloseTo(3 / 2, 12); // samples span 0–2000 ms
    expect(s.prefixCacheHitRate).toBeCloseTo(300 / 1000, 12);
    expect(s.serverTtftMeanMs).toBeCloseTo((2 / 10) * 1000, 9);
    expect(s.generatedTokens).toBe(1000);
    // as the run's goodput: generated − successful (600) − interrupted by the run (100, neither
    // useful nor wasted); the cancelled and the failed request's tokens are waste
    expect(s.wastedTokens).toBe(1000 - 600 - 100);
    expect(s.series.waiting).toEqual({ min: 0, mean: 2 / 3, max: 2, last: 0 });
    expect(s.series.serverTtftSecondsSum).toBeUndefined();
  });

  it('falls back to the server wasted-token counter without records', () => {
    const withWaste = samples.map((x, i) => ({ ...x, values: { ...x.values, wastedTokensTotal: i * 40 } }));
    expect(summarizeServer(withWaste, { metricsUrl: 'u' }).wastedTokens).toBe(80);
  });

  it('uses the server fragmentation gauge over samples with KV in use', () => {
    const frag = samples.map((x, i) => ({
      ...x,
      values: { ...x.values, kvFragmentation: [0.9, 0.2, 0.4][i] },
    }));
    const s = summarizeServer(frag, { metricsUrl: 'u' });
    expect(s.fragmentationSource).toBe('server');
    expect(s.kvFragmentation).toBeCloseTo(0.3, 12);
  });

  it('measured generated tokens exclude what warmup requests received', () => {
    const s = summarizeServer(samples, { metricsUrl: 'u' });
    const withWarmup = [...records, record({ warmup: true, outputTokens: 100 })];
    expect(measuredServerGeneratedTokens(s, withWarmup)).toBe(900);
  });
});

describe('derived fragmentation (vLLM)', () => {
  // a: prompt 100, 40 output tokens streamed evenly from t=10 to t=50.
  // b: prompt 60 (server says 64), 40 output tokens from t=35 to t=75.
  const a = record({ sentMs: 0, firstTokenMs: 10, endMs: 50, promptTokens: 100, outputTokens: 40 });
  const b = record({
    sentMs: 5,
    firstTokenMs: 35,
    endMs: 75,
    promptTokens: 60,
    serverPromptTokens: 64,
    outputTokens: 40,
  });
  const spans = clientViewOf([a, b]).spans;

  it('counts prompt + delivered output of requests past their first token', () => {
    expect(clientHeldTokens(spans, 20)).toBe(100 + 10);
    expect(clientHeldTokens(spans, 45)).toBe(100 + 35 + 64 + 10);
    expect(clientHeldTokens(spans, 90)).toBe(0);
  });

  it('adds the earliest prefilling requests when the server runs more than the client sees', () => {
    expect(clientHeldTokens(spans, 20, 2)).toBe(100 + 10 + 64);
  });

  it('1 − held / (kvUsage × blocks × blockSize), clamped', () => {
    const at = (kvUsage: number) =>
      derivedFragmentation(sample(45, { kvUsage, numBlocks: 100, blockSize: 16, running: 2 }), spans);
    expect(at(0.2)).toBeCloseTo(1 - 209 / 320, 12);
    expect(at(0.1)).toBe(0); // held > allocated (shared prefix blocks): clamped
    expect(at(0)).toBeUndefined();
    expect(derivedFragmentation(sample(45, { kvUsage: 0.5 }), spans)).toBeUndefined();
  });

  it('summarizeServer derives it from records when the server does not expose it', () => {
    const layout = { numBlocks: 100, blockSize: 16, running: 2 };
    const s = summarizeServer(
      [sample(20, { kvUsage: 0.1, ...layout }), sample(45, { kvUsage: 0.2, ...layout })],
      {
        metricsUrl: 'u',
        records: [a, b],
      },
    );
    expect(s.fragmentationSource).toBe('derived');
    expect(s.kvFragmentation).toBeCloseTo(
      // t=20: held 174 > allocated 160 → clamped to 0; t=45: 1 − 209/320
      (0 + (1 - 209 / 320)) / 2,
      12,
    );
  });
});

describe('folding ended requests into the samples they cover', () => {
  it('gives the same derived fragmentation as keeping every span, with far fewer spans kept', () => {
    // A seeded run: 5,000 requests over 100 s, scraped every second, a varying server load.
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const samples: ServerSample[] = [];
    const records: RequestRecord[] = [];
    for (let i = 0; i < 5000; i++) {
      const sentMs = i * 20 + rand() * 10;
      const firstTokenMs = sentMs + 20 + rand() * 400;
      records.push(
        record({
          index: i,
          sentMs,
          firstTokenMs: rand() < 0.05 ? undefined : firstTokenMs,
          endMs: firstTokenMs + 200 + rand() * 3000,
          promptTokens: 100 + Math.floor(rand() * 2000),
          outputTokens: 1 + Math.floor(rand() * 300),
        }),
      );
    }
    records.sort((x, y) => x.endMs - y.endMs); // the order requests end in
    const live: ServerSample[] = [];
    const builder = new ClientViewBuilder(live);
    let next = 0;
    for (let t = 0; t <= 106_000; t += 1000) {
      while (next < records.length && records[next]!.endMs <= t) builder.add(records[next++]!);
      const s = sample(t, {
        kvUsage: 0.3 + 0.6 * rand(),
        numBlocks: 20_000,
        blockSize: 16,
        running: Math.floor(rand() * 200),
      });
      live.push(s);
      samples.push(s);
    }
    while (next < records.length) builder.add(records[next++]!);
    const view = builder.build();
    expect(view.spans.length).toBeLessThan(1024 * 2);
    expect(view.folded?.size).toBeGreaterThan(50);
    const folded = summarizeServer(samples, { metricsUrl: 'u', records: view });
    const plain = summarizeServer(samples, { metricsUrl: 'u', records });
    expect(plain.fragmentationSource).toBe('derived');
    expect(folded.kvFragmentation).toBeCloseTo(plain.kvFragmentation!, 9);
  });
});

describe('speculative decoding over the run', () => {
  const cases: Array<{
    label: string;
    values: Array<ServerSample['values']>;
    /** vllm:spec_decode_num_accepted_tokens_per_pos_total by position, per sample. */
    byPosition?: number[][];
    rate: number | undefined;
    length: number | undefined;
    perPosition: number[] | undefined;
  }> = [
    {
      label: 'deltas, not the lifetime totals',
      values: [
        { specDraftsTotal: 1000, specDraftTokensTotal: 3000, specAcceptedTokensTotal: 2900 },
        { specDraftsTotal: 1100, specDraftTokensTotal: 3300, specAcceptedTokensTotal: 3050 },
        { specDraftsTotal: 1200, specDraftTokensTotal: 3600, specAcceptedTokensTotal: 3200 },
      ],
      byPosition: [
        [1000, 1000, 900],
        [1070, 1050, 930],
        [1150, 1100, 950],
      ],
      // 300 accepted of 600 drafted, over 200 drafts; by position 150, 100 and 50 of the 200 drafts.
      rate: 300 / 600,
      length: 1 + 300 / 200,
      perPosition: [150 / 200, 100 / 200, 50 / 200],
    },
    {
      label: 'a server restart counts the new value',
      values: [
        { specDraftsTotal: 500, specDraftTokensTotal: 2000, specAcceptedTokensTotal: 1000 },
        { specDraftsTotal: 10, specDraftTokensTotal: 40, specAcceptedTokensTotal: 30 },
      ],
      byPosition: [
        [400, 350, 250],
        [10, 10, 10],
      ],
      rate: 30 / 40,
      length: 1 + 30 / 10,
      perPosition: [1, 1, 1],
    },
    {
      label: 'no per-position counter (older vLLM): the totals only',
      values: [
        { specDraftsTotal: 0, specDraftTokensTotal: 0, specAcceptedTokensTotal: 0 },
        { specDraftsTotal: 4, specDraftTokensTotal: 8, specAcceptedTokensTotal: 6 },
      ],
      rate: 6 / 8,
      length: 1 + 6 / 4,
      perPosition: undefined,
    },
    {
      label: 'no drafts during the run: undefined, not NaN',
      values: [
        { specDraftsTotal: 5, specDraftTokensTotal: 15, specAcceptedTokensTotal: 9 },
        { specDraftsTotal: 5, specDraftTokensTotal: 15, specAcceptedTokensTotal: 9 },
      ],
      byPosition: [
        [5, 4],
        [5, 4],
      ],
      rate: undefined,
      length: undefined,
      perPosition: undefined,
    },
    {
      label: 'no speculative decoding',
      values: [{ running: 1 }, { running: 2 }],
      rate: undefined,
      length: undefined,
      perPosition: undefined,
    },
  ];
  for (const c of cases) {
    it(c.label, () => {
      const s = summarizeServer(
        c.values.map((v, i) => {
          const at = sample(i * 1000, v);
          const perPos = c.byPosition?.[i];
          return perPos ? { ...at, specAcceptedByPosition: perPos } : at;
        }),
        { metricsUrl: 'u' },
      );
      expect(s.specAcceptanceRate).toBe(c.rate);
      expect(s.specMeanAcceptedLength).toBe(c.length);
      expect(s.specAcceptanceRateByPosition).toEqual(c.perPosition);
      if (c.perPosition) {
        // vLLM's identity: the per-position rates add up to the mean accepted length minus the bonus token.
        const sum = c.perPosition.reduce((a, b) => a + b, 0);
        expect(sum).toBeCloseTo(c.length! - 1, 12);
      }
    });
  }
});
