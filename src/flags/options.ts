/**
 * Reusable option groups of every command that measures an endpoint (run, gate, sweep,
 * watch, doctor): target, workload, load and output flags. Commands spread the groups they
 * need into their CommandSpec.options; resolveBenchmarkConfig (./resolve.ts) turns the
 * parsed values into a BenchmarkConfig. Keep names and meanings stable: other commands and
 * the README build on them.
 *
 * @module
 */

import type { OptionSpec } from './spec.js';
import { TRACE_OPTIONS } from './trace-options.js';

export { TRACE_OPTIONS };

/** The simulated engine's reasoning mode (`goodput sim`, and the embedded engine of a run). */
export const REASONING_OPTIONS: OptionSpec[] = [
  {
    name: 'reasoning-tokens',
    type: 'string',
    valueName: 'N|exp:N|A-B',
    group: 'Target',
    description:
      'Reasoning mode of the simulated engine: each chat/Responses request streams this many reasoning tokens before its answer (N exactly, exp:N exponential with mean N, A-B uniform); they count against max_tokens',
  },
  {
    name: 'reasoning-field',
    type: 'string',
    choices: ['reasoning_content', 'reasoning'],
    valueName: 'FIELD',
    group: 'Target',
    description: 'Delta field the simulated reasoning is streamed in [default: reasoning_content]',
  },
];

/** vLLM's --speculative-config for the simulated engine (`goodput sim`, and the embedded engine of a run). */
export const SPECULATIVE_CONFIG_OPTION: OptionSpec = {
  name: 'speculative-config',
  type: 'string',
  valueName: 'JSON',
  group: 'Target',
  description: `Speculative decoding of the simulated engine, vLLM's JSON: method (ngram, draft_model, eagle, eagle3, mtp, medusa), num_speculative_tokens (1-16), and the simulation-only acceptance_probability (per draft position; default by method), e.g. '{"method":"ngram","num_speculative_tokens":3}'`,
};

