/**
 * zod schemas of the files a run leaves behind: summary.json (here), the lines of
 * requests.jsonl (schema-request.ts), server-metrics.jsonl (schema-server.ts) and
 * gpu-metrics.jsonl (schema-gpu.ts), and the header line of each (schema-meta.ts, with the run
 * meta). Every reader validates with them, so a damaged or foreign file is refused with the
 * file, the field path and what was found.
 *
 * The schemas are the writers' TypeScript types (types.ts) spelled for zod; the `Same`
 * checks at the bottom of each file fail to compile when one drifts from the other.
 *
 * @module
 */

import { z } from 'zod';
import {
  type CoreLatencyName,
  type ErrorCount,
  IMPORT_TOOLS,
  type ImportedSummary,
  type LatencyStats,
  PHASE_LATENCY_NAMES,
  type PhaseLatencyName,
  type RunSummary,
  SUMMARY_LATENCY_NAMES,
  type VllmLatencyKeys,
} from '../types.js';
import { efficiencySchema } from './schema-gpu.js';
import { JsonlHeaderSchema, RunMetaSchema, sloSchema } from './schema-meta.js';
import { RequestRecordSchema, requestErrorCode } from './schema-request.js';
import { ServerSampleSchema, serverSummarySchema } from './schema-server.js';

export { JsonlHeaderSchema, RequestRecordSchema, RunMetaSchema, ServerSampleSchema, sloSchema };

const num = z.number();
const int = z.number().int().nonnegative();

const SUMMARY_LATENCIES = SUMMARY_LATENCY_NAMES;

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

const countsSchema = z.object({
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
});

const throughputSchema = z.object({
  requestsPerS: num,
  outputTokensPerS: num,
  totalTokensPerS: num,
  peakOutputTokensPerS: num,
});

const goodputSchema = z.object({
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
});

const errorsSchema = z.array(
  z.object({ code: requestErrorCode, count: int, example: z.string(), httpStatus: int.optional() }),
);

const perUserSchema = z.object({ outputTokensPerS: rateStats, histogram: z.string().optional() });

/** A traffic class's figures (types/classes.ts). */
const classSummarySchema = z.object({
  name: z.string(),
  share: num,
  priority: z.number().int().optional(),
  model: z.string().optional(),
  counts: countsSchema,
  latency: latencyRecord,
  throughput: throughputSchema,
  goodput: goodputSchema,
  tokens: z.object({ input: num, output: num }),
  errors: errorsSchema,
  histograms: z.partialRecord(z.enum(SUMMARY_LATENCIES), z.string()),
  perUser: perUserSchema.optional(),
  turns: z.array(turnRow).optional(),
  laterTurns: turnRow.optional(),
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
  counts: countsSchema,
  latency: latencyRecord,
  throughput: throughputSchema,
  goodput: goodputSchema,
  serverTokens: z
    .object({ requests: int, inputTokens: num, clientInputTokens: num, outputTokens: num })
    .optional(),
  serverTimings: z.object({ requests: int, promptTokens: num, cachedTokens: num }).optional(),
  reasoning: z
    .object({ requests: int, reasoningTokens: num, answerTokens: num, countedRequests: int })
    .optional(),
  perUser: perUserSchema.optional(),
  errors: errorsSchema,
  load: z.object({
    dispatchLag: latencyStats,
    lateSends: int,
    dropped: int,
    clientBound: z.boolean(),
    clientBoundReason: z.string().optional(),
    peakInFlight: int,
    gcPauses: z
      .object({
        count: int,
        totalMs: num,
        p99Ms: num,
        maxMs: num,
        heapFlag: z.string().optional(),
        pretenuringFlag: z.string().optional(),
      })
      .optional(),
    startWindow: z.object({ ms: num, sends: int, p99Ms: num, laterSends: int, laterP99Ms: num }).optional(),
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
        openFilesLimit: int.optional(),
      })
      .optional(),
    startSkewMs: num.optional(),
    shardWindow: z.object({ firstSendMs: num, lastEndMs: num }).optional(),
  }),
  histograms: z.partialRecord(z.enum(SUMMARY_LATENCIES), z.string()),
  interrupted: z.boolean(),
  server: serverSummarySchema.optional(),
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
  classes: z.array(classSummarySchema).optional(),
  agents: z
    .object({
      runs: int,
      completedRuns: int,
      subAgents: int,
      modelCalls: int,
      failedCalls: int,
      toolCalls: int,
      modelCallMs: latencyStats,
      toolWaitMs: latencyStats,
      runE2eMs: latencyStats,
      stepsPerRun: latencyStats,
      outputTokensPerRun: latencyStats,
      modelWaitMs: num,
      toolWaitTotalMs: num,
      toolWaitShare: num,
    })
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

// Compile-time: each schema infers exactly the writer's type (identical, optional fields included).
// A `true` not assignable to `false` below means a type in types.ts changed: change its schema above too.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameTypes: [
  Same<z.infer<typeof RunSummarySchema>, RunSummary>,
  Same<z.infer<typeof ImportedSummarySchema>, ImportedSummary>,
  Same<z.infer<typeof latencyStats>, LatencyStats>,
  Same<ErrorCount, z.infer<typeof RunSummarySchema>['errors'][number]>,
] = [true, true, true, true];
void sameTypes;
