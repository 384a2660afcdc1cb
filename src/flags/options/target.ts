/**
 * Where to send requests and how (URL, model, API, key file, timeouts, retries, server
 * metrics), and the embedded engine's own flags that `goodput sim` shares.
 *
 * @module
 */

import { DAY_MS, HOUR_MS } from './bounds.js';
import { defineOptions, type StringOption } from './table.js';

/** The simulated engine's reasoning mode (`goodput sim`, and the embedded engine of a run). */
export const REASONING_OPTIONS = defineOptions({
  reasoningTokens: {
    type: 'string',
    valueName: 'N|exp:N|A-B',
    group: 'Target',
    description:
      'Reasoning mode of the simulated engine: each chat/Responses request streams this many reasoning tokens before its answer (N exactly, exp:N exponential with mean N, A-B uniform); they count against max_tokens',
  },
  reasoningField: {
    type: 'string',
    choices: ['reasoning_content', 'reasoning'],
    valueName: 'FIELD',
    group: 'Target',
    description: 'Delta field the simulated reasoning is streamed in [default: reasoning_content]',
  },
  toolCallFraction: {
    type: 'number',
    min: 0,
    max: 1,
    valueName: 'F',
    group: 'Target',
    description:
      'Simulated engine: share of requests offering tools with tool_choice auto answered with a tool call (seeded; required always calls) [default: 0.5]',
  },
});

/** vLLM's --speculative-config for the simulated engine (`goodput sim`, and the embedded engine of a run). */
export const SPECULATIVE_CONFIG_OPTION: StringOption = {
  type: 'string',
  valueName: 'JSON',
  group: 'Target',
  description: `Speculative decoding of the simulated engine, vLLM's JSON: method (ngram, draft_model, eagle, eagle3, mtp, medusa), num_speculative_tokens (1-16), and the simulation-only acceptance_probability (per draft position; default by method), e.g. '{"method":"ngram","num_speculative_tokens":3}'`,
};

/** vLLM's --scheduling-policy for the simulated engine (`goodput sim`, and the embedded engine of a run). */
export const SCHEDULING_POLICY_OPTION: StringOption<'fcfs' | 'priority'> = {
  type: 'string',
  choices: ['fcfs', 'priority'],
  group: 'Target',
  description:
    "Scheduling policy of the simulated engine, vLLM's: fcfs (first come, first served), or priority: waiting requests by their `priority` field (lower first, then arrival), the lowest-priority running one preempted first; under fcfs a request with a non-zero priority is refused (400), as vLLM does [default: fcfs]",
};

