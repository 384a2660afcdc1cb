import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { GpuReading, GpuSample } from '../types.js';
import { gpuAggregate, normalizeDcgm } from './dcgm.js';
import { summarizeGpu } from './gpu-summary.js';
import { parsePrometheusText } from './parse.js';

const fixture = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'dcgm.prom'), 'utf8');

const H100 = 'NVIDIA H100 80GB HBM3';

describe('normalizeDcgm', () => {
  it("reads the exporter's page: one reading per GPU with the documented fields and units", () => {
    const gpus = normalizeDcgm(parsePrometheusText(fixture));
    expect(gpus).toEqual([
      {
        gpu: '0',
        uuid: 'GPU-5a3e8c1f-2b7d-4e90-a1c6-9f0d3b8e7a21',
        modelName: H100,
        hostname: 'gpu-node-7',
        values: {
          utilPct: 87,
          fbUsedMiB: 75058,
          fbFreeMiB: 6021,
          powerW: 412.877,
          grEngineActive: 0.812345,
          energyMJ: 918273645512,
        },
      },
      {
        gpu: '1',
        uuid: 'GPU-c81f4d2a-9e36-47b5-8d0e-61a2f7c4b953',
        modelName: H100,
        hostname: 'gpu-node-7',
        values: {
          utilPct: 34,
          fbUsedMiB: 74972,
          fbFreeMiB: 6107,
          powerW: 298.511,
          grEngineActive: 0.298765,
          energyMJ: 877102938411,
        },
      },
    ]);
  });

  const line = (name: string, labels: string, value: string) => `${name}{${labels}} ${value}\n`;
  const cases: Array<{ name: string; text: string; want: GpuReading[] }> = [
    {
      name: 'newer exporters: lower-case hostname, no profiling fields',
      text:
        line('DCGM_FI_DEV_GPU_UTIL', 'gpu="3",UUID="GPU-a",modelName="NVIDIA L4",hostname="h"', '12') +
        line('DCGM_FI_DEV_POWER_USAGE', 'gpu="3",UUID="GPU-a",modelName="NVIDIA L4",hostname="h"', '30.5'),
      want: [
        {
          gpu: '3',
          uuid: 'GPU-a',
          modelName: 'NVIDIA L4',
          hostname: 'h',
          values: { utilPct: 12, powerW: 30.5 },
        },
      ],
    },
    {
      name: 'the same GPU repeated for two pods sharing it: one reading',
      text:
        line('DCGM_FI_DEV_GPU_UTIL', 'gpu="0",UUID="GPU-a",pod="p1"', '50') +
        line('DCGM_FI_DEV_GPU_UTIL', 'gpu="0",UUID="GPU-a",pod="p2"', '50'),
      want: [{ gpu: '0', uuid: 'GPU-a', values: { utilPct: 50 } }],
    },
    {
      name: 'MIG instances of one GPU are told apart',
      text:
        line('DCGM_FI_DEV_FB_USED', 'gpu="0",UUID="GPU-a",GPU_I_ID="1"', '100') +
        line('DCGM_FI_DEV_FB_USED', 'gpu="0",UUID="GPU-a",GPU_I_ID="2"', '200'),
      want: [
        { gpu: '0/mig1', uuid: 'GPU-a', values: { fbUsedMiB: 100 } },
        { gpu: '0/mig2', uuid: 'GPU-a', values: { fbUsedMiB: 200 } },
      ],
    },
    {
      name: 'two hosts behind one URL (a federating Prometheus): same index, different GPUs',
      text:
        line('DCGM_FI_DEV_GPU_UTIL', 'gpu="0",Hostname="a"', '10') +
        line('DCGM_FI_DEV_GPU_UTIL', 'gpu="0",Hostname="b"', '20'),
      want: [
        { gpu: '0', hostname: 'a', values: { utilPct: 10 } },
        { gpu: '0', hostname: 'b', values: { utilPct: 20 } },
      ],
    },
    {
      name: 'NaN readings are left out',
      text: line('DCGM_FI_DEV_GPU_UTIL', 'gpu="0"', 'NaN') + line('DCGM_FI_DEV_FB_USED', 'gpu="0"', '5'),
      want: [{ gpu: '0', values: { fbUsedMiB: 5 } }],
    },
    {
      name: 'a page without DCGM fields (a vLLM /metrics): no GPUs',
      text: 'vllm:num_requests_running{model_name="m"} 3\n',
      want: [],
    },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    expect(normalizeDcgm(parsePrometheusText(text))).toEqual(want);
  });
});

