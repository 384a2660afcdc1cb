/**
 * BenchmarkConfig: everything one benchmark run needs, resolved from flags, environment and
 * config file (see src/flags/resolve.ts resolveBenchmarkConfig). The API key lives here in
 * memory only: it is never part of RunMeta, never printed and never written.
 *
 * @module
 */

import type { PromptBucketing } from '../metrics/index.js';
import type { OtlpConfig } from '../otlp/index.js';
import type { PrometheusSource } from '../server-metrics/index.js';
import type { EngineOptions, ReasoningMode, SimProfile } from '../sim/index.js';
import type {
  AgentWorkloadSpec,
  ApiKind,
  EfficiencyInputs,
  ImagesSpec,
  LoadSpec,
  PrefixGroupsSpec,
  Sampling,
  SessionWorkloadSpec,
  Slo,
  ToolDefinition,
  ToolsSpec,
  TraceFormat,
  TraceSpec,
  TrafficClassSpec,
} from '../types.js';
import type { AgentTrace, ClassInputs, LengthDist, PartSpec } from '../workload/index.js';

/** What the workload generates (the runner turns it into a WorkloadSpec once the tokenizer is known). */
export interface BenchmarkWorkload {
  /** Synthetic prompt length in tokens (user part). */
  promptTokens: number;
  /** Uniform spread ±range×promptTokens. */
  promptTokensRange?: number;
  /** Shared system prompt of this many tokens before every user prompt. */
  systemPromptTokens?: number;
  /** JSONL ({"prompt"} / {"messages"}) or ShareGPT JSON file; replaces synthetic prompts. */
  datasetPath?: string;
  /** Dataset: take each entry's own output length (true unless --max-tokens was given). */
  outputFromDataset?: boolean;
  cancelAfterMs?: number;
  /** Fraction of requests (0..1) whose user gives up after cancelAfterMs. */
  cancelRate?: number;
  /** `--tokenizer`: an encoding name, or a Hugging Face tokenizer.json or its folder (absolute); default o200k_base. */
  tokenizer?: string;
  /** `--chat-template FILE` (absolute): replaces the tokenizer folder's chat template. */
  chatTemplatePath?: string;
  /** Replay a trace (`--trace`): its requests at its times; replaces synthetic prompts and the load's rate. */
  trace?: BenchmarkTrace;
  /** Multi-turn sessions (with LoadSpec.sessions): turns, tokens per turn, think time. */
  sessions?: SessionWorkloadSpec;
  /** `--prompt-tokens-dist`: synthetic prompt lengths drawn from it (workload/length-dist.ts). */
  promptTokensDist?: LengthDist;
  /** `--max-tokens-dist`: each request's output limit drawn from it. */
  maxTokensDist?: LengthDist;
  /** `--prefix-groups`: synthetic prompts start with their group's shared prefix. */
  prefixGroups?: PrefixGroupsSpec;
  /** `--images`: synthetic images in every chat request. */
  images?: ImagesSpec;
  /** `--class`: traffic classes, each request one of them (workload/classes.ts). */
  classes?: TrafficClassSpec[];
  /** What each class names in a file (`tools=FILE`, `empirical:FILE`), read; by index in `classes`. */
  classInputs?: (ClassInputs | undefined)[];
  /** `--agents`: agent runs (workload/agents.ts, strategies/agents.ts), with their distributions. */
  agents?: BenchmarkAgents;
  /** `--tools`, `--tool-choice` on single requests: the spec recorded and the definitions sent. */
  tools?: { spec: ToolsSpec; definitions: ToolDefinition[] };
}

/** Agent runs as configured: the spec recorded in the summary, and the distributions it names. */
export interface BenchmarkAgents {
  spec: AgentWorkloadSpec;
  /** `--tools FILE`: these functions instead of synthetic ones. */
  tools?: ToolDefinition[];
  toolLatency: LengthDist;
  toolResultTokens: LengthDist;
  /** `--agent-trace`: the recorded runs replayed instead of synthetic ones (spec.trace names the file). */
  trace?: AgentTrace;
}

