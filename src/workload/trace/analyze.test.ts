import { describe, expect, it } from 'vitest';
import { analyzeTrace, lengthDistribution, prefixCacheBound } from './analyze.js';
import { parseTrace } from './load.js';
import { renderTraceAnalysis, traceAnalysisJson } from './render.js';

const trace = (rows: object[]) => parseTrace(rows.map((r) => JSON.stringify(r)).join('\n'), 't.jsonl');

describe('prefixCacheBound', () => {
  it('counts leading shared blocks up to the first miss, whole server blocks, never the last token', () => {
    const t = trace([
      { timestamp: 0, input_length: 8, output_length: 1, hash_ids: [1, 2] }, // nothing seen yet
      { timestamp: 1, input_length: 7, output_length: 1, hash_ids: [1, 3] }, // block 1 (4), then a miss
      { timestamp: 2, input_length: 8, output_length: 1, hash_ids: [1, 3] }, // 4 + the 3 tokens of block 3 seen → 6
      { timestamp: 3, input_length: 4, output_length: 1, hash_ids: [1] }, // 4 shared, but the last token is computed → 2
      { timestamp: 4, input_length: 8, output_length: 1, hash_ids: [9, 2] }, // first block misses: block 2 does not count
    ]);
    const bound = prefixCacheBound(t, 2, 4)!;
    expect(bound.hitTokens).toBe(4 + 6 + 2);
    expect(bound.promptTokens).toBe(35);
    expect(bound.hitRate).toBeCloseTo(12 / 35, 12);
    expect(bound.uniqueBlocks).toBe(4);
    // Larger server blocks reuse less of the same sharing.
    expect(prefixCacheBound(t, 4, 4)!.hitTokens).toBe(4 + 4 + 0);
  });

  it('is undefined without hash ids', () => {
    expect(
      prefixCacheBound(trace([{ timestamp: 0, input_length: 8, output_length: 1 }]), 16, 512),
    ).toBeUndefined();
  });
});

describe('analyzeTrace', () => {
  it('gives count, duration, rate over time and length distributions', () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({
      timestamp: i < 50 ? i * 20 : 1000 + (i - 50) * 100, // 50/s for 1 s, then 10/s for 5 s
      input_length: i + 1,
      output_length: 2 * (i + 1),
    }));
    const a = analyzeTrace(trace(rows), { bins: 6 });
    expect(a.requests).toBe(100);
    expect(a.durationMs).toBe(5900);
    expect(a.meanRate).toBeCloseTo(100 / 5.9, 9);
    expect(a.binMs).toBe(1000);
    expect(a.rateOverTime.map((b) => b.requests)).toEqual([50, 10, 10, 10, 10, 10]);
    expect(a.peakRate).toBe(50);
    expect(a.input).toMatchObject({ min: 1, max: 100, p50: 50, p90: 90, p99: 99, mean: 50.5, total: 5050 });
    expect(a.output).toMatchObject({ min: 2, max: 200, p50: 100 });
    expect(a.prefixCache).toBeUndefined();
    const text = renderTraceAnalysis(a);
    expect(text).toContain('requests      100');
    expect(text).toContain('no hash_ids');
    const json = JSON.parse(traceAnalysisJson(a));
    expect(json).toMatchObject({ kind: 'goodput.trace-analysis', requests: 100, durationMs: 5900 });
    expect(json.input.p90).toBe(90);
  });

  it('buckets lengths by powers of two', () => {
    const d = lengthDistribution(Uint32Array.from([1, 2, 3, 4, 5, 1000]));
    expect(d.histogram).toEqual([
      { upTo: 1, requests: 1 },
      { upTo: 2, requests: 1 },
      { upTo: 4, requests: 2 },
      { upTo: 8, requests: 1 },
      { upTo: 1024, requests: 1 },
    ]);
  });
});
