/**
 * Data contracts shared by every module: what the workload produces, what the client
 * records, what metrics summarise, what every later command reads.
 *
 * Times named `...Ms` without further qualification are milliseconds on the run's
 * monotonic clock: `performance.now()` minus the run's t0 (floats, sub-millisecond
 * resolution). Durations are milliseconds unless the name says otherwise. Every
 * persisted file carries `schemaVersion` (see SCHEMA_VERSION).
 *
 * @module
 */

export const SCHEMA_VERSION = 1 as const;

/** Milliseconds on the run's monotonic clock (0 = the run's t0). */
export type Ms = number;

/** A monotonic clock in milliseconds. Injected wherever time matters, so tests can control it. */
export interface Clock {
  now(): Ms;
}

/**
 * The clock a load runs on: the wall clock (live time, `RunClock` in runner/) or the
 * simulated engine's clock (virtual time, `VirtualClock` in sim/). `runLoad` waits, keeps its
 * deadline and measures only through it, so both time modes run the same loop.
 */
export interface LoadClock extends Clock {
  /** Resolves true at `targetMs` (at once if it has passed), or false early when the signal aborts. */
  sleepUntil(targetMs: Ms, signal?: AbortSignal): Promise<boolean>;
  /** Calls `fn` at `targetMs` (the --duration deadline); returns a function that cancels it. */
  at(targetMs: Ms, fn: () => void): () => void;
  /** Awaits something outside the clock (a disk write): virtual time does not move meanwhile. */
  outside<T>(p: Promise<T>): Promise<T>;
  /** Wall-clock time: event-loop delay and timer lag can show that the client limited the load. */
  readonly realTime: boolean;
  /** Resolves as `work` does; virtual time fires its timers meanwhile, until `work` settles. */
  run<T>(work: Promise<T>): Promise<T>;
}

/** Which OpenAI endpoint is called: `/v1/chat/completions` or `/v1/completions`. */
export type ApiKind = 'chat' | 'completions';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Sampling parameters: fixed for a run and recorded, so that runs compare fairly. */
export interface Sampling {
  temperature: number;
  topP?: number;
  /** Default output limit per request; a WorkItem may carry its own. Sent as max_tokens and max_completion_tokens. */
  maxTokens: number;
  seed?: number;
  /** Ask the server to ignore end-of-sequence (vLLM's `ignore_eos`), so that outputs reach maxTokens. */
  ignoreEos: boolean;
}

/** One request to send, produced by the workload. */
export interface WorkItem {
  /** 0-based position in the workload, warmup included. */
  index: number;
  /** Unique within the run, e.g. "r-000042". */
  id: string;
  /** Warmup requests are sent and recorded but excluded from the summary. */
  warmup: boolean;
  /** For api 'chat'. */
  messages?: ChatMessage[];
  /** For api 'completions'. */
  prompt?: string;
  /** Prompt length counted by the client's tokenizer. */
  promptTokens: number;
  /** Output limit for this request. */
  maxTokens: number;
  /** Open loop: intended send time on the run clock. Closed loop: undefined (the runner stamps it). */
  scheduledMs?: Ms;
  /** The simulated user gives up this long after sending: the request is aborted. */
  cancelAfterMs?: number;
}

export type Outcome = 'success' | 'error' | 'cancelled';

/**
 * Stable codes for a failed request. `cause` and `hint` for each live in errors.ts
 * (REQUEST_ERRORS); doctor and the run's error summary use the same table.
 */
export type RequestErrorCode =
  | 'CONNECTION_REFUSED'
  | 'DNS_FAILURE'
  | 'TLS_FAILURE'
  | 'CONNECT_TIMEOUT'
  | 'CONNECTION_RESET'
  | 'PROXY_FAILURE'
  | 'TIMEOUT'
  | 'TTFT_TIMEOUT'
  | 'HTTP_REDIRECT'
  | 'HTTP_UNAUTHORIZED'
  | 'HTTP_FORBIDDEN'
  | 'HTTP_NOT_FOUND'
  | 'HTTP_RATE_LIMITED'
  | 'HTTP_CLIENT_ERROR'
  | 'HTTP_SERVER_ERROR'
  | 'HTTP_UNAVAILABLE'
  | 'BAD_JSON'
  | 'BAD_SSE'
  | 'EMPTY_STREAM'
  | 'STREAM_TRUNCATED'
  | 'STREAM_ERROR_OBJECT'
  | 'EMPTY_CHOICES'
  | 'IMPOSSIBLE_VALUE'
  | 'ABORTED'
  | 'INTERRUPTED'
  | 'UNKNOWN';

