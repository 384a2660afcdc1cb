import { describe, expect, test } from 'vitest';
import {
  failed,
  histogramTolerance,
  referenceStats,
  runMeta,
  seeded,
  streamed,
} from '../../test/fixtures/records.js';
import type { LatencyStats, RequestRecord, RunSummary } from '../types.js';
import { RunAccumulator, summarizeRecords } from './accumulator.js';

const SLO = { ttftMs: 150, tpotMs: 25, e2elMs: 500 };

/** A hand-built run: every kind of miss, a warmup, a retry, a cancel, several prompt lengths. */
function scenario(): RequestRecord[] {
  return [
    streamed({ index: 0, warmup: true, sentMs: 0, ttft: 5000 }), // excluded
    streamed({ index: 1, sentMs: 1000, ttft: 100, gap: 20, tokens: 11 }), // good
    streamed({ index: 2, sentMs: 1200, ttft: 200, gap: 20, tokens: 11, promptTokens: 1000 }), // TTFT miss
    streamed({ index: 3, sentMs: 1500, ttft: 100, gap: 30, tokens: 11, promptTokens: 1000 }), // TPOT miss
    streamed({ index: 4, sentMs: 2100, ttft: 100, gap: 45, tokens: 11, promptTokens: 3000 }), // E2EL miss
    failed('TIMEOUT', { index: 5, sentMs: 2200, outputTokens: 3, outputTokensSource: 'counted' }),
    failed('HTTP_SERVER_ERROR', { index: 6, sentMs: 2300, httpStatus: 500 }),
    failed('HTTP_SERVER_ERROR', {
      index: 7,
      sentMs: 2400,
      error: { code: 'HTTP_SERVER_ERROR', message: 'second' },
    }),
    streamed({
      index: 8,
      sentMs: 2500,
      outcome: 'cancelled',
      error: { code: 'ABORTED', message: 'user gave up' },
      tokens: 4,
      outputTokensSource: 'counted',
    }),
    streamed({
      index: 9,
      scheduledMs: 2950,
      firstSentMs: 2960,
      sentMs: 3000,
      attempts: 2,
      ttft: 90,
      gap: 10,
      tokens: 11,
      outputTokensSource: 'counted',
      serverPromptTokens: 100, // client counted 128
    }), // good
  ];
}

const measured = (rs: RequestRecord[]) => rs.filter((r) => !r.warmup);
const ok = (rs: RequestRecord[]) => measured(rs).filter((r) => r.outcome === 'success');

function expectStatsNear(got: LatencyStats, values: number[]): void {
  const ref = referenceStats(values);
  expect(got.count).toBe(ref.count);
  expect(got.mean).toBeCloseTo(ref.mean, 9);
  expect(got.std).toBeCloseTo(ref.std, 9);
  expect(got.min).toBeCloseTo(ref.min, 9);
  expect(got.max).toBeCloseTo(ref.max, 9);
  for (const k of ['p50', 'p90', 'p95', 'p99', 'p999'] as const) {
    expect(Math.abs(got[k] - ref[k])).toBeLessThanOrEqual(histogramTolerance(ref[k]));
  }
}

function findNonFinite(value: unknown, path = '$'): string[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => findNonFinite(v, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => findNonFinite(v, `${path}.${k}`));
  }
  return [];
}

const VLLM_KEYS = [
  ...['ttft', 'tpot', 'itl', 'e2el'].flatMap((m) =>
    ['mean', 'median', 'std', 'p50', 'p90', 'p95', 'p99', 'p99.9'].map((s) => `${s}_${m}_ms`),
  ),
  'duration',
  'completed',
  'failed',
  'total_input_tokens',
  'total_output_tokens',
  'request_throughput',
  'request_goodput',
  'output_throughput',
  'total_token_throughput',
  'max_output_tokens_per_s',
  'max_concurrent_requests',
];

