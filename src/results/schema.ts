/**
 * zod schemas of the files a run leaves behind: summary.json, the lines of requests.jsonl
 * and server-metrics.jsonl and the header line of each. Every reader validates with them, so
 * a damaged or foreign file is refused with the file, the field path and what was found.
 *
 * The schemas are the writers' TypeScript types (types.ts) spelled for zod; the `Same`
 * checks at the bottom fail to compile when one drifts from the other.
 *
 * @module
 */

import { z } from 'zod';
import { REQUEST_ERRORS } from '../errors.js';
import {
  API_KINDS,
  type CoreLatencyName,
  type ErrorCount,
  IMPORT_TOOLS,
  type ImportedSummary,
  type LatencyStats,
  PHASE_LATENCY_NAMES,
  type PhaseLatencyName,
  type RequestErrorCode,
  type RequestRecord,
  type RunMeta,
  type RunSummary,
  SERVER_ENGINES,
  type ServerSample,
  type ServerSelfDescription,
  type ServerSeriesName,
  type ServerSummary,
  SUMMARY_LATENCY_NAMES,
  type VllmLatencyKeys,
} from '../types.js';
import type { JsonlHeader } from './files.js';
import { efficiencySchema, gpuSummarySchema } from './schema-gpu.js';

const num = z.number();
const int = z.number().int().nonnegative();

/** Every request error code: the keys of REQUEST_ERRORS, which lists each one with its cause and fix. */
const REQUEST_ERROR_CODES = Object.keys(REQUEST_ERRORS) as [RequestErrorCode, ...RequestErrorCode[]];

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
] as const satisfies readonly ServerSeriesName[];

const SUMMARY_LATENCIES = SUMMARY_LATENCY_NAMES;

const apiKind = z.enum(API_KINDS);
const requestErrorCode = z.enum(REQUEST_ERROR_CODES);
const requestError = z.object({ code: requestErrorCode, message: z.string(), httpStatus: int.optional() });

export const RequestRecordSchema = z.object({
  id: z.string(),
  index: int,
  warmup: z.boolean(),
  outcome: z.enum(['success', 'error', 'cancelled']),
  error: requestError.optional(),
  attempts: int,
  failedAttempts: z
    .array(
      z.object({
        attempt: int,
        sentMs: num,
        endMs: num,
        error: requestError,
        retryAfterMs: num.optional(),
      }),
    )
    .optional(),
  scheduledMs: num,
  sentMs: num,
  firstSentMs: num,
  headersMs: num.optional(),
  firstTokenMs: num.optional(),
  endMs: num,
  chunkMs: z.array(num),
  chunkChars: z.array(num),
  chunkReasoningChars: z.array(num).optional(),
  httpStatus: int.optional(),
  promptTokens: int,
  serverPromptTokens: int.optional(),
  serverTimings: z
    .object({
      promptTokens: int,
      cachedTokens: int,
      promptMs: num.optional(),
      predictedTokens: int.optional(),
      predictedMs: num.optional(),
    })
    .optional(),
  outputTokens: int,
  outputTokensSource: z.enum(['usage', 'counted']),
  reasoningTokens: int.optional(),
  reasoningTokensSource: z.enum(['usage', 'counted']).optional(),
  maxTokens: int,
  finishReason: z.string().optional(),
  connectMs: num.optional(),
  resends: int.optional(),
  sessionId: z.string().optional(),
  turn: int.optional(),
});

export const sloSchema = z.object({
  ttftMs: num.optional(),
  tpotMs: num.optional(),
  e2elMs: num.optional(),
  userTps: num.optional(),
});

const sloAttainment = z.object({ good: int, attainment: num });

const rateStats = z.object({
  count: int,
  mean: num,
  min: num,
  max: num,
  p1: num,
  p10: num,
  p50: num,
  p90: num,
  p99: num,
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
    sessions: z
      .object({
        turns: z.object({ min: int, max: int }).optional(),
        turnTokens: int.optional(),
        thinkTime: z.object({ meanMs: num, dist: z.enum(['fixed', 'exponential']) }).optional(),
      })
      .optional(),
    promptTokensDist: lengthDist.optional(),
    maxTokensDist: lengthDist.optional(),
    prefixGroups: z.object({ groups: int, prefixTokens: int, promptsPerGroup: int.optional() }).optional(),
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
    connections: z.object({ mode: z.enum(['pooled', 'per-request']), limit: int.optional() }).optional(),
  }),
  slo: sloSchema,
  seed: z.number().int(),
  labels: z.record(z.string(), z.string()).optional(),
  shard: z.object({ index: int, count: int, startAt: z.string().optional() }).optional(),
});

const latencyStats = z.object({
  count: int,
  mean: num,
  std: num,
  min: num,
  max: num,
  p50: num,
  p90: num,
  p95: num,
  p99: num,
  p999: num,
});