/** A trace to replay: the file and how to read and replay it (`--trace*`, `--time-scale`). */
export interface BenchmarkTrace {
  path: string;
  /** Default: recognised from the first line. */
  format?: TraceFormat;
  columns?: TraceSpec['columns'];
  timeUnit?: TraceSpec['timeUnit'];
  /** Tokens per hash id [default: the format's own (Bailian 16), else 512]. */
  blockSize?: number;
  /** Trace times × this [default 1]. */
  timeScale: number;
  /** The file must have this sha256 (an ADR's rerun replays exactly the trace it recorded). */
  sha256?: string;
  /**
   * Replay the trace's requests (prompt and output lengths) closed loop at the load's
   * concurrency, ignoring its times (a sweep's concurrency points); default: open loop on its times.
   */
  closedLoop?: boolean;
}

export interface BenchmarkConfig {
  /** Base URL of the endpoint; undefined → the embedded simulated engine. */
  url?: string;
  /** Model id; undefined → the first id of GET /v1/models. */
  model?: string;
  api: ApiKind;
  /** Bearer key. In memory only: never persisted, printed or logged. */
  apiKey?: string;
  /** Extra request headers (--header), sent with every request and the model list. In memory only. */
  headers?: Record<string, string>;
  /** Header values that are credentials: redacted like the key wherever server text is kept. In memory only. */
  secrets?: string[];
  /**
   * Header carrying each conversation's session-affinity id (`--session-header`); undefined:
   * X-Session-ID (DEFAULT_SESSION_HEADER); false: none sent.
   */
  sessionHeader?: string | false;
  /** JSON fields merged last into every request body (--extra-body). */
  extraBody?: Record<string, unknown>;
  sampling: Sampling;
  workload: BenchmarkWorkload;
  load: LoadSpec;
  slo: Slo;
  /** Seed of every random choice (prompts, lengths, arrivals, cancels, the embedded engine). */
  seed: number;
  /** Result directory; undefined → goodput-results/<stamp>-<runId>/ under cwd. */
  outDir?: string;
  /** Replace an earlier run found in outDir (`--force`); without it such a folder is refused. */
  force?: boolean;
  labels?: Record<string, string>;
  /** Server metrics scrape (--metrics-url, --no-server-metrics, --scrape-interval, --metrics-prometheus). */
  serverMetrics: {
    enabled: boolean;
    url?: string;
    intervalMs?: number;
    /** `--metrics-url` as given, when given more than once: one replica each (NAME=URL names it). */
    replicas?: string[];
    /** `--metrics-prometheus` and `--metrics-selector`: read from a Prometheus server instead. */
    prometheus?: PrometheusSource;
  };
  /**
   * NVIDIA DCGM exporter's metrics URL (--gpu-metrics-url), scraped at the server-metrics
   * interval into gpu-metrics.jsonl and the server block's `gpu`.
   */
  gpuMetricsUrl?: string;
  /** Energy and cost inputs (--gpu-power-watts, --gpu-count, --cost-per-hour, --cost-per). */
  efficiency?: EfficiencyInputs;
  /** OpenTelemetry export of the requests (`--otlp-endpoint`, OTEL_EXPORTER_OTLP_*); headers in memory only. */
  otlp?: OtlpConfig;
  /** Things the user should know about the configuration (printed on stderr; never the key). */
  warnings?: string[];
  /** Prompt-length buckets of the summary (--buckets): 'pow2' (default), edges, or false. */
  promptBuckets?: PromptBucketing;
  /** Embedded engine options (only used without url). */
  sim?: {
    profile?: string;
    /** 'virtual': run the workload through the engine with a simulated clock, no sockets (`--time virtual`). */
    timeMode?: 'live' | 'virtual';
    /** Reasoning mode of the embedded engine, live or virtual (`--reasoning-tokens`, `--reasoning-field`). */
    reasoning?: ReasoningMode;
    /** Share of tool-offering requests the embedded engine answers with a tool call (`--tool-call-fraction`, default 0.5). */
    toolCallFraction?: number;
    /** Speculative decoding of the embedded engine (`--speculative-config`, vLLM's JSON, validated). */
    speculativeConfig?: string;
    /**
     * The embedded engine's flags (max-num-seqs, max-num-batched-tokens, chunked prefill, prefix
     * caching, …), live or virtual; `speculativeConfig` above wins over `engine.speculativeConfig`.
     * Set by `goodput experiment` for each configuration of the embedded engine.
     */
    engine?: EngineOptions;
    /** A resolved profile (a calibrated one from `goodput sim calibrate`); wins over `profile`. */
    resolvedProfile?: SimProfile;
  };
  /** `--shard i/N`: run only shard i of the workload (runner/shard.ts). */
  shard?: PartSpec;
  /** `--start-at`: Unix ms at which the measured load starts (live time only). */
  startAtMs?: number;
}

