/**
 * zod schemas of the GPU telemetry a run keeps (types/gpu.ts): the lines of gpu-metrics.jsonl
 * and the `gpu` part of the summary's server block. Kept beside schema.ts, with the same
 * compile-time check that each schema infers exactly the writer's type.
 *
 * @module
 */

import { z } from 'zod';
import type { GpuFieldName, GpuSample, GpuSummary } from '../types.js';

const num = z.number();
const int = z.number().int().nonnegative();

const GPU_FIELDS = [
  'utilPct',
  'fbUsedMiB',
  'fbFreeMiB',
  'powerW',
  'grEngineActive',
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
  gpus: z.array(z.object({ ...identity, series: z.partialRecord(z.enum(GPU_FIELDS), seriesStats) })),
});

export const GpuSampleSchema = z.object({
  tMs: num,
  gpus: z.array(z.object({ ...identity, values: z.partialRecord(z.enum(GPU_FIELDS), num) })),
});

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameTypes: [
  Same<z.infer<typeof gpuSummarySchema>, GpuSummary>,
  Same<z.infer<typeof GpuSampleSchema>, GpuSample>,
  Same<(typeof GPU_FIELDS)[number], GpuFieldName>,
] = [true, true, true];
void sameTypes;
