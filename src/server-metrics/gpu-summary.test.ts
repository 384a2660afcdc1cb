import { describe, expect, it } from 'vitest';
import type { GpuSample, GpuSummary } from '../types.js';
import { type GpuAggregates, mergeGpuAggregates, summarizeGpu } from './gpu-summary.js';

/** Scrape k of two GPUs, values moving with k (engine activity only on even scrapes). */
function sample(k: number): GpuSample {
  const values = (g: number) => ({
    utilPct: (k * 37 + g * 11) % 100,
    fbUsedMiB: 1000 * (g + 1) + ((k * 13) % 50),
    fbFreeMiB: 500,
    powerW: 100 + ((k * 7 + g) % 30),
    ...(k % 2 === 0 ? { grEngineActive: ((k * 3 + g) % 10) / 10 } : {}),
  });
  return { tMs: k * 100, gpus: [0, 1].map((g) => ({ gpu: String(g), values: values(g) })) };
}

const aggregates = ({ metricsUrl: _u, gpus: _g, ...rest }: GpuSummary): GpuAggregates => rest;

describe('mergeGpuAggregates', () => {
  const all = Array.from({ length: 12 }, (_, k) => sample(k + 1));
  const whole = aggregates(summarizeGpu(all, { metricsUrl: 'u', scrapeFailures: 3 }));

  it.each([
    ['one window', [12]],
    ['two windows', [5, 7]],
    ['uneven windows with an empty one between', [1, 0, 4, 7]],
    ['a window per sample', Array.from({ length: 12 }, () => 1)],
  ])('%s: consecutive windows merge into the summary of all their samples', (_name, sizes) => {
    const parts: GpuAggregates[] = [];
    let at = 0;
    for (const [i, n] of sizes.entries()) {
      // The failed scrapes (3 in all) go to the first window.
      parts.push(
        aggregates(summarizeGpu(all.slice(at, at + n), { metricsUrl: 'u', scrapeFailures: i === 0 ? 3 : 0 })),
      );
      at += n;
    }
    const merged = mergeGpuAggregates(parts)!;
    const { utilPct, fbUsedMiB, powerW, grEngineActive, ...counts } = whole;
    expect(merged).toMatchObject(counts);
    for (const [field, want] of Object.entries({ utilPct, fbUsedMiB, powerW }))
      for (const stat of ['min', 'mean', 'max', 'last'] as const)
        expect(merged[field as 'utilPct']![stat], `${field}.${stat}`).toBeCloseTo(want![stat], 9);
    // A field only some scrapes carry is weighted by the windows' samples: min, max and last hold.
    expect(merged.grEngineActive).toMatchObject({
      min: grEngineActive!.min,
      max: grEngineActive!.max,
      last: grEngineActive!.last,
    });
  });

  it('windows without a sample: counted, no figure; nothing at all: undefined', () => {
    const empty = aggregates(summarizeGpu([], { metricsUrl: 'u', scrapeFailures: 2 }));
    expect(mergeGpuAggregates([empty, empty])).toEqual({ samples: 0, gpuCount: 0, scrapeFailures: 4 });
    expect(mergeGpuAggregates([])).toBeUndefined();
  });
});

describe('GPU energy from the DCGM energy counter', () => {
  const at = (tMs: number, mj: Array<number | undefined>): GpuSample => ({
    tMs,
    gpus: mj.map((v, g) => ({ gpu: String(g), values: v === undefined ? { utilPct: 50 } : { energyMJ: v } })),
  });

  it.each([
    // Two GPUs, 10 s: GPU 0 +4,000,000 mJ, GPU 1 +3,000,000 mJ → 7,000 J over 10 s.
    ['steady', [at(0, [1e9, 2e9]), at(5000, [1.002e9, 2.0015e9]), at(10_000, [1.004e9, 2.003e9])], 7000, 10],
    // GPU 1 reset at 5 s (a driver reload): its new value (1,000 mJ) is the increase since.
    [
      'a reset counts the new value',
      [at(0, [1e9, 2e9]), at(5000, [1.002e9, 1000]), at(10_000, [1.004e9, 501_000])],
      4000 + 501,
      10,
    ],
    // The first scrape lacked the counter: the window starts at the first scrape that read it.
    [
      'window from the first reading',
      [at(0, [undefined, undefined]), at(2000, [5000, 5000]), at(6000, [9000, 7000])],
      6,
      4,
    ],
  ])('%s', (_name, samples, joules, seconds) => {
    const summary = summarizeGpu(samples, { metricsUrl: 'u' });
    expect(summary.energy!.joules).toBeCloseTo(joules, 9);
    expect(summary.energy!.seconds).toBe(seconds);
    // The counter is not a per-GPU series (its min/mean/max would mean nothing).
    for (const g of summary.gpus) expect(g.series.energyMJ).toBeUndefined();
  });

  it('absent without the counter, or with one scrape only', () => {
    expect(summarizeGpu([sample(1), sample(2)], { metricsUrl: 'u' }).energy).toBeUndefined();
    expect(summarizeGpu([at(0, [1e9, 2e9])], { metricsUrl: 'u' }).energy).toBeUndefined();
  });
});