describe('RunAccumulator.summarize', () => {
  const records = scenario();
  const meta = runMeta({ slo: SLO });
  const s = summarizeRecords(records, meta);

  test('a rehearsed warmup changes no figure: the same summary, warmup counted apart', () => {
    // Warmup records of every outcome, before and after the first measured one (an open loop's
    // warmup still in flight as its measured phase starts).
    const warm = scenario()
      .slice(1)
      .map((r) => ({ ...r, warmup: true, index: r.index + 100 }));
    const run = [...warm.slice(0, 6), ...records.slice(1, 4), ...warm.slice(6), ...records.slice(4)];
    const summarize = (rehearseWarmup: boolean) => {
      const acc = RunAccumulator.fromMeta(meta, { rehearseWarmup });
      for (const r of run) acc.add(r);
      return acc.summarize(meta, {});
    };
    const rehearsed = summarize(true);
    expect(rehearsed).toEqual(summarize(false));
    expect(rehearsed.counts.warmup).toBe(warm.length);
    expect(rehearsed.counts.attempted).toBe(measured(records).length);
    expect(rehearsed.latency.ttft).toEqual(s.latency.ttft);
    expect(rehearsed.latency.ttft.count).toBe(ok(records).length);
  });

  test('counts every outcome, warmup apart', () => {
    expect(s.counts).toEqual({
      attempted: 9,
      completed: 5,
      failed: 3,
      cancelled: 1,
      warmup: 1,
      retries: 1,
      usageMissing: 1,
      promptTokenMismatch: 1,
      interrupted: 0,
      overLimit: 0,
      endedEarly: 0,
    });
    expect(s.completed).toBe(5);
    expect(s.failed).toBe(4); // vLLM: everything not completed
  });

  test('latencies of successful measured requests match the sorted-array reference', () => {
    const succ = ok(records);
    expectStatsNear(
      s.latency.ttft,
      succ.map((r) => (r.firstTokenMs as number) - r.sentMs),
    );
    expectStatsNear(
      s.latency.e2el,
      succ.map((r) => r.endMs - r.sentMs),
    );
    expectStatsNear(
      s.latency.tpot,
      succ.map((r) => (r.endMs - (r.firstTokenMs as number)) / (r.outputTokens - 1)),
    );
    expectStatsNear(
      s.latency.itl,
      succ.flatMap((r) => r.chunkMs.slice(1).map((t, i) => t - (r.chunkMs[i] as number))),
    );
    expectStatsNear(
      s.latency.queueWait,
      succ.map((r) => r.firstSentMs - r.scheduledMs),
    );
    expectStatsNear(
      s.latency.e2elFromScheduled,
      succ.map((r) => r.endMs - r.scheduledMs),
    );
    expect(s.p99_ttft_ms).toBe(s.latency.ttft.p99);
    expect(s.median_e2el_ms).toBe(s.latency.e2el.p50);
    expect(s.std_itl_ms).toBe(s.latency.itl.std);
  });

  test('goodput counts failures, timeouts, cancels and each SLO miss as misses', () => {
    expect(s.goodput.goodRequests).toBe(2);
    expect(s.goodput.attempted).toBe(9);
    expect(s.goodput.attainment).toBeCloseTo(2 / 9, 12);
    const first = Math.min(...measured(records).map((r) => r.firstSentMs));
    const last = Math.max(...measured(records).map((r) => r.endMs));
    expect(s.duration).toBeCloseTo((last - first) / 1000, 12);
    expect(s.request_goodput).toBeCloseTo(2 / s.duration, 12);
    expect(s.request_throughput).toBeCloseTo(5 / s.duration, 12);
  });

  test('token goodput ratio: cancelled and failed output is waste (client-counted)', () => {
    const useful = ok(records).reduce((a, r) => a + r.outputTokens, 0);
    const all = measured(records).reduce((a, r) => a + r.outputTokens, 0);
    expect(useful).toBe(55);
    expect(all).toBe(62);
    expect(s.goodput).toMatchObject({
      usefulOutputTokens: useful,
      totalOutputTokens: all,
      wastedOutputTokens: all - useful,
      tokenSource: 'client',
    });
    expect(s.goodput.tokenGoodputRatio).toBeCloseTo(useful / all, 12);
    expect(s.total_output_tokens).toBe(useful);
  });

  test("token goodput ratio uses the server's counter when given", () => {
    const server = summarizeRecords(records, meta, { serverGeneratedTokens: 100 });
    expect(server.goodput).toMatchObject({
      totalOutputTokens: 100,
      wastedOutputTokens: 45,
      tokenSource: 'server',
    });
    expect(server.goodput.tokenGoodputRatio).toBeCloseTo(0.55, 12);
    const low = summarizeRecords(records, meta, { serverGeneratedTokens: 10 });
    expect(low.goodput.tokenGoodputRatio).toBe(1);
    expect(low.goodput.wastedOutputTokens).toBe(0);
  });

  test('errors by code, most frequent first, with the first message', () => {
    expect(s.errors).toEqual([
      { code: 'HTTP_SERVER_ERROR', count: 2, example: 'HTTP_SERVER_ERROR happened', httpStatus: 500 },
      { code: 'TIMEOUT', count: 1, example: 'TIMEOUT happened' },
    ]);
  });

  test('per-second peaks of output tokens and concurrency match a plain binning', () => {
    const tokens = new Map<number, number>();
    const active = new Map<number, number>();
    for (const r of ok(records)) {
      for (const t of r.chunkMs)
        tokens.set(Math.floor(t / 1000), (tokens.get(Math.floor(t / 1000)) ?? 0) + 1);
      for (let sec = Math.floor(r.sentMs / 1000); sec <= Math.floor(r.endMs / 1000); sec++) {
        active.set(sec, (active.get(sec) ?? 0) + 1);
      }
    }
    expect(s.max_output_tokens_per_s).toBe(Math.max(...tokens.values()));
    expect(s.max_concurrent_requests).toBe(Math.max(...active.values()));
    expect(s.throughput.peakOutputTokensPerS).toBe(s.max_output_tokens_per_s);
  });

  test('prompt buckets (powers of two) hold the right requests', () => {
    const ranges = s.buckets?.map((b) => [b.minTokens, b.maxTokens, b.count]);
    // 128 → [128,256): r1, r5..r9 (six, failures included); 1000 → [512,1024): two; 3000 → [2048,4096): one
    expect(ranges).toEqual([
      [128, 256, 6],
      [512, 1024, 2],
      [2048, 4096, 1],
    ]);
    const long = ok(records).filter((r) => r.promptTokens === 1000);
    expectStatsNear(
      s.buckets?.[1]?.ttft as LatencyStats,
      long.map((r) => (r.firstTokenMs as number) - r.sentMs),
    );
  });

  test('explicit bucket edges, and buckets off', () => {
    const edged = summarizeRecords(records, meta, {}, { promptBuckets: [256, 2048] });
    expect(edged.buckets?.map((b) => [b.minTokens, b.maxTokens, b.count])).toEqual([
      [0, 256, 6],
      [256, 2048, 2],
      [2048, Number.MAX_SAFE_INTEGER, 1],
    ]);
    expect(summarizeRecords(records, meta, {}, { promptBuckets: false }).buckets).toBeUndefined();
  });

  test('has every vLLM key, every RunSummary block, and no NaN or Infinity', () => {
    for (const key of VLLM_KEYS) expect(typeof (s as unknown as Record<string, unknown>)[key]).toBe('number');
    expect(findNonFinite(JSON.parse(JSON.stringify(s)))).toEqual([]);
    expect(findNonFinite(s)).toEqual([]);
    expect(s).toMatchObject({ schemaVersion: 1, kind: 'goodput.run', meta, interrupted: false });
    expect(Object.keys(s.histograms).sort()).toEqual(
      [
        'e2el',
        'e2elFromScheduled',
        'itl',
        'itlPerToken',
        'queueWait',
        'tpot',
        'ttft',
        'ttftFromScheduled',
        // every success has a first answer token; nothing reasoned, so no ttfrt / reasoningItl
        'ttfat',
        'answerItl',
      ].sort(),
    );
    expect(s.latency.ttfat).toEqual(s.latency.ttft);
    expect(s.latency.ttfrt).toBeUndefined();
    expect(s.reasoning).toBeUndefined();
  });

  test('no records, or only failures, gives zeros and no NaN', () => {
    const empty = summarizeRecords([], meta);
    const allFailed = summarizeRecords([failed('CONNECTION_REFUSED'), failed('CONNECTION_REFUSED')], meta);
    for (const x of [empty, allFailed]) {
      for (const key of VLLM_KEYS)
        expect(Number.isFinite((x as unknown as Record<string, number>)[key])).toBe(true);
      expect(findNonFinite(x)).toEqual([]);
      expect(x.mean_ttft_ms).toBe(0);
      expect(x.goodput.attainment).toBe(0);
    }
    expect(empty.duration).toBe(0);
    expect(allFailed.errors).toEqual([
      { code: 'CONNECTION_REFUSED', count: 2, example: 'CONNECTION_REFUSED happened' },
    ]);
  });

  test('extras from the runner pass through', () => {
    const x = summarizeRecords(records, meta, {
      durationS: 10,
      dropped: 3,
      peakInFlight: 7,
      clientBound: true,
      interrupted: true,
    });
    expect(x.duration).toBe(10);
    expect(x.request_throughput).toBe(0.5);
    expect(x.load).toMatchObject({ dropped: 3, peakInFlight: 7, clientBound: true });
    expect(x.interrupted).toBe(true);
  });
});

