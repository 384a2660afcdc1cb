/**
 * Energy and cost figures, hand-computed: a run of 100 s, 200,000 input tokens, 50,000 output
 * tokens of which 40,000 from requests that met every SLO.
 */
import { describe, expect, it } from 'vitest';
import type { EfficiencyInputs, GpuSummary } from '../types.js';
import { type EfficiencyBase, efficiencyOf } from './efficiency.js';

/** `good: null`: a summary that kept no good-token count (written before it existed). */
function run(gpu?: Partial<GpuSummary>, good: number | null = 40_000): EfficiencyBase {
  return {
    duration: 100,
    total_input_tokens: 200_000,
    total_output_tokens: 50_000,
    goodput: (good === null ? {} : { goodOutputTokens: good }) as EfficiencyBase['goodput'],
    ...(gpu
      ? {
          server: {
            engine: 'unknown',
            metricsUrl: '',
            samples: 0,
            series: {},
            gpu: { metricsUrl: 'u', samples: 3, gpuCount: 2, gpus: [], ...gpu },
          },
        }
      : {}),
  };
}
const stats = (mean: number) => ({ min: mean, mean, max: mean, last: mean });

describe('efficiencyOf: energy', () => {
  it.each<[string, EfficiencyBase, EfficiencyInputs, Record<string, number | string | undefined>]>([
    [
      // ΣΔE 90,000 J over 90 s of scrapes = 1,000 W (the counter wins over the 1,200 W gauge);
      // 1,000 W × 100 s = 100,000 J; 100,000 / 50,000 = 2 J/tok; 40,000 / 100 s / 1,000 W = 0.4.
      'DCGM energy counter',
      run({ energy: { joules: 90_000, seconds: 90 }, powerW: stats(1200) }),
      {},
      {
        source: 'dcgm-energy',
        powerW: 1000,
        joules: 100_000,
        joulesPerOutputToken: 2,
        outputTokensPerJoule: 0.5,
        goodputPerWatt: 0.4,
      },
    ],
    [
      // 700 W × 100 s = 70,000 J; 1.4 J/tok; 40,000 / 100 / 700.
      'DCGM power gauge',
      run({ powerW: stats(700) }),
      {},
      {
        source: 'dcgm-power',
        powerW: 700,
        joules: 70_000,
        joulesPerOutputToken: 1.4,
        goodputPerWatt: 400 / 700,
      },
    ],
    [
      // 500 W × 2 GPUs = 1,000 W: as the energy counter above.
      'assumed power of 2 GPUs',
      run(),
      { gpuPowerWatts: 500, gpuCount: 2 },
      {
        source: 'assumed',
        powerW: 1000,
        joules: 100_000,
        joulesPerOutputToken: 2,
        outputTokensPerJoule: 0.5,
        goodputPerWatt: 0.4,
      },
    ],
    [
      // One GPU assumed: 500 W × 100 s = 50,000 J, 1 J/tok.
      'assumed power, GPU count unknown',
      run(),
      { gpuPowerWatts: 500 },
      { source: 'assumed', powerW: 500, joules: 50_000, joulesPerOutputToken: 1, outputTokensPerJoule: 1 },
    ],
    [
      // No exporter, but the server publishes its GPUs' power (Triton): 600 W × 100 s.
      'the server’s own GPU power',
      {
        ...run(),
        server: { engine: 'triton', metricsUrl: '', samples: 3, series: { gpuPowerW: stats(600) } },
      },
      { gpuPowerWatts: 900 },
      { source: 'server-power', powerW: 600, joules: 60_000, joulesPerOutputToken: 1.2 },
    ],
    [
      // dcgm-exporter refreshes every few seconds: a counter that did not move leaves the gauge.
      'DCGM energy counter that did not move',
      run({ energy: { joules: 0, seconds: 2 }, powerW: stats(700) }),
      {},
      { source: 'dcgm-power', powerW: 700, joules: 70_000 },
    ],
    [
      'no good-token count: no goodput per watt',
      run({ powerW: stats(500) }, null),
      {},
      { source: 'dcgm-power', joulesPerOutputToken: 1, goodputPerWatt: undefined },
    ],
  ])('%s', (_name, summary, inputs, want) => {
    const energy = efficiencyOf(summary, inputs)!.energy!;
    for (const [key, value] of Object.entries(want)) {
      const got = energy[key as keyof typeof energy];
      if (typeof value === 'number') expect(got, key).toBeCloseTo(value, 12);
      else expect(got, key).toBe(value);
    }
  });

  it('says what it assumed, and what it did not use', () => {
    expect(efficiencyOf(run(), { gpuPowerWatts: 500 })!.assumptions).toEqual([
      'GPU power assumed, not measured: 500 W per GPU × 1 GPU (--gpu-power-watts)',
      '1 GPU assumed (no DCGM exporter to count them; set --gpu-count)',
    ]);
    const measured = efficiencyOf(run({ powerW: stats(700) }), { gpuPowerWatts: 500 })!;
    expect(measured.energy!.source).toBe('dcgm-power');
    expect(measured.assumptions).toEqual([
      '--gpu-power-watts not used: the DCGM exporter measured the power',
    ]);
    expect(measured.gpuCount).toBe(2);
    expect(measured.gpuCountSource).toBe('dcgm');
  });

  it('nothing known, or no duration: no block', () => {
    expect(efficiencyOf(run(), {})).toBeUndefined();
    expect(efficiencyOf(run({ utilPct: stats(50) }), {})).toBeUndefined();
    expect(efficiencyOf({ ...run(), duration: 0 }, { gpuPowerWatts: 500 })).toBeUndefined();
  });
});