/** Where to send requests and how: URL, model, API, key file, timeouts, retries, server metrics. */
export const TARGET_OPTIONS: OptionSpec[] = [
  {
    name: 'url',
    type: 'string',
    valueName: 'URL',
    group: 'Target',
    description:
      'Base URL of the OpenAI-compatible endpoint (e.g. http://host:8000); /v1/... is appended. Else GOODPUT_BASE_URL, else OPENAI_BASE_URL, else the config file; without any, the embedded simulated engine is started',
  },
  {
    name: 'model',
    type: 'string',
    short: 'm',
    valueName: 'MODEL',
    group: 'Target',
    description: 'Model id; without it, the first id from GET /v1/models',
  },
  {
    name: 'api',
    type: 'string',
    choices: ['chat', 'completions', 'responses', 'embeddings'],
    default: 'chat',
    group: 'Target',
    description:
      'Endpoint: /v1/chat/completions, /v1/completions, /v1/responses (Responses API, streamed) or /v1/embeddings (not streamed: latency and inputs/s)',
  },
  {
    name: 'config',
    type: 'string',
    valueName: 'FILE',
    group: 'Target',
    description:
      'Config file: settings.json shape {base_url, api_key, model_id, slo} or gateway shape {provider, baseUrl, apiKey, model, timeoutMs, maxRetries}. Flags override env, env overrides the file',
  },
  {
    name: 'api-key-file',
    type: 'string',
    valueName: 'FILE',
    group: 'Target',
    description:
      'Read the API key from this file (else GOODPUT_API_KEY, else OPENAI_API_KEY, else the config file). The key is never printed or written',
  },
  {
    name: 'header',
    type: 'string',
    repeatable: true,
    valueName: "'K: V'",
    group: 'Target',
    description:
      "Extra request header (repeatable), e.g. --header 'X-Route: canary'. 'K: env:NAME' takes the value from the environment variable NAME, so a secret stays out of shell history; such values, and those of Authorization, *key*, *token*, *secret* and cookie headers, are never printed or written",
  },
  {
    name: 'extra-body',
    type: 'string',
    valueName: 'JSON',
    group: 'Target',
    description:
      'JSON object merged into every request body, last (LoRA adapter as model, chat_template_kwargs, priority, vendor fields); @FILE reads it from a file',
  },
  {
    name: 'timeout',
    type: 'duration',
    group: 'Target',
    description: 'Total time limit per request [default: 60s]',
  },
  {
    name: 'ttft-timeout',
    type: 'duration',
    group: 'Target',
    description: 'Time limit for the first token of a request',
  },
  {
    name: 'max-retries',
    type: 'integer',
    group: 'Target',
    description:
      'Retries of a request that failed before any response byte (429/503 honour Retry-After) [default: 1]',
  },
  {
    name: 'metrics-url',
    type: 'string',
    repeatable: true,
    valueName: 'URL',
    group: 'Target',
    description:
      "Server's Prometheus /metrics URL [default: <url>/metrics when it answers]; repeat it for each replica or data-parallel rank behind a router (NAME=URL names one): per-replica figures, their totals, and a finding when the router is uneven",
  },
  {
    name: 'metrics-prometheus',
    type: 'string',
    valueName: 'URL',
    group: 'Target',
    description:
      "A Prometheus server that scrapes the engine(s), e.g. http://prometheus:9090: the run window's series are read through its query_range API (with --metrics-selector), one replica per instance, in place of scraping /metrics; GOODPUT_PROMETHEUS_AUTH is sent as its Authorization header",
  },
  {
    name: 'metrics-selector',
    type: 'string',
    valueName: 'SELECTOR',
    group: 'Target',
    description:
      'Label matchers of the engine\'s series in --metrics-prometheus, e.g. \'{job="vllm"}\' or \'{namespace="llm",pod=~"vllm-.*"}\'',
  },
  {
    name: 'server-metrics',
    type: 'boolean',
    default: true,
    group: 'Target',
    description: "Scrape the server's Prometheus metrics during the run (--no-server-metrics to skip)",
  },
  {
    name: 'scrape-interval',
    type: 'duration',
    group: 'Target',
    description: 'Time between two scrapes of the server metrics [default: 1s]',
  },
  {
    name: 'gpu-metrics-url',
    type: 'string',
    valueName: 'URL',
    group: 'Target',
    description:
      "NVIDIA DCGM exporter's /metrics (e.g. http://gpu-node:9400/metrics): GPU utilisation, memory and power into the server block",
  },
  {
    name: 'gpu-power-watts',
    type: 'number',
    valueName: 'W',
    group: 'Target',
    description:
      'Assumed mean power of one GPU, for energy per token when no DCGM exporter measures it (stated as an assumption)',
  },
  {
    name: 'gpu-count',
    type: 'integer',
    valueName: 'N',
    group: 'Target',
    description:
      "GPUs serving the endpoint, for energy and cost [default: the DCGM exporter's count, else 1]",
  },
  {
    name: 'cost-per-hour',
    type: 'number',
    valueName: 'PRICE',
    group: 'Target',
    description:
      'Price of an hour (of one GPU, or of the deployment: --cost-per), for cost per million tokens',
  },
  {
    name: 'cost-per',
    type: 'string',
    choices: ['gpu', 'deployment'],
    group: 'Target',
    description:
      'What --cost-per-hour prices: one GPU (times the GPUs) or the whole deployment [default: gpu]',
  },
  {
    name: 'sim-profile',
    type: 'string',
    valueName: 'GPU:MODEL',
    group: 'Target',
    description:
      'Profile of the embedded engine (without --url), e.g. a100:llama-3.1-8b or h100x4:llama-3.1-70b [default: h100:llama-3.1-8b]',
  },
  {
    name: 'sim-profile-file',
    type: 'string',
    valueName: 'FILE',
    group: 'Target',
    description:
      'A JSON profile of the embedded engine, e.g. one fitted to your server by goodput sim calibrate (overrides --sim-profile)',
  },
  {
    name: 'time',
    type: 'string',
    choices: ['live', 'virtual'],
    default: 'live',
    group: 'Target',
    description:
      'Embedded engine only: live (real sockets, real time) or virtual (the engine with a simulated clock: what-if runs that finish in seconds)',
  },
  SPECULATIVE_CONFIG_OPTION,
  ...REASONING_OPTIONS,
];