describe('gpuAggregate and summarizeGpu', () => {
  const gpu = (id: string, values: GpuReading['values']): GpuReading => ({
    gpu: id,
    modelName: H100,
    values,
  });

  it('per scrape: mean utilisation and engine activity, total memory and power', () => {
    expect(
      gpuAggregate([
        gpu('0', { utilPct: 90, fbUsedMiB: 1000, fbFreeMiB: 10, powerW: 400, grEngineActive: 0.8 }),
        gpu('1', { utilPct: 30, fbUsedMiB: 3000, fbFreeMiB: 30, powerW: 200 }),
      ]),
    ).toEqual({ utilPct: 60, fbUsedMiB: 4000, fbFreeMiB: 40, powerW: 600, grEngineActive: 0.8 });
  });

  it('over the run: aggregate stats, total memory, each GPU on its own', () => {
    const samples: GpuSample[] = [
      {
        tMs: 0,
        gpus: [
          gpu('0', { utilPct: 10, fbUsedMiB: 100, fbFreeMiB: 900, powerW: 100 }),
          gpu('1', { utilPct: 30, fbUsedMiB: 200, fbFreeMiB: 800, powerW: 150 }),
        ],
      },
      {
        tMs: 1000,
        gpus: [
          gpu('0', { utilPct: 90, fbUsedMiB: 500, fbFreeMiB: 500, powerW: 400 }),
          gpu('1', { utilPct: 50, fbUsedMiB: 600, fbFreeMiB: 400, powerW: 300 }),
        ],
      },
    ];
    const s = summarizeGpu(samples, { metricsUrl: 'http://x:9400/metrics', scrapeFailures: 1 });
    expect(s).toEqual({
      metricsUrl: 'http://x:9400/metrics',
      samples: 2,
      scrapeFailures: 1,
      gpuCount: 2,
      utilPct: { min: 20, mean: 45, max: 70, last: 70 },
      fbUsedMiB: { min: 300, mean: 700, max: 1100, last: 1100 },
      fbTotalMiB: 2000,
      powerW: { min: 250, mean: 475, max: 700, last: 700 },
      gpus: [
        {
          gpu: '0',
          modelName: H100,
          series: {
            utilPct: { min: 10, mean: 50, max: 90, last: 90 },
            fbUsedMiB: { min: 100, mean: 300, max: 500, last: 500 },
            fbFreeMiB: { min: 500, mean: 700, max: 900, last: 500 },
            powerW: { min: 100, mean: 250, max: 400, last: 400 },
          },
        },
        {
          gpu: '1',
          modelName: H100,
          series: {
            utilPct: { min: 30, mean: 40, max: 50, last: 50 },
            fbUsedMiB: { min: 200, mean: 400, max: 600, last: 600 },
            fbFreeMiB: { min: 400, mean: 600, max: 800, last: 400 },
            powerW: { min: 150, mean: 225, max: 300, last: 300 },
          },
        },
      ],
    });
  });

  it('no scrape: no figures, no GPUs', () => {
    expect(summarizeGpu([], { metricsUrl: 'u' })).toEqual({
      metricsUrl: 'u',
      samples: 0,
      gpuCount: 0,
      gpus: [],
    });
  });
});
