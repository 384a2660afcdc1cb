/** What a run was asked to do: SLOs, workload, load, target and the run's meta. @module */

import type { ApiKind, Sampling, ToolChoice } from './request.js';

/** Service-level objectives; a request is good when it meets every one that is set. */
export interface Slo {
  /** Latency bounds in milliseconds. */
  ttftMs?: number;
  tpotMs?: number;
  e2elMs?: number;
  /** Least output tokens per second a user must see once the answer streams (see userTokensPerS). */
  userTps?: number;
}

/** Formats of a replayed trace (`--trace`, `--trace-format`). */
export type TraceFormat = 'mooncake' | 'azure' | 'burstgpt' | 'bailian' | 'jsonl' | 'csv';

/** A replayed trace: which file, read how, replayed how (enough for `gate --adr` to replay it again). */
export interface TraceSpec {
  path: string;
  format: TraceFormat;
  sha256: string;
  /** Requests in the trace. */
  entries: number;
  /** Tokens per `hash_ids` block (Mooncake: 512). */
  blockSize: number;
  /** Every trace time is multiplied by this: 0.5 replays twice as fast. */
  timeScale: number;
  /** Generic JSONL/CSV: the columns holding the timestamp and the prompt and output lengths. */
  columns?: { timestamp: string; input: string; output: string };
  /** Generic JSONL/CSV: unit of numeric timestamps (date-time strings are read as dates). */
  timeUnit?: 'ms' | 's' | 'us';
}

/**
 * Multi-turn sessions, the workload side: what one conversation is. Each turn's request carries
 * the whole conversation so far, the server's own earlier replies included.
 */
export interface SessionWorkloadSpec {
  /** Synthetic: turns per session, uniform over [min, max] (min = max: fixed). Datasets: each conversation's own. */
  turns?: { min: number; max: number };
  /** Synthetic: tokens of each user turn after the first (the first has promptTokens). */
  turnTokens?: number;
  /** Time between a reply and the user's next turn: fixed, or exponential with this mean. Absent: none. */
  thinkTime?: { meanMs: number; dist: 'fixed' | 'exponential' };
}

/** Multi-turn sessions, the load side: how sessions start. LoadSpec.maxConcurrency caps requests in flight. */
export interface SessionLoadSpec {
  /** Closed loop over sessions: this many at once; each starts a new session when its last one ends. */
  concurrency?: number;
  /** Open loop over sessions: new sessions per second (gamma gaps of shape LoadSpec.burstiness). */
  rate?: number;
  /**
   * Per-user rate (AIPerf's user-centric rate): a user's turns are due 1/userRate s apart,
   * counted from the first, instead of after a think time (a reply still late is waited for).
   */
  userRate?: number;
}

/** Where a tokenizer read from a file came from, so a run says which tokenizer counted. */
export interface TokenizerFile {
  /** tokenizer.json as read (absolute path). */
  path: string;
  /** sha256 of tokenizer.json, hex. */
  sha256: string;
  /** The chat template that counted chat prompts: where it came from and its sha256; absent when there was none. */
  chatTemplate?: { source: string; sha256: string };
}

/** A length distribution of prompts or outputs (`--prompt-tokens-dist`, `--max-tokens-dist`). */
export interface LengthDistSpec {
  kind: 'fixed' | 'uniform' | 'normal' | 'lognormal' | 'empirical';
  /** As parsed, e.g. "lognormal:mean=512,sigma=0.6": given again, the same distribution. */
  text: string;
  /** Its mean in tokens (the histogram's, for empirical). */
  mean: number;
  /** empirical: the file of the histogram, its lengths counted, and (a trace) which of them. */
  source?: { path: string; sha256: string; samples: number; column?: 'input' | 'output' };
}

/** Groups of prompts that share a prefix (`--prefix-groups`), as vLLM bench's prefix-repetition dataset. */
export interface PrefixGroupsSpec {
  /** Distinct prefixes in use at a time. */
  groups: number;
  /** Tokens of each group's prefix, before each prompt's own part (promptTokens). */
  prefixTokens: number;
  /** Prompts that share one prefix; absent: each prompt takes one of `groups` prefixes at random, for the whole run. */
  promptsPerGroup?: number;
}

