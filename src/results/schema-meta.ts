/**
 * zod schemas of what a run was (RunMeta: target and what its server said of itself, sampling,
 * workload, load, SLOs), kept in summary.json and in the header line of every JSONL file.
 * Split from schema.ts by topic, with the same compile-time check that each schema infers
 * exactly the writer's type.
 *
 * @module
 */

import { z } from 'zod';
import { API_KINDS, type RunMeta, type ServerSelfDescription } from '../types.js';
import type { JsonlHeader } from './files.js';
import { efficiencySchema } from './schema-gpu.js';

const num = z.number();
const int = z.number().int().nonnegative();
const apiKind = z.enum(API_KINDS);

export const sloSchema = z.object({
  ttftMs: num.optional(),
  tpotMs: num.optional(),
  e2elMs: num.optional(),
  userTps: num.optional(),
});

const sampling = z.object({
  temperature: num,
  topP: num.optional(),
  maxTokens: int,
  seed: z.number().int().optional(),
  ignoreEos: z.boolean(),
});

const lengthDist = z.object({
  kind: z.enum(['fixed', 'uniform', 'normal', 'lognormal', 'empirical']),
  text: z.string(),
  mean: num,
  source: z
    .object({
      path: z.string(),
      sha256: z.string(),
      samples: int,
      column: z.enum(['input', 'output']).optional(),
    })
    .optional(),
});

const sessionWorkloadSchema = z.object({
  turns: z.object({ min: int, max: int }).optional(),
  turnTokens: int.optional(),
  thinkTime: z.object({ meanMs: num, dist: z.enum(['fixed', 'exponential']) }).optional(),
});

const toolsSchema = z.object({
  count: int,
  choice: z.union([z.enum(['auto', 'required', 'none']), z.object({ name: z.string() })]).optional(),
  file: z.object({ path: z.string(), sha256: z.string() }).optional(),
});

/** What a server said of itself (TargetInfo.selfDescription, an experiment configuration's server). */
export const ServerSelfDescriptionSchema = z.object({
  engine: z.string(),
  version: z.string().optional(),
  models: z.array(z.string()).optional(),
  settings: z.record(z.string(), z.string()).optional(),
  gpu: z.object({ model: z.string(), count: int }).optional(),
  sources: z.record(z.string(), z.string()),
});

