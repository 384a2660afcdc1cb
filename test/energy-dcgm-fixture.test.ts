/**
 * Energy and cost from the repository's DCGM exporter page (src/server-metrics/fixtures/dcgm.prom,
 * two H100s drawing 412.877 W and 298.511 W), hand-computed: two scrapes 10 s apart whose energy
 * counters grew by what those powers draw in 10 s, through the real parser, normaliser and GPU
 * summary, into the figures of a 100 s run of 200,000 input and 50,000 output tokens (40,000 good).
 */
import { describe, expect, it } from 'vitest';
import { efficiencyOf, metric } from '../src/metrics/index.js';
import { normalizeDcgm, parsePrometheusText, summarizeGpu } from '../src/server-metrics/index.js';
import type { GpuSample, RunSummary } from '../src/types.js';
import { DCGM_FIXTURE, dcgmPage } from './helpers/dcgm-fixture.js';

const E0 = { '0': 918273645512, '1': 877102938411 };
// 412.877 W × 10 s = 4,128.77 J = 4,128,770 mJ; 298.511 W × 10 s = 2,985,110 mJ.
const later = dcgmPage((name, gpu) =>
  name === 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION'
    ? E0[gpu as '0' | '1'] + (gpu === '0' ? 4_128_770 : 2_985_110)
    : undefined,
);
const scrape = (tMs: number, page: string): GpuSample => ({
  tMs,
  gpus: normalizeDcgm(parsePrometheusText(page)),
});
const gpu = summarizeGpu([scrape(0, DCGM_FIXTURE), scrape(10_000, later)], {
  metricsUrl: 'http://gpu:9400/metrics',
});

const summary = {
  duration: 100,
  total_input_tokens: 200_000,
  total_output_tokens: 50_000,
  goodput: { goodOutputTokens: 40_000 },
  server: { engine: 'unknown', metricsUrl: '', samples: 0, series: {}, gpu },
} as unknown as RunSummary;

describe('energy and cost on the DCGM fixture', () => {
  it('the GPU block: 7,113.88 J over 10 s, two GPUs', () => {
    expect(gpu.gpuCount).toBe(2);
    expect(gpu.energy!.joules).toBeCloseTo(7113.88, 9);
    expect(gpu.energy!.seconds).toBe(10);
  });

  const eff = efficiencyOf(summary, { costPerHour: 2.5, costPer: 'gpu' })!;
  summary.efficiency = eff;
  // P = 7,113.88 J / 10 s = 711.388 W (the gauges' sum, as it should be); E = P × 100 s = 71,138.8 J.
  // Cost: 2.5 per GPU-hour × 2 GPUs = 5 per hour; 100 s cost 5 / 36 = 0.138889.
  it.each([
    ['power (W)', eff.energy!.powerW, 711.388],
    ['energy (J)', eff.energy!.joules, 71_138.8],
    ['joules_per_output_token', metric('joules_per_output_token').read(summary), 71_138.8 / 50_000],
    ['output_tokens_per_joule', metric('output_tokens_per_joule').read(summary), 50_000 / 71_138.8],
    ['goodput_per_watt', metric('goodput_per_watt').read(summary), 400 / 711.388],
    ['run cost', eff.cost!.runCost, 5 / 36],
    ['cost_per_mtok', metric('cost_per_mtok').read(summary), 2.777_777_777_777_8],
    ['cost_per_mtok_input', metric('cost_per_mtok_input').read(summary), 0.694_444_444_444_4],
    ['cost_per_mtok_good', metric('cost_per_mtok_good').read(summary), 3.472_222_222_222_2],
  ])('%s', (_name, got, want) => {
    expect(got).toBeCloseTo(want, 9);
  });

  it('measured, so nothing assumed', () => {
    expect(eff.energy!.source).toBe('dcgm-energy');
    expect(eff.gpuCountSource).toBe('dcgm');
    expect(eff.assumptions).toEqual([]);
  });
});