/** Images in every chat request (`--images`, `--images-dir`): count, and their size and format or their folder. */
export interface ImagesSpec {
  /** Images per request, in its last user message. */
  count: number;
  /** Synthetic images: pixels a side (absent with `folder`). */
  width?: number;
  height?: number;
  /** Synthetic images: their encoding (absent with `folder`). */
  format?: 'png' | 'jpeg';
  /**
   * Synthetic: encoded bytes of the first request's images together (others differ only by
   * their noise). Folder: the mean, count × the files' mean size.
   */
  bytesPerRequest?: number;
  /** `--images-dir`: each request's images drawn (seeded) from this folder's files. */
  folder?: ImageFolderSpec;
}

/** The folder of `--images-dir`: its path, and once read its image files, their bytes and identity. */
export interface ImageFolderSpec {
  path: string;
  files?: number;
  bytes?: number;
  /** sha256 over the files' names and bytes, in name order. */
  sha256?: string;
}

/**
 * One traffic class of a run (`--class`, a config file's `classes:`): its share of the requests,
 * its own prompt and output lengths, its own SLO, the priority and model it is sent with.
 * Unset fields take the run's (its workload flags, its SLO).
 */
export interface TrafficClassSpec {
  /** Unique in the run, as records and summaries name it, e.g. "chat". */
  name: string;
  /**
   * Its share of the run, the shares summing to 1: of the requests sent (open loop: of the
   * arrival rate), of the closed loop's users, or of the sessions started (WorkloadSpec.classShareOf).
   */
  share: number;
  /** Synthetic prompt length in tokens (the user part), as --prompt-tokens. */
  promptTokens?: number;
  /** Synthetic prompt lengths drawn from this (`prompt-tokens-dist=…`). */
  promptTokensDist?: LengthDistSpec;
  /** Output limit, as --max-tokens. */
  maxTokens?: number;
  /** Output limits drawn from this (`max-tokens-dist=…`). */
  maxTokensDist?: LengthDistSpec;
  /** Its own shared system prompt, as --system-prompt-tokens. */
  systemPromptTokens?: number;
  /** Its SLO: each objective set here replaces the run's; the others are the run's. */
  slo?: Slo;
  /** Sent as vLLM's `priority` field (lower = served first; the server needs `--scheduling-policy priority`). */
  priority?: number;
  /** Sent as the request's `model` (another model or a LoRA adapter the server serves), instead of the run's. */
  model?: string;
  /** Its requests offer these tools (`tools=N|FILE`, `tool-choice=`), whether or not the run's do. */
  tools?: ToolsSpec;
  /** Sessions runs: its own session shape over the run's (`turns=`, `turn-tokens=`, `think-time=`). */
  sessions?: SessionWorkloadSpec;
}