describe('servers that ignore the output limit or ignore_eos', () => {
  test('over-long outputs and, with ignore_eos, early stops are counted', () => {
    const over = streamed({ index: 1, sentMs: 0, tokens: 11 });
    over.maxTokens = 8; // 11 tokens came back for a limit of 8
    const early = streamed({ index: 2, sentMs: 10, tokens: 5 });
    early.maxTokens = 16;
    early.finishReason = 'stop';
    const full = streamed({ index: 3, sentMs: 20, tokens: 16 });
    full.maxTokens = 16;
    full.finishReason = 'length';
    const withEos = summarizeRecords(
      [over, early, full],
      runMeta({ sampling: { temperature: 0, maxTokens: 16, ignoreEos: true } }),
    );
    expect(withEos.counts.overLimit).toBe(1);
    expect(withEos.counts.endedEarly).toBe(1);
    const withoutEos = summarizeRecords(
      [over, early, full],
      runMeta({ sampling: { temperature: 0, maxTokens: 16, ignoreEos: false } }),
    );
    expect(withoutEos.counts.overLimit).toBe(1);
    expect(withoutEos.counts.endedEarly).toBe(0);
  });
});

describe('requests the run itself stopped', () => {
  test('INTERRUPTED requests are attempted but neither good nor misses in attainment', () => {
    const base = scenario();
    const interrupted = streamed({
      index: 10,
      sentMs: 3100,
      outcome: 'cancelled',
      error: { code: 'INTERRUPTED', message: 'run stopped' },
      tokens: 2,
      outputTokensSource: 'counted',
    });
    const before = summarizeRecords(base, runMeta({ slo: SLO }));
    const after = summarizeRecords([...base, interrupted], runMeta({ slo: SLO }));
    expect(after.counts.attempted).toBe(before.counts.attempted + 1);
    expect(after.counts.interrupted).toBe(1);
    expect(after.counts.cancelled).toBe(before.counts.cancelled);
    expect(after.goodput.attempted).toBe(before.goodput.attempted);
    expect(after.goodput.attainment).toBe(before.goodput.attainment);
  });
});