const turnRow = z.object({
  turn: int,
  andLater: z.boolean().optional(),
  requests: int,
  completed: int,
  ttft: latencyStats,
  ttftHistogram: z.string().optional(),
  e2el: latencyStats.optional(),
  e2elHistogram: z.string().optional(),
  promptTokens: z.object({ mean: num, max: num }),
});

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
const serverSummary = serverFigures.extend({
  gpu: gpuSummarySchema.optional(),
  replicas: z.array(serverFigures.extend({ replica: z.string(), requests: num.optional() })).optional(),
  replicaMax: z
    .partialRecord(z.enum(SERVER_SERIES), z.object({ value: num, replica: z.string() }))
    .optional(),
});

/** The 32 flat vLLM latency keys (`mean_ttft_ms`, `p99.9_e2el_ms`, …). */
function vllmLatencyShape(): { [K in keyof VllmLatencyKeys]-?: typeof num } {
  const shape: Record<string, typeof num> = {};
  for (const stat of ['mean', 'median', 'std', 'p50', 'p90', 'p95', 'p99', 'p99.9']) {
    for (const name of ['ttft', 'tpot', 'itl', 'e2el']) shape[`${stat}_${name}_ms`] = num;
  }
  return shape as { [K in keyof VllmLatencyKeys]-?: typeof num };
}

const PHASES: ReadonlySet<string> = new Set(PHASE_LATENCY_NAMES);
/** Every core latency required; the phase latencies optional (absent in older summaries). */
const latencyRecord = z.object({
  ...(Object.fromEntries(
    SUMMARY_LATENCIES.filter((n) => !PHASES.has(n)).map((n) => [n, latencyStats]),
  ) as Record<CoreLatencyName, typeof latencyStats>),
  ...(Object.fromEntries(PHASE_LATENCY_NAMES.map((n) => [n, latencyStats.optional()])) as Record<
    PhaseLatencyName,
    z.ZodOptional<typeof latencyStats>
  >),
});

/** One diagnosis finding (Finding), also kept in sweep.json. */
export const findingSchema = z.object({
  kind: z.enum([
    'queueing',
    'kv-pressure',
    'prefill-bound',
    'decode-bound',
    'client-bound',
    'server-connections',
    'wasted-work',
    'scheduler-bound',
    'replica-imbalance',
    'errors',
  ]),
  score: num,
  title: z.string(),
  evidence: z.string(),
  knob: z.string(),
  fromMs: num.optional(),
  toMs: num.optional(),
});