export interface RequestError {
  code: RequestErrorCode;
  /** What happened, in the server's or the socket's own words where there are any. Never contains the key. */
  message: string;
  httpStatus?: number;
}

/** An attempt that failed and was retried (the final attempt is the record itself). */
export interface AttemptRecord {
  attempt: number;
  sentMs: Ms;
  endMs: Ms;
  error: RequestError;
  /** Parsed Retry-After, when the server sent one. */
  retryAfterMs?: number;
}

/**
 * What the client observed for one request: raw timestamps and counts, no derived metrics.
 * A failed request is a record with `outcome: 'error'`, never an exception.
 */
export interface RequestRecord {
  id: string;
  index: number;
  warmup: boolean;
  outcome: Outcome;
  /** Set for outcome 'error' and 'cancelled' (code ABORTED or INTERRUPTED). */
  error?: RequestError;
  /** Attempts made, the final one included (1 = no retry). */
  attempts: number;
  failedAttempts?: AttemptRecord[];
  /** Intended send time (open loop) or the time the slot became free (closed loop). */
  scheduledMs: Ms;
  /** Send time of the final attempt. */
  sentMs: Ms;
  /** Send time of the first attempt (equals sentMs when there was no retry). */
  firstSentMs: Ms;
  headersMs?: Ms;
  /** First chunk carrying content or reasoning content. */
  firstTokenMs?: Ms;
  /** Last byte of the response, or the moment of failure or abort. */
  endMs: Ms;
  /** Arrival time of every chunk carrying content or reasoning content (first = firstTokenMs). */
  chunkMs: Ms[];
  /** Characters of content + reasoning content in each of those chunks (same length as chunkMs). */
  chunkChars: number[];
  httpStatus?: number;
  /** Prompt tokens counted by the client. */
  promptTokens: number;
  /** usage.prompt_tokens, when the server reported it. */
  serverPromptTokens?: number;
  /** usage.completion_tokens when reported, else tokens counted by the client. */
  outputTokens: number;
  outputTokensSource: 'usage' | 'counted';
  /** usage.completion_tokens_details.reasoning_tokens, when reported. */
  reasoningTokens?: number;
  maxTokens: number;
  finishReason?: string;
  /** TCP (+TLS) connect time when this request had to open a new connection. */
  connectMs?: number;
  /**
   * Transparent resends (0 or 1, absent when 0): the request was written on an idle keep-alive
   * connection that the server had already closed, before any byte of a response; not a retry.
   */
  resends?: number;
}

/** Service-level objectives in milliseconds; a request is good when it meets every one that is set. */
export interface Slo {
  ttftMs?: number;
  tpotMs?: number;
  e2elMs?: number;
}

export interface WorkloadSpec {
  kind: 'synthetic' | 'dataset';
  api: ApiKind;
  /** Synthetic: exact prompt length in tokens (user part, shared prefix excluded). */
  promptTokens?: number;
  /** Synthetic: uniform spread ±range×promptTokens. */
  promptTokensRange?: number;
  /** Synthetic: a shared system prompt of this many tokens before every user prompt. */
  systemPromptTokens?: number;
  dataset?: { path: string; format: 'jsonl' | 'sharegpt'; sha256: string; entries: number };
  maxTokens: number;
  /** Name of the tokenizer that counted prompt tokens, e.g. "o200k_base". */
  tokenizer: string;
  cancelAfterMs?: number;
  /** Fraction of requests whose user gives up after cancelAfterMs. */
  cancelRate?: number;
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
}

export interface RunMeta {
  tool: { name: 'goodput'; version: string };
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
}

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
] as const;
export type SummaryLatencyName = (typeof SUMMARY_LATENCY_NAMES)[number];

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
  tokenSource: 'client' | 'server';
}

export interface ErrorCount {
  code: RequestErrorCode;
  count: number;
  /** One message seen for this code (the first). */
  example: string;
  httpStatus?: number;
}

