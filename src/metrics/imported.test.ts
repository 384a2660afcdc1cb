import { describe, expect, it } from 'vitest';
import {
  AIPERF_EXPORT,
  GENAI_PERF_EXPORT,
  GUIDELLM_EMPTY,
  GUIDELLM_SINGLE,
  GUIDELLM_SWEEP,
} from '../../test/fixtures/foreign-results.js';
import { METRICS, metric } from './catalogue.js';
import { toMs } from './import-common.js';
import { importedValue, importResult, impossibleFigure, pickBenchmark } from './imported.js';
import type { MetricDef } from './metric-def.js';

const FILE = { path: 'x.json', sha256: 'a'.repeat(64) };

describe('toMs', () => {
  it.each([
    [1.2345, 's', 1234.5],
    [2, 'sec', 2000],
    [250, 'ms', 250],
    [1234, 'us', 1.234],
    [1_234_000, 'ns', 1.234],
    [5, 'minutes', undefined],
  ])('%s %s is %s ms', (v, unit, ms) => expect(toMs(v, unit)).toBe(ms));
});

describe('importResult: vLLM', () => {
  it('reads the old request_inthroughput spelling, and says so', () => {
    const [r] = importResult('vllm', { mean_ttft_ms: 10, request_inthroughput: 3.5, completed: 7 }, FILE);
    expect(r?.figures).toEqual({ ttft_mean: 10, request_throughput: 3.5, completed: 7 });
    expect(r?.notes.join()).toContain('request_inthroughput');
  });

  it("never takes vLLM's failed (attempted − completed) for goodput's failed (errors only)", () => {
    const [r] = importResult('vllm', { mean_ttft_ms: 10, failed: 2 }, FILE);
    expect(r?.figures.failed).toBeUndefined();
    expect(r?.missing).toContain('failed');
  });
});

describe('importResult: impossible figures', () => {
  it('a negative latency or throughput, or a ratio above 1, is not measured, and said so', () => {
    const [r] = importResult(
      'vllm',
      { p99_ttft_ms: -5, mean_ttft_ms: 12, request_throughput: -10, output_throughput: 80, completed: 4 },
      FILE,
    );
    expect(r?.figures).toEqual({ ttft_mean: 12, output_throughput: 80, completed: 4 });
    expect(r?.missing).toEqual(expect.arrayContaining(['ttft_p99', 'request_throughput']));
    expect(r?.notes.join('\n')).toMatch(/-5 is negative\) is impossible: not measured/);
    expect(r?.notes.join('\n')).toMatch(/-10 is negative\) is impossible/);
  });
  it.each([
    ['ms', -0.001, /negative/],
    ['ratio', 1.5, /above 1/],
    ['ratio', 1, undefined],
    ['req/s', 0, undefined],
    ['count', Number.NaN, /not a number/],
  ] as const)('%s %d → %s', (unit, value, why) => {
    const got = impossibleFigure({ unit } as MetricDef, value);
    if (why === undefined) expect(got).toBeUndefined();
    else expect(got).toMatch(why);
  });
});

describe('importResult: vLLM per-request arrays', () => {
  it('reads ttfts and itls of the successful requests, seconds to ms; failed ones (an error) left out', () => {
    const [r] = importResult(
      'vllm',
      {
        mean_ttft_ms: 1,
        ttfts: [0.25, 0, 0.5],
        itls: [[0.02, 0.0125], [], [0.03]],
        output_lens: [3, 0, 2],
        errors: ['', 'HTTP 500', ''],
      },
      FILE,
    );
    expect(r?.samples).toEqual({ ttftMs: [250, 500], itlMs: [20, 12.5, 30], outputTokens: [3, 2] });
    expect(r?.notes.join()).toContain('per-request ttfts and itls of 2 successful requests');
  });

  it('a file without them (a summary only) has no samples', () => {
    const [r] = importResult('vllm', { mean_ttft_ms: 1, ttfts: [] }, FILE);
    expect(r?.samples).toBeUndefined();
  });
});