export const RunMetaSchema = z.object({
  tool: z.object({
    name: z.literal('goodput'),
    version: z.string(),
    command: z.array(z.string()).optional(),
  }),
  runId: z.string(),
  startedAt: z.string(),
  target: z.object({
    baseUrl: z.string(),
    api: apiKind,
    embedded: z.boolean(),
    timeMode: z.enum(['live', 'virtual']).optional(),
    simProfile: z.string().optional(),
    simSpeculativeConfig: z.string().optional(),
    simSchedulingPolicy: z.literal('priority').optional(),
    simMaxLoras: z.number().int().positive().optional(),
    selfDescription: ServerSelfDescriptionSchema.optional(),
  }),
  model: z.string(),
  sampling,
  workload: z.object({
    kind: z.enum(['synthetic', 'dataset', 'trace']),
    api: apiKind,
    promptTokens: int.optional(),
    promptTokensRange: num.optional(),
    systemPromptTokens: int.optional(),
    dataset: z
      .object({
        path: z.string(),
        format: z.enum(['jsonl', 'sharegpt', 'openai-batch', 'hf-jsonl', 'hf-parquet']),
        sha256: z.string(),
        entries: int,
      })
      .optional(),
    trace: z
      .object({
        path: z.string(),
        format: z.enum(['mooncake', 'azure', 'burstgpt', 'bailian', 'jsonl', 'csv']),
        sha256: z.string(),
        entries: int,
        blockSize: int,
        timeScale: num,
        columns: z.object({ timestamp: z.string(), input: z.string(), output: z.string() }).optional(),
        timeUnit: z.enum(['ms', 's', 'us']).optional(),
      })
      .optional(),
    maxTokens: int,
    maxTokensFrom: z.enum(['dataset', 'trace']).optional(),
    tokenizer: z.string(),
    tokenizerFile: z
      .object({
        path: z.string(),
        sha256: z.string(),
        chatTemplate: z.object({ source: z.string(), sha256: z.string() }).optional(),
      })
      .optional(),
    cancelAfterMs: num.optional(),
    cancelRate: num.optional(),
    sessions: sessionWorkloadSchema.optional(),
    promptTokensDist: lengthDist.optional(),
    maxTokensDist: lengthDist.optional(),
    prefixGroups: z.object({ groups: int, prefixTokens: int, promptsPerGroup: int.optional() }).optional(),
    images: z
      .object({
        count: int,
        width: int.optional(),
        height: int.optional(),
        format: z.enum(['png', 'jpeg']).optional(),
        bytesPerRequest: int.optional(),
        folder: z
          .object({
            path: z.string(),
            files: int.optional(),
            bytes: int.optional(),
            sha256: z.string().optional(),
          })
          .optional(),
      })
      .optional(),
    classes: z
      .array(
        z.object({
          name: z.string(),
          share: num,
          promptTokens: int.optional(),
          promptTokensDist: lengthDist.optional(),
          maxTokens: int.optional(),
          maxTokensDist: lengthDist.optional(),
          systemPromptTokens: int.optional(),
          slo: sloSchema.optional(),
          priority: z.number().int().optional(),
          model: z.string().optional(),
          tools: toolsSchema.optional(),
          sessions: sessionWorkloadSchema.optional(),
        }),
      )
      .optional(),
    classShareOf: z.enum(['requests', 'users', 'sessions']).optional(),
    agents: z
      .object({
        concurrency: int,
        steps: int,
        tools: int,
        toolChoice: z.enum(['auto', 'required']),
        toolLatencyMs: lengthDist,
        toolResultTokens: lengthDist,
        fanOut: int,
        fanOutStep: int,
        subSteps: int,
        trace: z
          .object({
            path: z.string(),
            format: z.enum(['goodput', 'weka', 'otlp']),
            sha256: z.string(),
            runs: int,
            timeScale: num.optional(),
          })
          .optional(),
      })
      .optional(),
    tools: toolsSchema.optional(),
  }),
  load: z.object({
    mode: z.enum(['closed', 'open']),
    concurrency: int.optional(),
    rate: num.optional(),
    burstiness: num.optional(),
    maxConcurrency: int.optional(),
    requests: int.optional(),
    durationMs: num.optional(),
    warmup: int,
    timeoutMs: num,
    ttftTimeoutMs: num.optional(),
    maxRetries: int,
    sessions: z
      .object({ concurrency: int.optional(), rate: num.optional(), userRate: num.optional() })
      .optional(),
    workers: int.optional(),
    stages: z.array(z.object({ durationMs: num, target: num })).optional(),
    stagesOf: z.enum(['rate', 'concurrency']).optional(),
    connections: z
      .object({
        mode: z.enum(['pooled', 'per-request']),
        limit: int.optional(),
        sourceAddresses: z.array(z.string()).optional(),
      })
      .optional(),
  }),
  slo: sloSchema,
  seed: z.number().int(),
  labels: z.record(z.string(), z.string()).optional(),
  shard: z.object({ index: int, count: int, startAt: z.string().optional() }).optional(),
});

export const JsonlHeaderSchema = z.object({
  schemaVersion: z.number().int(),
  kind: z.enum(['goodput.requests', 'goodput.server-metrics', 'goodput.gpu-metrics']),
  runId: z.string(),
  startedAt: z.string(),
  run: z
    .object({
      meta: RunMetaSchema,
      promptBuckets: z.union([z.literal('pow2'), z.array(num).readonly(), z.literal(false)]).optional(),
      lateSendToleranceMs: num,
      metricsUrl: z.string().optional(),
      gpuMetricsUrl: z.string().optional(),
      efficiency: efficiencySchema.shape.inputs.optional(),
    })
    .optional(),
});

// Compile-time: each schema infers exactly the writer's type (see schema.ts).
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameTypes: [
  Same<z.infer<typeof RunMetaSchema>, RunMeta>,
  Same<z.infer<typeof JsonlHeaderSchema>, JsonlHeader>,
  Same<z.infer<typeof ServerSelfDescriptionSchema>, ServerSelfDescription>,
] = [true, true, true];
void sameTypes;
