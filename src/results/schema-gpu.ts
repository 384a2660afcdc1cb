/**
 * zod schemas of the GPU telemetry a run keeps (types/gpu.ts): the lines of gpu-metrics.jsonl
 * and the `gpu` part of the summary's server block; and the summary's energy and cost block
 * (types/efficiency.ts). Kept beside schema.ts, with the same
 * compile-time check that each schema infers exactly the writer's type.
 *
 * @module
 */

import { z } from 'zod';
import type { EfficiencySummary, GpuFieldName, GpuSample, GpuSummary } from '../types.js';

const num = z.number();
const int = z.number().int().nonnegative();

const GPU_FIELDS = [
  'utilPct',
  'fbUsedMiB',
  'fbFreeMiB',
  'powerW',
  'grEngineActive',
  'energyMJ',
] as const satisfies readonly GpuFieldName[];

const seriesStats = z.object({ min: num, mean: num, max: num, last: num });

const identity = {
  gpu: z.string(),
  uuid: z.string().optional(),
  modelName: z.string().optional(),
  hostname: z.string().optional(),
};

export const gpuSummarySchema = z.object({
  metricsUrl: z.string(),
  samples: int,
  scrapeFailures: int.optional(),
  gpuCount: int,
  utilPct: seriesStats.optional(),
  fbUsedMiB: seriesStats.optional(),
  fbTotalMiB: num.optional(),
  powerW: seriesStats.optional(),
  grEngineActive: seriesStats.optional(),
  energy: z.object({ joules: num, seconds: num }).optional(),
  gpus: z.array(z.object({ ...identity, series: z.partialRecord(z.enum(GPU_FIELDS), seriesStats) })),
});

export const GpuSampleSchema = z.object({
  tMs: num,
  gpus: z.array(z.object({ ...identity, values: z.partialRecord(z.enum(GPU_FIELDS), num) })),
});

const positive = z.number().positive();

export const efficiencySchema = z.object({
  inputs: z.object({
    gpuPowerWatts: positive.optional(),
    gpuCount: int.optional(),
    costPerHour: z.number().nonnegative().optional(),
    costPer: z.enum(['gpu', 'deployment']).optional(),
  }),
  gpuCount: int,
  gpuCountSource: z.enum(['flag', 'dcgm', 'assumed']),
  energy: z
    .object({
      source: z.enum(['dcgm-energy', 'dcgm-power', 'server-power', 'assumed']),
      powerW: num,
      joules: num,
      joulesPerOutputToken: num.optional(),
      outputTokensPerJoule: num.optional(),
      goodputPerWatt: num.optional(),
    })
    .optional(),
  cost: z
    .object({
      costPerHour: num,
      per: z.enum(['gpu', 'deployment']),
      gpus: int,
      deploymentCostPerHour: num,
      runCost: num,
      perMillionInputTokens: num.optional(),
      perMillionOutputTokens: num.optional(),
      perMillionGoodTokens: num.optional(),
    })
    .optional(),
  assumptions: z.array(z.string()),
});

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameTypes: [
  Same<z.infer<typeof gpuSummarySchema>, GpuSummary>,
  Same<z.infer<typeof GpuSampleSchema>, GpuSample>,
  Same<(typeof GPU_FIELDS)[number], GpuFieldName>,
  Same<z.infer<typeof efficiencySchema>, EfficiencySummary>,
] = [true, true, true, true];
void sameTypes;
