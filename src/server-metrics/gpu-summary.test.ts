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