describe('importResult: guidellm', () => {
  const runs = importResult('guidellm', GUIDELLM_SWEEP, FILE);

  it('makes each benchmark of a sweep a run, named by its strategy', () => {
    expect(runs.map((r) => r.source.benchmark)).toEqual([
      { index: 1, count: 3, label: 'synchronous' },
      { index: 2, count: 3, label: 'constant 4 req/s' },
      { index: 3, count: 3, label: 'constant 8 req/s' },
    ]);
    expect(runs[0]?.model).toBe('meta-llama/Llama-3.1-8B-Instruct');
  });

  it('takes TTFT as stated and request latency converted from seconds exactly', () => {
    const r = runs[1]!;
    expect(importedValue(r, metric('ttft_p99'))).toBe(240.25);
    expect(importedValue(r, metric('ttft_p999'))).toBe(250.25);
    expect(importedValue(r, metric('ttft_std'))).toBe(2);
    expect(importedValue(r, metric('e2el_p99'))).toBe(2500);
    expect(importedValue(runs[0]!, metric('e2el_p99'))).toBe(1234.5);
    expect(importedValue(r, metric('request_throughput'))).toBe(3.9);
    expect(importedValue(r, metric('output_throughput'))).toBe(3.9 * 128);
    expect(importedValue(r, metric('completed'))).toBe(120);
    expect(importedValue(r, metric('failed'))).toBe(1);
  });

  it("leaves TPOT and ITL missing: guidellm's figures are defined otherwise, and the notes say why", () => {
    const r = runs[0]!;
    for (const id of ['tpot_p99', 'tpot_p50', 'itl_p99', 'itl_mean']) {
      expect(importedValue(r, metric(id)), id).toBeUndefined();
      expect(r.missing, id).toContain(id);
    }
    expect(r.notes.join('\n')).toMatch(/weights each request by its output tokens − 1/);
  });

  it('an empty distribution (zeros, count 0) is missing, never 0', () => {
    const bench = structuredClone(GUIDELLM_SINGLE.benchmarks[0]!);
    bench.metrics.time_to_first_token_ms.successful = GUIDELLM_EMPTY;
    const [r] = importResult('guidellm', { benchmarks: [bench] }, FILE);
    expect(importedValue(r!, metric('ttft_p99'))).toBeUndefined();
    expect(r?.missing).toContain('ttft_p50');
    expect(importedValue(r!, metric('e2el_p99'))).toBe(1500);
  });

  it('a single benchmark is labelled but needs no selector', () => {
    const single = importResult('guidellm', GUIDELLM_SINGLE, FILE);
    expect(pickBenchmark(single, undefined, 'g.json').source.benchmark?.label).toBe('concurrent 4 streams');
  });
});

describe('pickBenchmark', () => {
  const runs = importResult('guidellm', GUIDELLM_SWEEP, FILE);

  it('picks #N', () => {
    expect(importedValue(pickBenchmark(runs, 3, 's.json'), metric('ttft_p99'))).toBe(480.75);
  });

  it('refuses several without a selector, listing them', () => {
    expect(() => pickBenchmark(runs, undefined, 's.json')).toThrow(
      expect.objectContaining({
        code: 'E_USAGE',
        hint: expect.stringContaining('s.json#2: constant 4 req/s'),
      }),
    );
    expect(() => pickBenchmark(runs, 4, 's.json')).toThrow(/no benchmark #4: it holds 3/);
  });
});

describe('importResult: AIPerf and GenAI-Perf', () => {
  it('reads each metric with its unit: TTFT, TPOT (their per-request ITL), E2EL, rates, count', () => {
    const [r] = importResult('aiperf', AIPERF_EXPORT, FILE);
    expect(r?.figures).toMatchObject({
      ttft_mean: 158.5,
      ttft_p99: 342.25,
      ttft_min: 38.25,
      ttft_std: 12.5,
      tpot_p99: 55.875,
      e2el_p99: 9381.625,
      request_throughput: 13.25,
      output_throughput: 1282.5,
      completed: 200,
    });
    expect(r?.model).toBe('openai/gpt-oss-20b');
    expect(r?.date).toBe('2025-10-17T20:22:08.939332');
    // Not stated: p99.9, goodput (null), errors (null), ITL per chunk.
    for (const id of ['ttft_p999', 'request_goodput', 'failed', 'itl_p99'])
      expect(r?.missing, id).toContain(id);
  });

  it('converts a time stated in seconds and refuses a unit it does not know', () => {
    const [r] = importResult(
      'genai-perf',
      {
        time_to_first_token: { unit: 'sec', avg: 0.25, p99: 0.5 },
        request_latency: { unit: 'fortnights', avg: 1 },
        request_throughput: { unit: 'requests/min', avg: 60 },
      },
      FILE,
    );
    expect(r?.figures).toEqual({ ttft_mean: 250, ttft_p99: 500 });
    expect(r?.notes.join('\n')).toMatch(/request_latency: unit "fortnights" not understood/);
    expect(r?.notes.join('\n')).toMatch(/request_throughput: unit "requests\/min" not understood/);
  });

  it('GenAI-Perf: the same shape, the model from input_config.model', () => {
    const [r] = importResult('genai-perf', GENAI_PERF_EXPORT, FILE);
    expect(r?.figures.ttft_p99).toBe(290.125);
    expect(r?.figures.tpot_p50).toBe(12.25);
    expect(r?.model).toBe('gpt2');
  });
});

describe('missing', () => {
  it('lists exactly the catalogue ids without a figure', () => {
    const [r] = importResult('aiperf', AIPERF_EXPORT, FILE);
    const ids = METRICS.map((m) => m.id);
    expect([...Object.keys(r!.figures), ...r!.missing].sort()).toEqual([...ids].sort());
  });
});
