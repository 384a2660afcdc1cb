/**
 * What a run concludes: the summary every later command reads. Its load block (what the load
 * generator did: load.ts) and server block (the inference server's metrics: server.ts) are
 * in files of their own.
 *
 * @module
 */

import type { ClassSummary } from './classes.js';
import type { EfficiencySummary } from './efficiency.js';
import type { LoadHonesty, ShardOutcome } from './load.js';
import type { Ms, RequestErrorCode, SCHEMA_VERSION } from './request.js';
import type { RunMeta, Slo } from './run.js';
import type { ServerSummary } from './server.js';

/** Distribution of one latency, in milliseconds. */
export interface LatencyStats {
  count: number;
  mean: number;
  std: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
}

/** Agent runs' figures (metrics/agents.ts defines each). */
export interface AgentSummary {
  /** Agent runs with at least one measured call, and those whose own agent answered. */
  runs: number;
  completedRuns: number;
  /** Distinct sub-agents (fan-out). */
  subAgents: number;
  /** Model calls (steps) of every agent, and those that failed. */
  modelCalls: number;
  failedCalls: number;
  /** Tool calls in the successful replies. */
  toolCalls: number;
  /** Step kind "model call": send to end of each successful call, ms. */
  modelCallMs: LatencyStats;
  /** Step kind "tool wait": the tool latency before a call, ms. */
  toolWaitMs: LatencyStats;
  /** Per run: first send to the end of its last call (sub-agents included), ms. */
  runE2eMs: LatencyStats;
  /** Per run: model calls. */
  stepsPerRun: LatencyStats;
  /** Per run: output tokens (tool-call arguments included). */
  outputTokensPerRun: LatencyStats;
  /** Agent time waiting on the model (every call) and on tools, ms summed over agents. */
  modelWaitMs: number;
  toolWaitTotalMs: number;
  /** toolWaitTotalMs / (modelWaitMs + toolWaitTotalMs). */
  toolWaitShare: number;
}

export type LatencyName = 'ttft' | 'tpot' | 'itl' | 'e2el';
export type PercentileKey = 'p50' | 'p90' | 'p95' | 'p99' | 'p99.9';

/** The flat keys of vLLM's saved benchmark JSON, so existing scripts keep working. */
export type VllmLatencyKeys = {
  [K in `${'mean' | 'median' | 'std' | PercentileKey}_${LatencyName}_ms`]: number;
};

export interface VllmKeys extends VllmLatencyKeys {
  /** Seconds from the first measured send to the last measured end. */
  duration: number;
  completed: number;
  failed: number;
  total_input_tokens: number;
  total_output_tokens: number;
  request_throughput: number;
  request_goodput: number;
  output_throughput: number;
  total_token_throughput: number;
  max_output_tokens_per_s: number;
  max_concurrent_requests: number;
}

/**
 * Latencies of the two output phases of a reasoning model: time to first reasoning token
 * (`ttfrt`), time to first answer token (`ttfat`: content or tool call; equals TTFT when the
 * server streams no reasoning), and ITL between chunks of the same phase. Optional in a
 * summary: absent when nothing was measured (and in summaries written before they existed).
 */
export const PHASE_LATENCY_NAMES = ['ttfrt', 'ttfat', 'reasoningItl', 'answerItl'] as const;
export type PhaseLatencyName = (typeof PHASE_LATENCY_NAMES)[number];

/**
 * Latencies kept in a RunSummary, in display order. `FromScheduled` variants measure from the
 * intended send time.
 */
export const SUMMARY_LATENCY_NAMES = [
  'ttft',
  'tpot',
  'itl',
  'itlPerToken',
  'e2el',
  'queueWait',
  'ttftFromScheduled',
  'e2elFromScheduled',
  ...PHASE_LATENCY_NAMES,
] as const;
export type SummaryLatencyName = (typeof SUMMARY_LATENCY_NAMES)[number];
/** The latencies every summary carries (the phase latencies are optional). */
export type CoreLatencyName = Exclude<SummaryLatencyName, PhaseLatencyName>;

/** The latencies of a summary: every core one, the phase ones when measured. */
export type SummaryLatencies = {
  [K in keyof (Record<CoreLatencyName, LatencyStats> &
    Partial<Record<PhaseLatencyName, LatencyStats>>)]: (Record<CoreLatencyName, LatencyStats> &
    Partial<Record<PhaseLatencyName, LatencyStats>>)[K];
};

/** Reasoning and answer token totals of the successful measured requests. */
export interface ReasoningSummary {
  /** Successful requests that streamed reasoning or reported reasoning tokens. */
  requests: number;
  /** Reasoning tokens of every successful request (usage when reported, else counted). */
  reasoningTokens: number;
  /** Answer tokens of every successful request: output tokens − reasoning tokens, per request. */
  answerTokens: number;
  /** Requests whose reasoning tokens were counted by the client (the server reported none). */
  countedRequests: number;
}

