import { describe, expect, it } from 'vitest';
import type { GpuSummary, SeriesStats } from '../types.js';
import { gpuNotes, gpuRows } from './gpu-view.js';

const st = (mean: number): SeriesStats => ({ min: mean / 2, mean, max: mean * 1.5, last: mean });

const one: GpuSummary = {
  metricsUrl: 'http://g:9400/metrics',
  samples: 10,
  gpuCount: 1,
  utilPct: st(40),
  fbUsedMiB: st(70000),
  fbTotalMiB: 81559,
  powerW: st(300),
  gpus: [{ gpu: '0', modelName: 'NVIDIA L40S', series: { utilPct: st(40) } }],
};

const two: GpuSummary = {
  ...one,
  gpuCount: 2,
  scrapeFailures: 2,
  grEngineActive: st(0.3),
  gpus: [
    { gpu: '0', hostname: 'h', modelName: 'NVIDIA H100', series: { utilPct: st(60) } },
    { gpu: '1', hostname: 'h', modelName: 'NVIDIA H100', series: { utilPct: st(20) } },
  ],
};

describe('the GPU rows of the run report', () => {
  it('one GPU: its figures, no per-GPU rows', () => {
    expect(gpuRows(one)).toEqual([
      ['GPU utilisation', '20.0 %', '40.0 %', '60.0 %', '40.0 %'],
      ['GPU memory used MiB', '35000', '70000', '105000', '70000'],
      ['GPU power W', '150.00', '300.00', '450.00', '300.00'],
    ]);
    expect(gpuNotes(one)).toEqual([
      ['GPUs', '1 × NVIDIA L40S (10 scrapes of http://g:9400/metrics)'],
      ['GPU memory total', '81559 MiB'],
    ]);
  });

  it('several GPUs: aggregates say how they were taken, then each GPU', () => {
    const rows = gpuRows(two);
    expect(rows.map((r) => r[0])).toEqual([
      'GPU utilisation, mean of 2 GPUs',
      'GPU graphics engine active, mean',
      'GPU memory used MiB, total',
      'GPU power W, total',
      '  GPU 0 on h utilisation',
      '  GPU 1 on h utilisation',
    ]);
    expect(rows[4]![2]).toBe('60.0 %');
    expect(gpuNotes(two)).toContainEqual([
      'GPUs',
      '2 × NVIDIA H100 on h (10 scrapes of http://g:9400/metrics)',
    ]);
    expect(gpuNotes(two)).toContainEqual(['failed GPU scrapes', '2']);
  });

  it('no figures (an exporter that exposed none of the fields): no rows', () => {
    expect(gpuRows({ metricsUrl: 'u', samples: 1, gpuCount: 0, gpus: [] })).toEqual([]);
  });
});
