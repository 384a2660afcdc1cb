import { describe, expect, it } from 'vitest';
import { METRICS, metric } from './catalogue.js';
import { vllmValue } from './vllm.js';

describe('vllmValue', () => {
  it.each([
    ['ttft_p99', { p99_ttft_ms: 340.7 }, 340.7],
    ['ttft_p999', { 'p99.9_ttft_ms': 401 }, 401],
    ['e2el_mean', { mean_e2el_ms: 590.1 }, 590.1],
    ['itl_std', { std_itl_ms: 0.8 }, 0.8],
    ['tpot_p50', { p50_tpot_ms: 20.5, median_tpot_ms: 99 }, 20.5],
    ['tpot_p50', { median_tpot_ms: 20.4 }, 20.4],
    ['request_goodput', { request_goodput: 1.2 }, 1.2],
    ['completed', { completed: 0 }, 0],
    // Missing, null (vLLM writes null goodput without --goodput) or non-numeric: not measured.
    ['request_goodput', { request_goodput: null }, undefined],
    ['ttft_p90', { p99_ttft_ms: 1 }, undefined],
    ['ttft_p99', { p99_ttft_ms: '340' }, undefined],
    // No vLLM key at all: goodput's own figures are never read from a vLLM file.
    ['attainment', { attainment: 1 }, undefined],
    ['error_rate', { error_rate: 0 }, undefined],
    ['ttft_max', { max_ttft_ms: 3 }, undefined],
    ['queue_wait_p99', { p99_queue_wait_ms: 3 }, undefined],
  ])('%s of %j is %s', (id, result, expected) => {
    expect(vllmValue(result, metric(id))).toBe(expected);
  });

  it('reads every catalogue metric with a vLLM key under exactly that key', () => {
    const withKey = METRICS.filter((m) => m.vllmKey !== undefined);
    expect(withKey.length).toBeGreaterThan(20);
    for (const [i, def] of withKey.entries()) {
      expect(vllmValue({ [def.vllmKey as string]: i + 0.5 }, def), def.id).toBe(i + 0.5);
    }
  });
});
