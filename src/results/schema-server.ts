/**
 * zod schemas of the inference server's metrics: the lines of server-metrics.jsonl
 * (ServerSample) and the summary's server block (ServerSummary, with its GPUs: schema-gpu.ts,
 * and its replicas). Split from schema.ts by topic, with the same compile-time check that each
 * schema infers exactly the writer's type.
 *
 * @module
 */

import { z } from 'zod';
import { SERVER_ENGINES, type ServerSample, type ServerSeriesName, type ServerSummary } from '../types.js';
import { gpuSummarySchema } from './schema-gpu.js';

const num = z.number();
const int = z.number().int().nonnegative();

const SERVER_SERIES = [
  'running',
  'waiting',
  'kvUsage',
  'preemptionsTotal',
  'promptTokensTotal',
  'generationTokensTotal',
  'prefixCacheQueriesTotal',
  'prefixCacheHitsTotal',
  'kvFragmentation',
  'wastedTokensTotal',
  'blockSize',
  'numBlocks',
  'serverTtftSecondsSum',
  'serverTtftCount',
  'serverItlSecondsSum',
  'serverItlCount',
  'specDraftsTotal',
  'specDraftTokensTotal',
  'specAcceptedTokensTotal',
  'gpuPowerW',
] as const satisfies readonly ServerSeriesName[];

const seriesStats = z.object({ min: num, mean: num, max: num, last: num });
const engine = z.enum(SERVER_ENGINES);

const serverFigures = z.object({
  engine,
  metricsUrl: z.string(),
  samples: int,
  series: z.partialRecord(z.enum(SERVER_SERIES), seriesStats),
  preemptions: num.optional(),
  prefixCacheHitRate: num.optional(),
  kvFragmentation: num.optional(),
  generatedTokens: num.optional(),
  wastedTokens: num.optional(),
  preemptionsPerS: num.optional(),
  fragmentationSource: z.enum(['server', 'derived']).optional(),
  serverTtftMeanMs: num.optional(),
  serverItlMeanMs: num.optional(),
  specAcceptanceRate: num.optional(),
  specMeanAcceptedLength: num.optional(),
  specAcceptanceRateByPosition: z.array(num).optional(),
  scrapeFailures: int.optional(),
});
export const serverSummarySchema = serverFigures.extend({
  gpu: gpuSummarySchema.optional(),
  replicas: z.array(serverFigures.extend({ replica: z.string(), requests: num.optional() })).optional(),
  replicaMax: z
    .partialRecord(z.enum(SERVER_SERIES), z.object({ value: num, replica: z.string() }))
    .optional(),
});

export const ServerSampleSchema = z.object({
  tMs: num,
  engine,
  values: z.partialRecord(z.enum(SERVER_SERIES), num),
  specAcceptedByPosition: z.array(num).optional(),
  replica: z.string().optional(),
});

// Compile-time: each schema infers exactly the writer's type (see schema.ts).
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameTypes: [
  Same<z.infer<typeof ServerSampleSchema>, ServerSample>,
  Same<z.infer<typeof serverSummarySchema>, ServerSummary>,
  Same<(typeof SERVER_SERIES)[number], ServerSeriesName>,
] = [true, true, true];
void sameTypes;