/** Where to send requests and how: URL, model, API, key file, timeouts, retries, server metrics. */
export const TARGET_OPTIONS = defineOptions({
  url: {
    type: 'string',
    valueName: 'URL',
    group: 'Target',
    description:
      'Base URL of the OpenAI-compatible endpoint (e.g. http://host:8000); /v1/... is appended. Else GOODPUT_BASE_URL, else OPENAI_BASE_URL, else the config file; without any, the embedded simulated engine is started',
  },
  model: {
    type: 'string',
    short: 'm',
    valueName: 'MODEL',
    group: 'Target',
    description: 'Model id; without it, the first id from GET /v1/models',
  },
  api: {
    type: 'string',
    choices: ['chat', 'completions', 'responses', 'embeddings'],
    default: 'chat',
    group: 'Target',
    description:
      'Endpoint: /v1/chat/completions, /v1/completions, /v1/responses (Responses API, streamed) or /v1/embeddings (not streamed: latency and inputs/s)',
  },
  config: {
    type: 'string',
    valueName: 'FILE',
    group: 'Target',
    description:
      'Config file: settings.json shape {base_url, api_key, model_id, slo} or gateway shape {provider, baseUrl, apiKey, model, timeoutMs, maxRetries}. Flags override env, env overrides the file',
  },
  apiKeyFile: {
    type: 'string',
    valueName: 'FILE',
    group: 'Target',
    description:
      'Read the API key from this file (else GOODPUT_API_KEY, else OPENAI_API_KEY, else the config file). The key is never printed or written',
  },
  header: {
    type: 'string',
    repeatable: true,
    valueName: "'K: V'",
    group: 'Target',
    description:
      "Extra request header (repeatable), e.g. --header 'X-Route: canary'. 'K: env:NAME' takes the value from the environment variable NAME, so a secret stays out of shell history; such values, and those of Authorization, *key*, *token*, *secret* and cookie headers, are never printed or written",
  },
  sessionHeader: {
    type: 'string',
    valueName: 'NAME',
    group: 'Target',
    description:
      "Header that carries each conversation's id (every turn of a multi-turn session, every request of a trace's conversation), for routers with session affinity: seeded from --seed, one per conversation, no secret; none sends none [default: X-Session-ID]",
  },
  extraBody: {
    type: 'string',
    valueName: 'JSON',
    group: 'Target',
    description:
      'JSON object merged into every request body, last (LoRA adapter as model, chat_template_kwargs, priority, vendor fields); @FILE reads it from a file',
  },
  timeout: {
    type: 'duration',
    min: 1,
    max: DAY_MS,
    why: 'a request needs some time, and a day is plenty',
    group: 'Target',
    description: 'Total time limit per request [default: 60s]',
  },
  ttftTimeout: {
    type: 'duration',
    min: 0,
    max: DAY_MS,
    why: '0 turns it off',
    group: 'Target',
    description: 'Time limit for the first token of a request',
  },
  maxRetries: {
    type: 'integer',
    max: 100,
    group: 'Target',
    description:
      'Retries of a request that failed before any response byte (429/503 honour Retry-After) [default: 1]',
  },
  metricsUrl: {
    type: 'string',
    repeatable: true,
    valueName: 'URL',
    group: 'Target',
    description:
      "Server's Prometheus /metrics URL; repeat it for each replica or data-parallel rank behind a router (NAME=URL names one): per-replica figures, their totals, and a finding when the router is uneven [default: <url>/metrics when it answers]",
  },
  metricsPrometheus: {
    type: 'string',
    valueName: 'URL',
    group: 'Target',
    description:
      "A Prometheus server that scrapes the engine(s), e.g. http://prometheus:9090: the run window's series are read through its query_range API (with --metrics-selector), one replica per instance, in place of scraping /metrics; GOODPUT_PROMETHEUS_AUTH is sent as its Authorization header",
  },
  metricsSelector: {
    type: 'string',
    valueName: 'SELECTOR',
    group: 'Target',
    description:
      'Label matchers of the engine\'s series in --metrics-prometheus, e.g. \'{job="vllm"}\' or \'{namespace="llm",pod=~"vllm-.*"}\'',
  },
  serverMetrics: {
    type: 'boolean',
    default: true,
    group: 'Target',
    description: "Scrape the server's Prometheus metrics during the run (--no-server-metrics to skip)",
  },
  scrapeInterval: {
    type: 'duration',
    min: 10,
    max: HOUR_MS,
    group: 'Target',
    description: 'Time between two scrapes of the server metrics [default: 1s]',
  },
  gpuMetricsUrl: {
    type: 'string',
    valueName: 'URL',
    group: 'Target',
    description:
      "NVIDIA DCGM exporter's /metrics (e.g. http://gpu-node:9400/metrics): GPU utilisation, memory and power into the server block",
  },
  gpuPowerWatts: {
    type: 'number',
    above: 0,
    says: 'a positive number of watts',
    why: 'e.g. 700, an H100 SXM at full load',
    valueName: 'W',
    group: 'Target',
    description:
      'Assumed mean power of one GPU, for energy per token when no DCGM exporter measures it (stated as an assumption)',
  },
  gpuCount: {
    type: 'integer',
    min: 1,
    valueName: 'N',
    group: 'Target',
    description:
      "GPUs serving the endpoint, for energy and cost [default: the DCGM exporter's count, else 1]",
  },
  costPerHour: {
    type: 'number',
    min: 0,
    valueName: 'PRICE',
    group: 'Target',
    description:
      'Price of an hour (of one GPU, or of the deployment: --cost-per), for cost per million tokens',
  },
  costPer: {
    type: 'string',
    choices: ['gpu', 'deployment'],
    group: 'Target',
    description:
      'What --cost-per-hour prices: one GPU (times the GPUs) or the whole deployment [default: gpu]',
  },
  simProfile: {
    type: 'string',
    valueName: 'GPU:MODEL',
    group: 'Target',
    description:
      'Profile of the embedded engine (without --url), e.g. a100:llama-3.1-8b or h100x4:llama-3.1-70b [default: h100:llama-3.1-8b]',
  },
  simProfileFile: {
    type: 'string',
    valueName: 'FILE',
    group: 'Target',
    description:
      'A JSON profile of the embedded engine, e.g. one fitted to your server by goodput sim calibrate (overrides --sim-profile)',
  },
  time: {
    type: 'string',
    choices: ['live', 'virtual'],
    default: 'live',
    group: 'Target',
    description:
      'Embedded engine only: live (real sockets, real time) or virtual (the engine with a simulated clock: what-if runs that finish in seconds)',
  },
  speculativeConfig: SPECULATIVE_CONFIG_OPTION,
  schedulingPolicy: SCHEDULING_POLICY_OPTION,
  maxLoras: {
    type: 'integer',
    min: 1,
    max: 256,
    valueName: 'K',
    group: 'Target',
    description:
      "Embedded engine: distinct LoRA adapters in a batch (the classes' model= names are served as adapters); a request whose adapter finds no slot waits, as in vLLM [default: 1]",
  },
  ...REASONING_OPTIONS,
});