export interface GoodputSummary {
  slo: Slo;
  /** Measured requests that met every SLO that is set. */
  goodRequests: number;
  /** Measured requests attempted (success + error + cancelled). */
  attempted: number;
  /** goodRequests / attempted; failures, timeouts and cancels count as misses. */
  attainment: number;
  /** Good requests per second. */
  requestGoodput: number;
  /** Output tokens delivered to clients that did not cancel. */
  usefulOutputTokens: number;
  /** All output tokens generated (server counter when scraped, else all tokens received). */
  totalOutputTokens: number;
  /** totalOutputTokens − usefulOutputTokens, never negative (see metrics/definitions.ts). */
  wastedOutputTokens: number;
  /**
   * Output tokens of requests the run itself stopped (Ctrl-C, end of --duration): neither
   * useful nor wasted, and left out of totalOutputTokens (the client cut that work, not the
   * server). Absent when 0.
   */
  interruptedOutputTokens?: number;
  /** usefulOutputTokens / totalOutputTokens. */
  tokenGoodputRatio: number;
  /** Output tokens of the good requests (those that met every SLO set). */
  goodOutputTokens?: number;
  /** goodOutputTokens per second of the run: good-token throughput. */
  goodTokenThroughput?: number;
  /** Attainment of each SLO that is set on its own (the joint one is `attainment`). */
  perSlo?: Partial<Record<SloName, SloAttainment>>;
  tokenSource: 'client' | 'server';
}

/** The objectives of an Slo by name: `ttft`, `tpot`, `e2el`, `userTps`. */
export const SLO_NAMES = ['ttft', 'tpot', 'e2el', 'userTps'] as const;
export type SloName = (typeof SLO_NAMES)[number];

export interface SloAttainment {
  /** Measured requests that met this objective (only successful requests can). */
  good: number;
  /** good / attempted (the same denominator as the joint attainment). */
  attainment: number;
}

/**
 * A distribution of a rate where higher is better (tokens/s), with its low percentiles: the
 * slow tail (p1, p10) is what a user notices.
 */
export interface RateStats {
  count: number;
  mean: number;
  min: number;
  max: number;
  p1: number;
  p10: number;
  p50: number;
  p90: number;
  p99: number;
}

/** Per-user view: each request's output tokens/s once its answer streams. */
export interface PerUserSummary {
  /** Per request: (output tokens − 1) ÷ (E2EL − TTFT) in s, i.e. 1000 / TPOT; requests of one token have none. */
  outputTokensPerS: RateStats;
  /** Its mergeable histogram (HdrHistogram, tokens/s × 1000, compressed base64). */
  histogram?: string;
}

export interface ErrorCount {
  code: RequestErrorCode;
  count: number;
  /** One message seen for this code (the first). */
  example: string;
  httpStatus?: number;
}

export interface PromptBucket {
  /** Inclusive lower and exclusive upper bound in prompt tokens. */
  minTokens: number;
  maxTokens: number;
  count: number;
  ttft: LatencyStats;
  e2el: LatencyStats;
  /** HdrHistograms of ttft and e2el (microseconds, compressed base64), so that merged runs keep exact percentiles. */
  histograms?: { ttft?: string; e2el?: string };
}

/** Multi-turn sessions: the figures of one turn index (1 = the first turn of every session). */
export interface TurnRow {
  /** 1-based turn index. */
  turn: number;
  /** This row also holds every later turn (turns past the last row). */
  andLater?: boolean;
  /** Measured requests of this turn, any outcome. */
  requests: number;
  completed: number;
  /** TTFT of the successful ones. */
  ttft: LatencyStats;
  /** The same TTFTs as a histogram (encoded), so `goodput merge` of shards or runs merges the row exactly. */
  ttftHistogram?: string;
  /** E2EL of the successful ones (absent in summaries written before rows had it). */
  e2el?: LatencyStats;
  e2elHistogram?: string;
  /** Prompt tokens (the whole history) of the successful ones. */
  promptTokens: { mean: number; max: number };
}

export interface Finding {
  kind:
    | 'queueing'
    | 'kv-pressure'
    | 'prefill-bound'
    | 'decode-bound'
    | 'client-bound'
    | 'server-connections'
    | 'wasted-work'
    | 'scheduler-bound'
    | 'replica-imbalance'
    | 'errors';
  /** 0..1, for ranking. */
  score: number;
  title: string;
  evidence: string;
  /** The tuning knob it points to. */
  knob: string;
  fromMs?: Ms;
  toMs?: Ms;
}

/**
 * The server's own token counts (usage.prompt_tokens, usage.completion_tokens), summed over the
 * successful measured requests whose usage stated prompt_tokens, beside the client's count of
 * the same prompts. The vLLM keys (total_input_tokens, total_token_throughput) keep the client's
 * count, as vLLM's do (see metrics/definitions.ts).
 */