/** What each request asks: prompts, lengths, sampling, simulated users who give up. */
export const WORKLOAD_OPTIONS: OptionSpec[] = [
  {
    name: 'prompt-tokens',
    type: 'integer',
    valueName: 'N',
    group: 'Workload',
    description: 'Synthetic prompt length in tokens (exact, counted with a real tokenizer) [default: 256]',
  },
  {
    name: 'prompt-tokens-range',
    type: 'number',
    valueName: 'R',
    group: 'Workload',
    description: 'Spread prompt lengths uniformly over ±R×prompt-tokens (e.g. 0.2)',
  },
  {
    name: 'prompt-tokens-dist',
    type: 'string',
    valueName: 'DIST',
    group: 'Workload',
    description:
      'Synthetic prompt lengths drawn from a distribution: N, uniform:MIN-MAX, normal:mean=M,std=S, lognormal:mean=M,sigma=S (or median=M), empirical:FILE (a tokens,count histogram CSV or a trace); any with ,min=A,max=B (replaces --prompt-tokens)',
  },
  {
    name: 'prefix-groups',
    type: 'integer',
    valueName: 'N',
    group: 'Workload',
    description:
      "Synthetic prompts in N groups, each prompt its group's shared prefix of --prefix-tokens then --prompt-tokens of its own (vLLM bench's prefix repetition)",
  },
  {
    name: 'prefix-tokens',
    type: 'integer',
    valueName: 'N',
    group: 'Workload',
    description: "With --prefix-groups: tokens of each group's prefix [default: 1024]",
  },
  {
    name: 'prompts-per-group',
    type: 'integer',
    valueName: 'P',
    group: 'Workload',
    description:
      'With --prefix-groups: each prefix is shared by exactly P prompts, in rounds of N×P with fresh prefixes [default: each prompt takes one of the N prefixes at random]',
  },
  {
    name: 'system-prompt-tokens',
    type: 'integer',
    valueName: 'N',
    group: 'Workload',
    description: 'A shared system prompt of N tokens before every prompt (the long-system-prompt case)',
  },
  {
    name: 'tokenizer',
    type: 'string',
    valueName: 'FILE|NAME',
    group: 'Workload',
    description:
      "The model's Hugging Face tokenizer.json (or its folder, with tokenizer_config.json and the chat template): prompts are counted as the server counts them, and --prompt-tokens is the whole prompt, chat template included. Or an encoding: o200k_base, cl100k_base, … [default: o200k_base]",
  },
  {
    name: 'chat-template',
    type: 'string',
    valueName: 'FILE',
    group: 'Workload',
    description:
      "With --tokenizer FILE: the Jinja chat template the server uses, when it is not the tokenizer folder's (as vLLM's --chat-template)",
  },
  {
    name: 'dataset',
    type: 'string',
    valueName: 'FILE',
    group: 'Workload',
    description:
      'Prompts from a JSONL file ({"prompt"} or {"messages"} per line), ShareGPT JSON, an OpenAI batch input JSONL, or a Hugging Face datasets export (JSONL or Parquet)',
  },
  {
    name: 'turns',
    type: 'string',
    valueName: 'N|MIN-MAX',
    group: 'Workload',
    description:
      'Sessions: user turns per synthetic session, fixed (3) or uniform over a range (2-6) [default: 3]; a dataset gives each conversation its own',
  },
  {
    name: 'turn-tokens',
    type: 'integer',
    valueName: 'N',
    group: 'Workload',
    description:
      'Sessions: tokens of each user message after the first (the first has --prompt-tokens) [default: --prompt-tokens]',
  },
  {
    name: 'think-time',
    type: 'string',
    valueName: 'DUR|exp:DUR',
    group: 'Workload',
    description:
      "Sessions: time between a reply and the user's next turn, fixed (2s) or exponential with that mean (exp:2s) [default: 0]",
  },
  {
    name: 'max-tokens',
    type: 'integer',
    valueName: 'N',
    group: 'Workload',
    description: 'Output limit per request (sent as max_tokens and max_completion_tokens) [default: 128]',
  },
  {
    name: 'max-tokens-dist',
    type: 'string',
    valueName: 'DIST',
    group: 'Workload',
    description:
      "Each request's output limit drawn from a distribution (the grammar of --prompt-tokens-dist; empirical:FILE takes a trace's output lengths); replaces --max-tokens and a dataset's own",
  },
  {
    name: 'ignore-eos',
    type: 'boolean',
    group: 'Workload',
    description: 'Ask the server to ignore end-of-sequence so outputs reach --max-tokens (vLLM ignore_eos)',
  },
  {
    name: 'temperature',
    type: 'number',
    default: 0,
    group: 'Workload',
    description: 'Sampling temperature (recorded in the summary)',
  },
  {
    name: 'top-p',
    type: 'number',
    group: 'Workload',
    description: 'Sampling top_p (recorded in the summary)',
  },
  {
    name: 'seed',
    type: 'integer',
    group: 'Workload',
    description:
      'Seed of every random choice (prompts, lengths, arrivals, cancels); sent as the sampling seed [default: 1]',
  },
  {
    name: 'cancel-after-ms',
    type: 'number',
    valueName: 'MS',
    group: 'Workload',
    description: 'Simulated users give up this many ms after sending: the request is aborted',
  },
  {
    name: 'cancel-rate',
    type: 'number',
    valueName: 'P',
    group: 'Workload',
    description:
      'Fraction of requests (0..1) whose user gives up after --cancel-after-ms [default: 1 when --cancel-after-ms is set]',
  },
];

