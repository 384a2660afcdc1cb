/**
 * Hand-built RunSummary and RequestRecord fixtures for the pure tests of compare, gate and adr.
 * Latency statistics are computed here with a plain sorted-array definition, so that a test
 * states its inputs as values and its expectations from those same values.
 *
 * @module
 */

import type {
  LatencyStats,
  RequestRecord,
  RunMeta,
  RunSummary,
  SummaryLatencyName,
} from '../../src/types.js';

/** Plain statistics of a list of values (linear-interpolation percentiles). */
export function statsOf(values: number[]): LatencyStats {
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  const q = (p: number) => {
    if (n === 0) return 0;
    const h = p * (n - 1);
    const lo = Math.floor(h);
    const hi = Math.min(lo + 1, n - 1);
    return (s[lo] as number) + (h - lo) * ((s[hi] as number) - (s[lo] as number));
  };
  const mean = n === 0 ? 0 : s.reduce((a, b) => a + b, 0) / n;
  const std = n === 0 ? 0 : Math.sqrt(s.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
  return {
    count: n,
    mean,
    std,
    min: s[0] ?? 0,
    max: s[n - 1] ?? 0,
    p50: q(0.5),
    p90: q(0.9),
    p95: q(0.95),
    p99: q(0.99),
    p999: q(0.999),
  };
}

export function makeMeta(over: Partial<RunMeta> = {}): RunMeta {
  return {
    tool: { name: 'goodput', version: '0.0.0-test' },
    runId: 'run-test',
    startedAt: '2025-01-02T03:04:05.000Z',
    target: { baseUrl: 'http://127.0.0.1:1', api: 'chat', embedded: true },
    model: 'sim-model',
    sampling: { temperature: 0, maxTokens: 16, ignoreEos: true, seed: 1 },
    workload: { kind: 'synthetic', api: 'chat', promptTokens: 64, maxTokens: 16, tokenizer: 'o200k_base' },
    load: { mode: 'closed', concurrency: 4, requests: 100, warmup: 0, timeoutMs: 60000, maxRetries: 1 },
    slo: {},
    seed: 1,
    ...over,
  };
}

export interface SummaryInput {
  meta?: Partial<RunMeta>;
  latency?: Partial<Record<SummaryLatencyName, number[]>>;
  attempted?: number;
  completed?: number;
  failed?: number;
  goodRequests?: number;
  durationS?: number;
  outputTokens?: number;
  tokenGoodputRatio?: number;
  server?: RunSummary['server'];
}

/** A complete RunSummary whose figures follow from the given inputs. */
export function makeSummary(input: SummaryInput = {}): RunSummary {
  const attempted = input.attempted ?? 100;
  const failed = input.failed ?? 0;
  const completed = input.completed ?? attempted - failed;
  const duration = input.durationS ?? 10;
  const outputTokens = input.outputTokens ?? completed * 16;
  const good = input.goodRequests ?? completed;
  const names: SummaryLatencyName[] = [
    'ttft',
    'tpot',
    'itl',
    'itlPerToken',
    'e2el',
    'queueWait',
    'ttftFromScheduled',
    'e2elFromScheduled',
  ];
  const latency = Object.fromEntries(names.map((k) => [k, statsOf(input.latency?.[k] ?? [])])) as Record<
    SummaryLatencyName,
    LatencyStats
  >;
  const flat: Record<string, number> = {};
  for (const l of ['ttft', 'tpot', 'itl', 'e2el'] as const) {
    const st = latency[l];
    flat[`mean_${l}_ms`] = st.mean;
    flat[`median_${l}_ms`] = st.p50;
    flat[`std_${l}_ms`] = st.std;
    for (const [key, field] of [
      ['p50', 'p50'],
      ['p90', 'p90'],
      ['p95', 'p95'],
      ['p99', 'p99'],
      ['p99.9', 'p999'],
    ] as const)
      flat[`${key}_${l}_ms`] = st[field];
  }
  const summary = {
    ...flat,
    schemaVersion: 1,
    kind: 'goodput.run',
    meta: makeMeta(input.meta),
    duration,
    completed,
    failed,
    total_input_tokens: completed * 64,
    total_output_tokens: outputTokens,
    request_throughput: completed / duration,
    request_goodput: good / duration,
    output_throughput: outputTokens / duration,
    total_token_throughput: (outputTokens + completed * 64) / duration,
    max_output_tokens_per_s: outputTokens / duration,
    max_concurrent_requests: 4,
    counts: {
      attempted,
      completed,
      failed,
      cancelled: attempted - completed - failed,
      warmup: 0,
      retries: 0,
      usageMissing: 0,
      promptTokenMismatch: 0,
    },
    latency,
    throughput: {
      requestsPerS: completed / duration,
      outputTokensPerS: outputTokens / duration,
      totalTokensPerS: (outputTokens + completed * 64) / duration,
      peakOutputTokensPerS: outputTokens / duration,
    },
    goodput: {
      slo: {},
      goodRequests: good,
      attempted,
      attainment: attempted > 0 ? good / attempted : 0,
      requestGoodput: good / duration,
      usefulOutputTokens: outputTokens,
      totalOutputTokens: outputTokens,
      wastedOutputTokens: 0,
      tokenGoodputRatio: input.tokenGoodputRatio ?? 1,
      tokenSource: 'client',
    },
    errors: [],
    load: {
      dispatchLag: statsOf([]),
      lateSends: 0,
      dropped: 0,
      clientBound: false,
      peakInFlight: 4,
    },
    histograms: {},
    interrupted: false,
  } as unknown as RunSummary;
  if (input.server) summary.server = input.server;
  return summary;
}

/** A successful record with the given TTFT, per-token gap and output length (times from 0). */
export function makeRecord(i: number, ttftMs: number, gapMs: number, outputTokens = 8): RequestRecord {
  const sentMs = i * 1000;
  const chunkMs = Array.from({ length: outputTokens }, (_, k) => sentMs + ttftMs + k * gapMs);
  return {
    id: `r-${i}`,
    index: i,
    warmup: false,
    outcome: 'success',
    attempts: 1,
    scheduledMs: sentMs,
    sentMs,
    firstSentMs: sentMs,
    firstTokenMs: sentMs + ttftMs,
    endMs: chunkMs[chunkMs.length - 1] as number,
    chunkMs,
    chunkChars: chunkMs.map(() => 4),
    promptTokens: 64,
    outputTokens,
    outputTokensSource: 'usage',
    maxTokens: outputTokens,
    finishReason: 'length',
  };
}