describe('load honesty (open loop)', () => {
  test('dispatch lag and late sends from every measured open-loop request', () => {
    const lags = [0, 5, 50, 9, 11];
    const rs = lags.map((lag, i) =>
      streamed({ index: i, scheduledMs: 1000 * i, firstSentMs: 1000 * i + lag, sentMs: 1000 * i + lag }),
    );
    rs.push(failed('TIMEOUT', { index: 9, scheduledMs: 9000, firstSentMs: 9030, sentMs: 9030 }));
    const s = summarizeRecords(
      rs,
      runMeta({ load: { mode: 'open', rate: 1, warmup: 0, timeoutMs: 1, maxRetries: 0 } }),
    );
    expectStatsNear(s.load.dispatchLag, [...lags, 30]);
    expect(s.load.lateSends).toBe(3);
    expect(s.load.clientBound).toBe(true);
    expect(typeof s.load.dispatchLagHistogram).toBe('string');
    const closed = summarizeRecords(rs, runMeta());
    expect(closed.load.dispatchLag.count).toBe(0);
    expect(closed.load.lateSends).toBe(0);
    expect(closed.load.clientBound).toBe(false);
  });
});

describe('chunks carrying several tokens', () => {
  test('ITL per token is token-weighted, and the peak counts every token of a chunk', () => {
    const r = streamed({
      sentMs: 0,
      firstTokenMs: 100,
      chunkMs: [100, 130, 190, 1010],
      chunkChars: [4, 12, 16, 8], // 1, 3, 4, 2 of 10 tokens
      outputTokens: 10,
      endMs: 1011,
    });
    const s = summarizeRecords([r], runMeta());
    // gaps 30, 60, 820 over 3, 4, 2 tokens: 10 ×3, 15 ×4, 410 ×2
    expectStatsNear(s.latency.itlPerToken, [10, 10, 10, 15, 15, 15, 15, 410, 410]);
    expectStatsNear(s.latency.itl, [30, 60, 820]);
    expect(s.max_output_tokens_per_s).toBe(8); // second 0: 1 + 3 + 4; second 1: 2
    expect(s.latency.tpot.mean).toBeCloseTo((1011 - 100) / 9, 12);
  });
});