export interface WorkloadSpec {
  kind: 'synthetic' | 'dataset' | 'trace';
  api: ApiKind;
  /**
   * Synthetic: exact prompt length in tokens (user part, shared prefix excluded). With a
   * model's own tokenizer (tokenizerFile), the whole prompt as the server counts it minus
   * systemPromptTokens: the chat template's tokens are part of it.
   */
  promptTokens?: number;
  /** Synthetic: uniform spread ±range×promptTokens. */
  promptTokensRange?: number;
  /** Synthetic: a shared system prompt of this many tokens before every user prompt. */
  systemPromptTokens?: number;
  dataset?: {
    path: string;
    format: 'jsonl' | 'sharegpt' | 'openai-batch' | 'hf-jsonl' | 'hf-parquet';
    sha256: string;
    entries: number;
  };
  /** Trace replay: prompts and output lengths from the trace, sent at its times. */
  trace?: TraceSpec;
  /** Output limit of each request; with `maxTokensFrom`, only of those whose entry states none. */
  maxTokens: number;
  /**
   * Each request's max_tokens came from its dataset entry or trace line (a dataset without
   * `--max-tokens`, a trace), not from `maxTokens`. Absent: every request asked `maxTokens`.
   */
  maxTokensFrom?: 'dataset' | 'trace';
  /**
   * Name of the tokenizer that counted prompt tokens, e.g. "o200k_base", or for a model's own
   * (`--tokenizer FILE`) "hf:<name_or_path or folder>@<first 12 hex of its sha256>".
   */
  tokenizer: string;
  /** `--tokenizer FILE`: the tokenizer.json read (path, sha256) and the chat template that counted chat prompts. */
  tokenizerFile?: TokenizerFile;
  cancelAfterMs?: number;
  /** Fraction of requests whose user gives up after cancelAfterMs. */
  cancelRate?: number;
  /** Multi-turn sessions (--sessions, --session-rate): every request is a turn of a conversation. */
  sessions?: SessionWorkloadSpec;
  /** Synthetic: prompt lengths (user part) drawn from this; promptTokens is then its rounded mean. */
  promptTokensDist?: LengthDistSpec;
  /** Each request's max_tokens drawn from this; maxTokens is then its rounded mean. */
  maxTokensDist?: LengthDistSpec;
  /** Synthetic: each prompt starts with its group's shared prefix. */
  prefixGroups?: PrefixGroupsSpec;
  /** Chat and Responses: images sent with every request. */
  images?: ImagesSpec;
  /** Traffic classes (`--class`): each request belongs to one, drawn by their shares (workload/classes.ts). */
  classes?: TrafficClassSpec[];
  /**
   * With classes, what a class's share is a share of: the requests (open loop: the arrivals),
   * the closed loop's users (each user sends only its class's requests or sessions), or the
   * sessions started (`--session-rate`). Absent in runs recorded before it: the requests.
   */
  classShareOf?: 'requests' | 'users' | 'sessions';
  /** Agent runs (--agents): each run is a loop of model calls and tool waits, maybe fanned out. */
  agents?: AgentWorkloadSpec;
  /** `--tools` on single requests (chat, Responses): the functions each request offers, and its tool_choice. */
  tools?: ToolsSpec;
}

/**
 * Agent runs, the workload side (workload/agents.ts, runner/strategies/agents.ts): each run
 * offers `tools` synthetic functions; a reply that calls one is answered, after a tool latency,
 * with a tool result of `toolResultTokens`, until `steps` model calls (the last one with
 * tool_choice none). At step `fanOutStep` a run's tool call fans out to `fanOut` sub-agents that
 * start from the run's conversation (its prefix) and run `subSteps` steps each, joined before
 * the run continues. `trace`: the runs are replayed from an agent trace (docs/agents.md).
 */
export interface ToolsSpec {
  /** Functions offered. */
  count: number;
  /** tool_choice sent (absent: none sent, the server's default). */
  choice?: ToolChoice;
  /** The definitions' file (`--tools FILE`); absent: synthetic functions tool_0 … */
  file?: { path: string; sha256: string };
}

export interface AgentWorkloadSpec {
  /** Agent runs at once (closed loop). */
  concurrency: number;
  steps: number;
  tools: number;
  /** tool_choice of every step but the last (default required: a call each step). */
  toolChoice: 'auto' | 'required';
  toolLatencyMs: LengthDistSpec;
  toolResultTokens: LengthDistSpec;
  fanOut: number;
  fanOutStep: number;
  subSteps: number;
  /** `--agent-trace`: the file replayed, its form, its runs, and `--time-scale` when not 1. */
  trace?: {
    path: string;
    format: 'goodput' | 'weka' | 'otlp';
    sha256: string;
    runs: number;
    timeScale?: number;
  };
}

/** One k6-style stage: the target moves linearly from the previous stage's (0 at first) to `target` over `durationMs`. */
export interface LoadStage {
  durationMs: number;
  /** Requests per second (stagesOf 'rate') or requests in flight (stagesOf 'concurrency'). */
  target: number;
}