describe('efficiencyOf: cost', () => {
  it.each<[string, EfficiencyBase, EfficiencyInputs, Record<string, number>]>([
    [
      // 2.5 per GPU-hour × 2 GPUs (DCGM) = 5 per hour; 100 s cost 5 × 100 / 3600 = 0.13889;
      // per million: input 0.13889 / 200,000 × 1e6 = 0.69444, output ÷ 50,000 = 2.7778, good ÷ 40,000 = 3.4722.
      'per GPU, GPUs from DCGM',
      run({ powerW: stats(700) }),
      { costPerHour: 2.5, costPer: 'gpu' },
      {
        gpus: 2,
        deploymentCostPerHour: 5,
        runCost: 5 / 36,
        perMillionInputTokens: (5 / 36 / 200_000) * 1e6,
        perMillionOutputTokens: (5 / 36 / 50_000) * 1e6,
        perMillionGoodTokens: (5 / 36 / 40_000) * 1e6,
      },
    ],
    [
      // 36 per deployment-hour: 100 s cost 1; 5 per M input, 20 per M output, 25 per M good.
      'per deployment',
      run(),
      { costPerHour: 36, costPer: 'deployment', gpuCount: 8 },
      {
        gpus: 1,
        deploymentCostPerHour: 36,
        runCost: 1,
        perMillionInputTokens: 5,
        perMillionOutputTokens: 20,
        perMillionGoodTokens: 25,
      },
    ],
    [
      // --gpu-count 4 at 3 per GPU-hour = 12 per hour; 100 s cost 1/3; output 1/3 / 50,000 × 1e6.
      'per GPU by default, GPUs from --gpu-count',
      run(),
      { costPerHour: 3, gpuCount: 4 },
      { gpus: 4, deploymentCostPerHour: 12, runCost: 1 / 3, perMillionOutputTokens: 20 / 3 },
    ],
  ])('%s', (_name, summary, inputs, want) => {
    const cost = efficiencyOf(summary, inputs)!.cost!;
    for (const [key, value] of Object.entries(want))
      expect(cost[key as keyof typeof cost], key).toBeCloseTo(value, 12);
  });

  it('a per-GPU price without a GPU count assumes one GPU, and says so; no power → no energy', () => {
    const e = efficiencyOf(run(), { costPerHour: 2 })!;
    expect(e.cost!.gpus).toBe(1);
    expect(e.cost!.per).toBe('gpu');
    expect(e.energy).toBeUndefined();
    expect(e.assumptions).toEqual(['1 GPU assumed (no DCGM exporter to count them; set --gpu-count)']);
    expect(efficiencyOf(run(), { costPerHour: 2, costPer: 'deployment' })!.assumptions).toEqual([]);
  });
});