export interface ServerTokenTotals {
  /** Successful measured requests whose usage stated prompt_tokens. */
  requests: number;
  /** Their usage.prompt_tokens, summed. */
  inputTokens: number;
  /** Their prompts as the client counted them (the count it sent), summed. */
  clientInputTokens: number;
  /** Their usage.completion_tokens, summed (responses that stated it). */
  outputTokens: number;
}

/**
 * llama.cpp's per-request `timings` summed over the successful measured requests that carried
 * them: prompt tokens the server processed (prompt_n) and prompt tokens it reused from its cache
 * (cache_n). The prefix-cache figure of an engine whose metrics have no prefix-cache counters.
 */
export interface ServerTimingTotals {
  requests: number;
  promptTokens: number;
  cachedTokens: number;
}

/** One caveat of a run (metrics/caveats.ts defines the kinds and detects them). */
export interface RunCaveat {
  /** Stable id, e.g. 'client-bound'. */
  id: string;
  /** warn: the figures may be wrong or understate the server; info: how they were counted. */
  severity: 'warn' | 'info';
  /** The sentence for this run, with its figures. */
  text: string;
}

/** Everything `run` concludes; the only input of report, compare, gate, adr and store. */
export interface RunSummary extends VllmKeys {
  schemaVersion: typeof SCHEMA_VERSION;
  kind: 'goodput.run';
  meta: RunMeta;
  counts: {
    /** Measured requests (warmup excluded). */
    attempted: number;
    completed: number;
    failed: number;
    cancelled: number;
    warmup: number;
    /** Extra attempts made by retries. */
    retries: number;
    /** Requests whose output count came from the client, the server sent no usage. */
    usageMissing: number;
    /**
     * Requests still in flight when the run was stopped (Ctrl-C, end of --duration): kept in
     * `attempted` and the records, left out of SLO attainment (the run, not the server, ended them).
     */
    interrupted?: number;
    /** Successful requests whose output exceeded the max_tokens asked (the server ignored the limit). */
    overLimit?: number;
    /**
     * With ignore_eos asked: successful requests that stopped before max_tokens for another reason
     * than the length limit (the server ignored ignore_eos, so output lengths vary).
     */
    endedEarly?: number;
    /** Requests whose usage.prompt_tokens differed from the client's count by more than 1%. */
    promptTokenMismatch: number;
  };
  latency: SummaryLatencies;
  throughput: {
    requestsPerS: number;
    outputTokensPerS: number;
    totalTokensPerS: number;
    peakOutputTokensPerS: number;
  };
  goodput: GoodputSummary;
  /** The server's own token totals, where its usage stated them (absent when it stated none, and in older summaries). */
  serverTokens?: ServerTokenTotals;
  /** llama.cpp's per-request timings, summed (absent for other engines, and in older summaries). */
  serverTimings?: ServerTimingTotals;
  /** Reasoning and answer tokens; absent when no successful request reasoned (and in older summaries). */
  reasoning?: ReasoningSummary;
  /** Output tokens/s as each user saw them (absent in summaries written before it was kept). */
  perUser?: PerUserSummary;
  errors: ErrorCount[];
  load: LoadHonesty;
  /**
   * Mergeable histograms of the latencies (HdrHistogram, microseconds, compressed base64),
   * so that runs from several load generators combine exactly.
   */
  histograms: Partial<Record<SummaryLatencyName, string>>;
  /** The run was stopped early (Ctrl-C, --duration hit with requests in flight): what was measured. */
  interrupted: boolean;
  server?: ServerSummary;
  /** Energy and cost per token (`--gpu-metrics-url` or `--gpu-power-watts`, `--cost-per-hour`); absent when neither was known. */
  efficiency?: EfficiencySummary;
  buckets?: PromptBucket[];
  /** Traffic classes (`--class`): each class's figures against its own SLO, in the order given. */
  classes?: ClassSummary[];
  /** Agent runs (`--agents`): figures by step kind and by run (metrics/agents.ts defines them). */
  agents?: AgentSummary;
  /** Multi-turn sessions: TTFT and prompt tokens by turn index (turn 1 first). */
  turns?: TurnRow[];
  /** Multi-turn sessions: every turn after the first, pooled (`turn: 2, andLater: true`). */
  laterTurns?: TurnRow;
  diagnosis?: Finding[];
  /**
   * What the figures' reader must know (runCaveats of this summary when it was written), for
   * readers outside goodput; goodput's own readers derive them again from the fields. Absent
   * in older summaries.
   */
  caveats?: RunCaveat[];
  /**
   * A merge of the shards of one sharded run (`goodput merge` of every `--shard i/N`): each
   * shard's achieved load and start skew, by index. Absent for a single run.
   */
  shards?: ShardOutcome[];
}