export const RunSummarySchema = z.object({
  ...vllmLatencyShape(),
  duration: num,
  completed: int,
  failed: int,
  total_input_tokens: num,
  total_output_tokens: num,
  request_throughput: num,
  request_goodput: num,
  output_throughput: num,
  total_token_throughput: num,
  max_output_tokens_per_s: num,
  max_concurrent_requests: num,
  schemaVersion: z.literal(1),
  kind: z.literal('goodput.run'),
  meta: RunMetaSchema,
  counts: z.object({
    attempted: int,
    completed: int,
    failed: int,
    cancelled: int,
    warmup: int,
    retries: int,
    usageMissing: int,
    interrupted: int.optional(),
    overLimit: int.optional(),
    endedEarly: int.optional(),
    promptTokenMismatch: int,
  }),
  latency: latencyRecord,
  throughput: z.object({
    requestsPerS: num,
    outputTokensPerS: num,
    totalTokensPerS: num,
    peakOutputTokensPerS: num,
  }),
  goodput: z.object({
    slo: sloSchema,
    goodRequests: int,
    attempted: int,
    attainment: num,
    requestGoodput: num,
    usefulOutputTokens: num,
    totalOutputTokens: num,
    wastedOutputTokens: num,
    interruptedOutputTokens: num.optional(),
    tokenGoodputRatio: num,
    tokenSource: z.enum(['client', 'server']),
    goodOutputTokens: num.optional(),
    goodTokenThroughput: num.optional(),
    perSlo: z
      .object({
        ttft: sloAttainment.optional(),
        tpot: sloAttainment.optional(),
        e2el: sloAttainment.optional(),
        userTps: sloAttainment.optional(),
      })
      .optional(),
  }),
  serverTokens: z
    .object({ requests: int, inputTokens: num, clientInputTokens: num, outputTokens: num })
    .optional(),
  serverTimings: z.object({ requests: int, promptTokens: num, cachedTokens: num }).optional(),
  reasoning: z
    .object({ requests: int, reasoningTokens: num, answerTokens: num, countedRequests: int })
    .optional(),
  perUser: z.object({ outputTokensPerS: rateStats, histogram: z.string().optional() }).optional(),
  errors: z.array(
    z.object({ code: requestErrorCode, count: int, example: z.string(), httpStatus: int.optional() }),
  ),
  load: z.object({
    dispatchLag: latencyStats,
    lateSends: int,
    dropped: int,
    clientBound: z.boolean(),
    clientBoundReason: z.string().optional(),
    peakInFlight: int,
    dispatchLagHistogram: z.string().optional(),
    stages: z
      .array(
        z.object({
          startMs: num,
          durationMs: num,
          of: z.enum(['rate', 'concurrency']),
          from: num,
          to: num,
          targetMean: num,
          sent: int,
          achievedRate: num,
          meanInFlight: num,
          coveredMs: num,
        }),
      )
      .optional(),
    connectionWarmup: z
      .object({
        requested: int,
        ok: int,
        ms: num,
        reason: z.enum(['budget', 'aborted', 'errors']).optional(),
      })
      .optional(),
    connections: z
      .object({
        mode: z.enum(['pooled', 'per-request']),
        limit: int.optional(),
        warmed: int,
        sizing: z.string(),
        peakOpen: int,
        peakServed: int,
        waited: int,
        longestWaitMs: num,
        serverLimited: z.boolean(),
      })
      .optional(),
    startSkewMs: num.optional(),
    shardWindow: z.object({ firstSendMs: num, lastEndMs: num }).optional(),
  }),
  histograms: z.partialRecord(z.enum(SUMMARY_LATENCIES), z.string()),
  interrupted: z.boolean(),
  server: serverSummary.optional(),
  efficiency: efficiencySchema.optional(),
  buckets: z
    .array(
      z.object({
        minTokens: num,
        maxTokens: num,
        count: int,
        ttft: latencyStats,
        e2el: latencyStats,
        histograms: z.object({ ttft: z.string().optional(), e2el: z.string().optional() }).optional(),
      }),
    )
    .optional(),
  turns: z.array(turnRow).optional(),
  laterTurns: turnRow.optional(),
  diagnosis: z.array(findingSchema).optional(),
  caveats: z
    .array(z.object({ id: z.string(), severity: z.enum(['warn', 'info']), text: z.string() }))
    .optional(),
  shards: z
    .array(
      z.object({
        index: int,
        runId: z.string(),
        attempted: int,
        requestsPerS: num,
        outputTokensPerS: num,
        startSkewMs: num.optional(),
      }),
    )
    .optional(),
});

/** summary.json written by `goodput import`: another tool's figures, the missing ones listed. */
export const ImportedSummarySchema = z.object({
  schemaVersion: z.literal(1),
  kind: z.literal('goodput.imported'),
  source: z.object({
    tool: z.enum(IMPORT_TOOLS),
    path: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    benchmark: z.object({ index: int, count: int, label: z.string() }).optional(),
  }),
  importedAt: z.string().optional(),
  model: z.string().optional(),
  date: z.string().optional(),
  figures: z.record(z.string(), num),
  missing: z.array(z.string()),
  notes: z.array(z.string()),
  context: z.array(z.tuple([z.string(), z.string()])),
  samples: z
    .object({
      ttftMs: z.array(num),
      itlMs: z.array(num),
      outputTokens: z.array(num),
      tpotMs: z.array(num).optional(),
      e2elMs: z.array(num).optional(),
    })
    .optional(),
});

export const ServerSampleSchema = z.object({
  tMs: num,
  engine,
  values: z.partialRecord(z.enum(SERVER_SERIES), num),
  specAcceptedByPosition: z.array(num).optional(),
  replica: z.string().optional(),
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

// Compile-time: each schema infers exactly the writer's type (identical, optional fields included).
// A `true` not assignable to `false` below means a type in types.ts changed: change its schema above too.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameTypes: [
  Same<z.infer<typeof RunSummarySchema>, RunSummary>,
  Same<z.infer<typeof RunMetaSchema>, RunMeta>,
  Same<z.infer<typeof ImportedSummarySchema>, ImportedSummary>,
  Same<z.infer<typeof RequestRecordSchema>, RequestRecord>,
  Same<z.infer<typeof ServerSampleSchema>, ServerSample>,
  Same<z.infer<typeof serverSummary>, ServerSummary>,
  Same<z.infer<typeof latencyStats>, LatencyStats>,
  Same<z.infer<typeof JsonlHeaderSchema>, JsonlHeader>,
  Same<z.infer<typeof requestErrorCode>, RequestErrorCode>,
  Same<z.infer<typeof ServerSelfDescriptionSchema>, ServerSelfDescription>,
  Same<(typeof SERVER_SERIES)[number], ServerSeriesName>,
  Same<ErrorCount, z.infer<typeof RunSummarySchema>['errors'][number]>,
] = [true, true, true, true, true, true, true, true, true, true, true, true];
void sameTypes;