/** How much load and for how long: closed or open loop, stop rules, warmup, SLO. */
export const LOAD_OPTIONS: OptionSpec[] = [
  {
    name: 'concurrency',
    type: 'integer',
    short: 'c',
    valueName: 'N',
    group: 'Load',
    description: 'Closed loop: N workers, each sends its next request when the previous ends [default: 8]',
  },
  {
    name: 'rate',
    type: 'number',
    allowInfinity: true,
    short: 'r',
    valueName: 'R',
    group: 'Load',
    description:
      'Open loop: R requests per second on a schedule, whatever the latency; inf sends them all at once (vLLM: --request-rate)',
  },
  {
    name: 'burstiness',
    type: 'number',
    valueName: 'B',
    group: 'Load',
    description: 'Open loop: gamma shape of inter-arrival times; 1 = Poisson, <1 burstier [default: 1]',
  },
  {
    name: 'max-concurrency',
    type: 'integer',
    valueName: 'N',
    group: 'Load',
    description:
      'Open loop and sessions: cap on requests in flight (late sends are counted); alone, as in vLLM, it caps an unlimited rate (--rate inf)',
  },
  {
    name: 'sessions',
    type: 'integer',
    valueName: 'N',
    group: 'Load',
    description:
      "Multi-turn sessions, closed loop: N conversations at once, each turn carrying the whole history with the server's own replies; a user starts a new session when one ends",
  },
  {
    name: 'session-rate',
    type: 'number',
    valueName: 'R',
    group: 'Load',
    description:
      'Multi-turn sessions, open loop: R new sessions per second (gamma gaps, --burstiness), however many are running',
  },
  {
    name: 'user-rate',
    type: 'number',
    valueName: 'R',
    group: 'Load',
    description:
      "Sessions: each user's turns are due 1/R s apart from its first (AIPerf's user-centric rate) instead of a think time after each reply",
  },
  {
    name: 'requests',
    type: 'integer',
    short: 'n',
    valueName: 'N',
    group: 'Load',
    description:
      'Stop after N measured requests (session turns count one each) [default: max(80, 10 × concurrency), or max(80, 10 s × rate)]',
  },
  {
    name: 'duration',
    type: 'duration',
    short: 'd',
    group: 'Load',
    description: 'Stop sending after this long (e.g. 60s); requests still in flight are interrupted',
  },
  {
    name: 'stages',
    type: 'list',
    valueName: 'DUR:N,…',
    group: 'Load',
    description:
      'Load shape over time, k6-style: each target reached linearly over its stage from the one before (0 at first; 0s:N jumps), e.g. 30s:10,2m:50,30s:0; the run lasts their total; the summary gives the load each stage achieved',
  },
  {
    name: 'stages-of',
    type: 'string',
    choices: ['concurrency', 'rate'],
    group: 'Load',
    description:
      'What the --stages targets are: requests in flight (closed loop) or requests per second (open loop) [default: concurrency]',
  },
  {
    name: 'connections',
    type: 'string',
    valueName: 'MODE',
    group: 'Load',
    description:
      "How the client uses connections: pooled (kept alive, opened for the load: the concurrency, or an open loop's expected in-flight; idle ones closed after 4 s), pooled:N (at most N), per-request (a new one per request, as vLLM's client) [default: pooled]",
  },
  {
    name: 'warmup',
    type: 'integer',
    valueName: 'N',
    group: 'Load',
    description: 'Send N requests first and leave them out of the results [default: 0]',
  },
  {
    name: 'slo',
    type: 'string',
    valueName: 'SLO',
    group: 'Load',
    description: 'Service-level objectives in ms for goodput, e.g. ttft=500,tpot=100,e2el=5000',
  },
];