export interface LoadSpec {
  mode: 'closed' | 'open';
  concurrency?: number;
  /** Open loop: requests per second. */
  rate?: number;
  /** Gamma shape of inter-arrival times; 1 = Poisson. */
  burstiness?: number;
  /** Open loop: cap on requests in flight. */
  maxConcurrency?: number;
  requests?: number;
  durationMs?: number;
  warmup: number;
  timeoutMs: number;
  ttftTimeoutMs?: number;
  maxRetries: number;
  /** Multi-turn sessions: requests are turns of conversations, started this way (see SessionLoadSpec). */
  sessions?: SessionLoadSpec;
  /** Load worker threads the load was split across (`--workers`); absent: one, the main thread. */
  workers?: number;
  /** Load shape over time (`--stages`): the run lasts their total duration. */
  stages?: LoadStage[];
  /** What the stages' targets are: the arrival rate (open loop) or the concurrency (closed loop). */
  stagesOf?: 'rate' | 'concurrency';
  /** `--connections`: how the client uses connections; absent: pooled, sized to the load. */
  connections?: ConnectionSetting;
}

/**
 * `--connections per-request|pooled[:N]`: `pooled` keeps connections alive and reuses them (at
 * most `limit`, else as many as the load needs); `per-request` opens a new connection for every
 * request and closes it after, as vLLM's benchmark client does.
 */
export interface ConnectionSetting {
  mode: 'pooled' | 'per-request';
  limit?: number;
  /** `--source-addresses`: local addresses the connections leave from, in turn. */
  sourceAddresses?: string[];
}

/** What a server says of itself (each field only where the engine exposes it). */
export interface ServerSelfDescription {
  /** Detected engine: 'vllm' | 'sglang' | 'llama.cpp' | 'tgi' | 'goodput-sim' | 'unknown'. */
  engine: string;
  /** Engine version (vLLM `/version`, SGLang `/get_server_info` version, …). */
  version?: string;
  /** Model ids from `/v1/models`. */
  models?: string[];
  /** Engine settings it reports (vLLM `vllm:cache_config_info` labels, SGLang server args, llama.cpp `/props`), flattened to strings. */
  settings?: Record<string, string>;
  /** GPU model and count from a DCGM exporter (its `modelName` and `gpu` labels), when one was given. */
  gpu?: { model: string; count: number };
  /** Which endpoints answered, and which did not (name → 'ok' | reason). */
  sources: Record<string, string>;
}

export interface TargetInfo {
  /** Base URL as called (never with credentials). */
  baseUrl: string;
  api: ApiKind;
  /** True when the run used the embedded simulated engine. */
  embedded: boolean;
  /** For the embedded engine: 'live' (real sockets, real time) or 'virtual' (simulated time). */
  timeMode?: 'live' | 'virtual';
  /** For the embedded engine: its profile, e.g. "h100:llama-3.1-8b". */
  simProfile?: string;
  /** For the embedded engine: its `--speculative-config` JSON as given, when it drafted. */
  simSpeculativeConfig?: string;
  /** For the embedded engine: `--scheduling-policy priority` (absent: first come, first served). */
  simSchedulingPolicy?: 'priority';
  /** For the embedded engine serving LoRA adapters (the classes' models): its `--max-loras` slots. */
  simMaxLoras?: number;
  /**
   * What the server said of itself before the load (its version, settings, the GPUs under it),
   * secrets redacted. Absent in older summaries and where nothing was asked (merged shards).
   */
  selfDescription?: ServerSelfDescription;
}

export interface RunMeta {
  /** goodput itself: its version, and the command line that ran it (secrets redacted; absent from a library call). */
  tool: { name: 'goodput'; version: string; command?: string[] };
  runId: string;
  /** Wall-clock time of the run's t0, ISO 8601. */
  startedAt: string;
  target: TargetInfo;
  model: string;
  sampling: Sampling;
  workload: WorkloadSpec;
  load: LoadSpec;
  slo: Slo;
  seed: number;
  /** Optional free-form labels (--label k=v), e.g. the serving configuration under test. */
  labels?: Record<string, string>;
  /**
   * `--shard index/count`: this run sent only its share of the workload above (items whose
   * measured position ≡ index mod count, concurrency split), which `load` describes whole;
   * `startAt` is the shared instant its measured load was told to start at (ISO 8601).
   */
  shard?: ShardSpec;
}

/** Which share of a sharded run's workload a run sent, and when all shards were told to start. */
export interface ShardSpec {
  /** 0-based. */
  index: number;
  count: number;
  /** The shared start instant (`--start-at`), ISO 8601 UTC. */
  startAt?: string;
}