/** The default load of `goodput run` with no load flags: about ten seconds on the embedded engine. */
export const DEFAULT_LOAD = {
  concurrency: 8,
  requests: 80,
  warmup: 0,
  timeoutMs: 60_000,
  maxRetries: 1,
} as const;

export const DEFAULT_WORKLOAD = {
  promptTokens: 256,
  maxTokens: 128,
} as const;

export const DEFAULT_SEED = 1;

/** A BenchmarkConfig given in part: nested groups may be partial too. */
export interface BenchmarkConfigInput
  extends Partial<Omit<BenchmarkConfig, 'load' | 'sampling' | 'workload' | 'serverMetrics'>> {
  load?: Partial<LoadSpec>;
  sampling?: Partial<Sampling>;
  workload?: Partial<BenchmarkWorkload>;
  serverMetrics?: Partial<BenchmarkConfig['serverMetrics']>;
}

/**
 * A complete BenchmarkConfig from a partial one, with the same defaults as `goodput run`:
 * closed loop of 8 (open loop when a rate is given, Poisson arrivals), 80 requests unless a
 * count or a duration is given, 256-token prompts, 128 output tokens, temperature 0, seed 1.
 * For commands and tests that build a run without parsing flags.
 *
 * @example
 * await runBenchmark(benchmarkConfig({ url: sim.url, load: { concurrency: 4, requests: 20 } }), { cwd });
 */
export function benchmarkConfig(input: BenchmarkConfigInput = {}): BenchmarkConfig {
  const seed = input.seed ?? input.sampling?.seed ?? DEFAULT_SEED;
  const l = input.load ?? {};
  const open = l.mode === 'open' || (l.mode === undefined && l.rate !== undefined);
  const load: LoadSpec = {
    ...l,
    mode: open ? 'open' : 'closed',
    warmup: l.warmup ?? DEFAULT_LOAD.warmup,
    timeoutMs: l.timeoutMs ?? DEFAULT_LOAD.timeoutMs,
    maxRetries: l.maxRetries ?? DEFAULT_LOAD.maxRetries,
  };
  if (open) load.burstiness = l.burstiness ?? 1;
  else load.concurrency = l.concurrency ?? DEFAULT_LOAD.concurrency;
  // A replayed agent trace runs until its runs end.
  if (load.requests === undefined && load.durationMs === undefined && !input.workload?.agents?.trace)
    load.requests = DEFAULT_LOAD.requests;
  return {
    ...input,
    api: input.api ?? 'chat',
    sampling: {
      temperature: 0,
      maxTokens: DEFAULT_WORKLOAD.maxTokens,
      ignoreEos: false,
      ...input.sampling,
      seed,
    },
    workload: { promptTokens: DEFAULT_WORKLOAD.promptTokens, ...input.workload },
    load,
    slo: input.slo ?? {},
    seed,
    serverMetrics: { enabled: true, ...input.serverMetrics },
  };
}