/** What the connection warm-up did (summary.load.connectionWarmup). */
export interface ConnectionWarmup {
  /** Connections asked for. */
  requested: number;
  /** Warm-up requests the server answered: connections open and kept for the load. */
  ok: number;
  /** How long the warm-up took (ms). */
  ms: number;
  /**
   * Why fewer than `requested` connections were warmed: the server did not answer within the
   * budget, the run was stopped (Ctrl-C), or the requests failed. Absent when all were.
   */
  reason?: 'budget' | 'aborted' | 'errors';
}

export interface LoadHonesty {
  /** sent − scheduled for open-loop requests (ms). */
  dispatchLag: LatencyStats;
  /** Open-loop requests sent more than the lag tolerance after their scheduled time. */
  lateSends: number;
  /** Requests the runner could not send at all (stop rule hit, cap reached). */
  dropped: number;
  /** True when the load generator itself was the bottleneck (lag, CPU): numbers may understate the server. */
  clientBound: boolean;
  /** Why the client counts as the bottleneck (event-loop delay, send lag, client queue wait), when it does. */
  clientBoundReason?: string;
  /** Highest number of requests in flight at once. */
  peakInFlight: number;
  /** HdrHistogram of dispatchLag (microseconds, compressed base64), so that merged runs keep exact percentiles. */
  dispatchLagHistogram?: string;
  /** Live runs: the bounded connection warm-up before the clock started. */
  connectionWarmup?: ConnectionWarmup;
}

/** Normalised server-side series (one vocabulary for vLLM, SGLang, llama.cpp, TGI and the simulator). */
export type ServerSeriesName =
  | 'running'
  | 'waiting'
  | 'kvUsage'
  | 'preemptionsTotal'
  | 'promptTokensTotal'
  | 'generationTokensTotal'
  | 'prefixCacheQueriesTotal'
  | 'prefixCacheHitsTotal'
  | 'kvFragmentation'
  | 'wastedTokensTotal'
  | 'blockSize'
  | 'numBlocks'
  /** Server-side latency histograms, when exported: cumulative sum (seconds) and count. */
  | 'serverTtftSecondsSum'
  | 'serverTtftCount'
  | 'serverItlSecondsSum'
  | 'serverItlCount';

/** One scrape of the server's metrics, normalised. */
export interface ServerSample {
  tMs: Ms;
  engine: 'vllm' | 'sglang' | 'llamacpp' | 'tgi' | 'goodput-sim' | 'unknown';
  values: Partial<Record<ServerSeriesName, number>>;
}

export interface SeriesStats {
  min: number;
  mean: number;
  max: number;
  last: number;
}

export interface ServerSummary {
  engine: ServerSample['engine'];
  metricsUrl: string;
  samples: number;
  series: Partial<Record<ServerSeriesName, SeriesStats>>;
  preemptions?: number;
  prefixCacheHitRate?: number;
  kvFragmentation?: number;
  generatedTokens?: number;
  wastedTokens?: number;
  /** Preemptions per second over the scrape window (first to last sample). */
  preemptionsPerS?: number;
  /** Where kvFragmentation came from: the server's own gauge, or derived (see server-metrics/fragmentation.ts). */
  fragmentationSource?: 'server' | 'derived';
  /** Mean TTFT and ITL from the server's own histograms (deltas over the run), when exported. */
  serverTtftMeanMs?: number;
  serverItlMeanMs?: number;
  /** Scrapes that failed (timeout, refused, not Prometheus text): counted, never fatal. */
  scrapeFailures?: number;
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

export interface Finding {
  kind:
    | 'queueing'
    | 'kv-pressure'
    | 'prefill-bound'
    | 'decode-bound'
    | 'client-bound'
    | 'wasted-work'
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
  latency: Record<SummaryLatencyName, LatencyStats>;
  throughput: {
    requestsPerS: number;
    outputTokensPerS: number;
    totalTokensPerS: number;
    peakOutputTokensPerS: number;
  };
  goodput: GoodputSummary;
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
  buckets?: PromptBucket[];
  diagnosis?: Finding[];
}

/** Receives records as the run goes (JSONL writer, accumulator, progress). */
export interface RecordSink {
  write(record: RequestRecord): void;
  close(): Promise<void>;
}