describe('streaming accumulator', () => {
  test('summaries mid-run and at the end agree with summarising all at once', () => {
    const rnd = seeded(99);
    const rs = Array.from({ length: 300 }, (_, i) =>
      streamed({
        index: i,
        sentMs: i * 37,
        ttft: 50 + rnd() * 400,
        gap: 5 + rnd() * 40,
        tokens: 1 + Math.floor(rnd() * 30),
      }),
    );
    const meta = runMeta({ slo: { ttftMs: 300 } });
    const acc = RunAccumulator.fromMeta(meta);
    for (const r of rs.slice(0, 100)) acc.add(r);
    expect(acc.summarize(meta).counts.completed).toBe(100);
    for (const r of rs.slice(100)) acc.add(r);
    const streamedSummary: RunSummary = acc.summarize(meta);
    const once = summarizeRecords(rs, meta);
    expect(streamedSummary.latency).toEqual(once.latency);
    expect(streamedSummary.goodput.goodRequests).toBe(
      rs.filter((r) => (r.firstTokenMs as number) - r.sentMs <= 300).length,
    );
  });
});

describe('values that cannot be true never reach a summary as NaN, Infinity or a negative rate', () => {
  const meta = runMeta();
  /** Every number inside a value, with its path. */
  const numbers = (v: unknown, path = ''): Array<[string, number]> => {
    if (typeof v === 'number') return [[path, v]];
    if (Array.isArray(v)) return v.flatMap((x, i) => numbers(x, `${path}[${i}]`));
    if (v !== null && typeof v === 'object')
      return Object.entries(v).flatMap(([k, x]) => numbers(x, `${path}.${k}`));
    return [];
  };
  const claims: Array<[string, Partial<RequestRecord>]> = [
    ['negative output tokens', { outputTokens: -5 }],
    ['1e308 output tokens', { outputTokens: 1e308 }],
    ['NaN output tokens', { outputTokens: Number.NaN }],
    ['non-numeric output tokens', { outputTokens: 'lots' as unknown as number }],
    ['negative prompt tokens', { promptTokens: -100 }],
  ];
  test.each(claims)('%s', (_name, over) => {
    const records = [
      streamed({ index: 0, sentMs: 0, ttft: 50, gap: 10, tokens: 5 }),
      { ...streamed({ index: 1, sentMs: 100, ttft: 50, gap: 10, tokens: 5 }), ...over },
    ];
    for (const extras of [{}, { serverGeneratedTokens: -50 }, { serverGeneratedTokens: 1e308 }]) {
      const s = summarizeRecords(records, meta, extras);
      for (const [path, n] of numbers(s)) expect(Number.isFinite(n), `${path} = ${n}`).toBe(true);
      for (const n of [s.request_throughput, s.output_throughput, s.total_token_throughput]) {
        expect(n).toBeGreaterThanOrEqual(0);
      }
      expect(s.total_output_tokens).toBeGreaterThanOrEqual(0);
      expect(s.goodput.tokenGoodputRatio).toBeGreaterThanOrEqual(0);
      expect(s.goodput.tokenGoodputRatio).toBeLessThanOrEqual(1);
    }
  });
});

describe('RunAccumulator: reasoning phases', () => {
  test('first reasoning and first answer percentiles, and token totals, from hand-made records', () => {
    // Request k (k = 0..3): 2 + k reasoning chunks then 3 answer chunks, 10 ms apart from 50 ms.
    const records = [0, 1, 2, 3].map((k) => {
      const n = 2 + k + 3;
      return streamed({
        index: k,
        sentMs: 1000 * (k + 1),
        ttft: 50,
        gap: 10,
        tokens: n,
        chunkReasoningChars: Array.from({ length: n }, (_, i) => (i < 2 + k ? 4 : 0)),
        ...(k === 0 ? { reasoningTokens: 2, reasoningTokensSource: 'usage' as const } : {}),
      });
    });
    const s = summarizeRecords(records, runMeta());
    expect(s.latency.ttfrt?.count).toBe(4);
    expect(s.latency.ttfrt?.max).toBeCloseTo(50, 1);
    // first answer after 2, 3, 4, 5 reasoning chunks: 70, 80, 90, 100 ms
    expect(s.latency.ttfat?.min).toBeCloseTo(70, 1);
    expect(s.latency.ttfat?.max).toBeCloseTo(100, 1);
    expect(s.latency.reasoningItl?.count).toBe(1 + 2 + 3 + 4);
    expect(s.latency.answerItl?.count).toBe(4 * 2);
    expect(s.reasoning).toEqual({
      requests: 4,
      reasoningTokens: 2 + 3 + 4 + 5,
      answerTokens: 12,
      countedRequests: 3,
    });
  });
});