/** Replace an earlier run in the output folder; shared by every command that writes a result folder. */
export const FORCE_OPTION: OptionSpec = {
  name: 'force',
  type: 'boolean',
  group: 'Output',
  description:
    'Replace an earlier run found in --out (its summary.json, requests.jsonl, server-metrics.jsonl are removed first); without it such a folder is refused',
};

/** Where results go and how they are printed. */
export const OUTPUT_OPTIONS: OptionSpec[] = [
  { name: 'json', type: 'boolean', group: 'Output', description: 'Print the summary as JSON on stdout' },
  {
    name: 'out',
    type: 'string',
    short: 'o',
    valueName: 'DIR',
    group: 'Output',
    description:
      'Result directory for summary.json and requests.jsonl [default: goodput-results/<time>-<runId>/]',
  },
  FORCE_OPTION,
  {
    name: 'label',
    type: 'list',
    valueName: 'K=V',
    group: 'Output',
    description: 'Label the run (repeatable), e.g. --label gpu-mem=0.9 --label build=42',
  },
  {
    name: 'buckets',
    type: 'list',
    valueName: 'EDGES',
    group: 'Output',
    default: ['pow2'],
    description:
      'Prompt-length buckets for TTFT and E2EL: pow2, none, or ascending token edges (e.g. 512,2048,8192)',
  },
  {
    name: 'quiet',
    type: 'boolean',
    short: 'q',
    group: 'Output',
    description: 'No progress or table on stderr/stdout',
  },
  {
    name: 'progress',
    type: 'string',
    valueName: 'MODE',
    group: 'Output',
    choices: ['bar', 'lines', 'none'],
    description:
      'Progress on stderr: bar (redrawn, with rate and ETA), lines (one every 10 s) or none [default: bar on a terminal, else lines]',
  },
];

/** `goodput run`'s sharding: one share of a workload that several processes run together. */
export const SHARD_OPTIONS: OptionSpec[] = [
  {
    name: 'shard',
    type: 'string',
    valueName: 'i/N',
    group: 'Sharding',
    description:
      "Run shard i (0 to N-1) of the workload given by the other flags (the whole run's --requests, --concurrency, --rate): every Nth request (with sessions: every Nth session, whole), 1/N of the concurrency and of each stage; `goodput merge` of the N result folders is the whole run",
  },
  {
    name: 'start-at',
    type: 'string',
    valueName: 'TIME',
    group: 'Sharding',
    description:
      'Start the measured load at this wall-clock instant, the same for every shard: ISO time with zone, Unix ms, or +DURATION (+2s); the start skew is recorded',
  },
];

/** OpenTelemetry export of the requests (run, watch); the OTEL_EXPORTER_OTLP_* variables work without them. */
export const OTLP_OPTIONS: OptionSpec[] = [
  {
    name: 'otlp-endpoint',
    type: 'string',
    valueName: 'URL',
    group: 'OpenTelemetry',
    description:
      'Export the requests as GenAI semantic-convention metrics over OTLP/HTTP protobuf to this collector base URL (…/v1/metrics appended, e.g. http://127.0.0.1:4318) [default: $OTEL_EXPORTER_OTLP_ENDPOINT]; headers from $OTEL_EXPORTER_OTLP_HEADERS, never printed. A failed or slow collector never fails the run',
  },
  {
    name: 'otlp-spans',
    type: 'boolean',
    group: 'OpenTelemetry',
    description: 'Also one span per request (…/v1/traces), timed by its send and end',
  },
];

/** Load worker threads: commands that run one benchmark (not watch, whose rounds are small). */
export const WORKERS_OPTION: OptionSpec = {
  name: 'workers',
  type: 'string',
  valueName: 'N',
  group: 'Load',
  description:
    'Split the load across N worker threads, each with its own event loop and connections (closed loop: the concurrency; open loop: the arrivals; each stage its share; a session stays whole on one worker); auto = cores − 1 [default: 1]',
};

/** Every flag a benchmark-running command accepts. */
export const BENCHMARK_OPTIONS: OptionSpec[] = [
  ...TARGET_OPTIONS,
  ...WORKLOAD_OPTIONS,
  ...TRACE_OPTIONS,
  ...LOAD_OPTIONS,
  WORKERS_OPTION,
  ...OUTPUT_OPTIONS,
];
