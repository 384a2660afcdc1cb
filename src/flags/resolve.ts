/**
 * resolveBenchmarkConfig: parsed flags + environment + config file → BenchmarkConfig.
 * Precedence: flags > environment > config file > defaults. The key comes from
 * --api-key-file, else GOODPUT_API_KEY, else OPENAI_API_KEY, else the config file.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import {
  MAX_FLAG_CONCURRENCY,
  normalizeMetricsUrl,
  parseExtraBody,
  parseHeaders,
  parseStartAt,
  refuseUnusableKey,
  resolveTarget,
  type TargetConfig,
} from '../config/index.js';
import { GoodputError } from '../errors.js';
import { type BenchmarkConfig, DEFAULT_LOAD, DEFAULT_SEED, DEFAULT_WORKLOAD } from '../runner/config.js';
import { resolveWorkerCount } from '../runner/index.js';
import { parseShard } from '../runner/sharding/shard.js';
import {
  loadProfileFile,
  parseReasoningField,
  parseReasoningLength,
  parseSpeculativeConfig,
  resolveProfile,
} from '../sim/index.js';
import type { ConnectionSetting, EfficiencyInputs, LoadSpec } from '../types.js';
import { readTextFileBounded } from '../util/index.js';
import { applyMetricsSources } from './metrics-sources.js';
import { applySessionFlags } from './sessions.js';
import { applyShapeFlags } from './shape.js';
import type { ParsedArgs } from './spec.js';
import { applyStageFlags } from './stages.js';
import { resolveTraceFlags } from './trace.js';

/** Option keys whose presence means the user chose the load (else the default load of about ten seconds). */
export const LOAD_FLAG_KEYS = ['concurrency', 'rate', 'requests', 'duration', 'maxConcurrency'] as const;

type Env = Record<string, string | undefined>;

/** --gpu-power-watts, --gpu-count, --cost-per-hour, --cost-per → the run's EfficiencyInputs (none given: undefined). */
function efficiencyInputs(
  watts: number | undefined,
  gpus: number | undefined,
  price: number | undefined,
  per: string | undefined,
): EfficiencyInputs | undefined {
  if (watts !== undefined && !(watts > 0 && Number.isFinite(watts)))
    throw usage(
      `--gpu-power-watts must be a positive number of watts, got ${watts}`,
      'e.g. --gpu-power-watts 700 (an H100 SXM at full load)',
    );
  if (gpus !== undefined && !(Number.isInteger(gpus) && gpus >= 1))
    throw usage(`--gpu-count must be a whole number of GPUs, at least 1, got ${gpus}`, 'e.g. --gpu-count 8');
  if (price !== undefined && !(price >= 0 && Number.isFinite(price)))
    throw usage(
      `--cost-per-hour must be a price of 0 or more, got ${price}`,
      'e.g. --cost-per-hour 2.5 --cost-per gpu',
    );
  if (per !== undefined && price === undefined)
    throw usage(
      '--cost-per says what --cost-per-hour prices, and --cost-per-hour is not given',
      'add --cost-per-hour PRICE, or drop --cost-per',
    );
  const out: EfficiencyInputs = {};
  if (watts !== undefined) out.gpuPowerWatts = watts;
  if (gpus !== undefined) out.gpuCount = gpus;
  if (price !== undefined) out.costPerHour = price;
  if (per === 'gpu' || per === 'deployment') out.costPer = per;
  return Object.keys(out).length > 0 ? out : undefined;
}

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

function parseLabels(items: string[] | undefined): Record<string, string> | undefined {
  if (!items || items.length === 0) return undefined;
  const labels: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw usage(`--label expects KEY=VALUE, got '${item}'`, 'write e.g. --label gpu-mem=0.9');
    labels[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return labels;
}

/** --buckets: pow2 | none | ascending token edges. */
function parseBuckets(items: string[] | undefined): BenchmarkConfig['promptBuckets'] {
  if (!items || items.length === 0 || (items.length === 1 && items[0] === 'pow2')) return undefined;
  if (items.length === 1 && items[0] === 'none') return false;
  const edges = items.map((s) => Number(s));
  if (edges.some((e, i) => !Number.isInteger(e) || e < 0 || (i > 0 && e <= edges[i - 1]!))) {
    throw usage(
      `--buckets expects pow2, none or ascending whole token counts, got '${items.join(',')}'`,
      'e.g. --buckets 512,2048,8192',
    );
  }
  return edges;
}

/** Largest --extra-body @FILE read. */
const EXTRA_BODY_MAX_BYTES = 256 * 1024;

/** --extra-body JSON, or @FILE holding it. */
async function readExtraBody(text: string, cwd: string): Promise<Record<string, unknown>> {
  if (!text.startsWith('@')) return parseExtraBody(text);
  const path = resolvePath(cwd, text.slice(1));
  // Bounded: a body of extra fields is a few hundred bytes; /dev/zero or a FIFO is refused.
  const read = await readTextFileBounded(path, { maxBytes: EXTRA_BODY_MAX_BYTES });
  if (!read.ok) {
    throw usage(
      `cannot read --extra-body ${text} (${read.problem})`,
      `point --extra-body @FILE at a readable JSON file of at most ${EXTRA_BODY_MAX_BYTES / 1024} KiB, or give the JSON itself`,
    );
  }
  return parseExtraBody(read.text, `--extra-body ${text}`);
}

/** `--connections per-request|pooled[:N]`. */
export function parseConnections(text: string): ConnectionSetting {
  if (text === 'per-request' || text === 'pooled') return { mode: text };
  const m = /^pooled:(\d+)$/.exec(text);
  const n = m ? Number(m[1]) : Number.NaN;
  if (!(n >= 1 && n <= MAX_FLAG_CONCURRENCY)) {
    throw usage(
      `--connections expects per-request, pooled or pooled:N (N from 1 to ${MAX_FLAG_CONCURRENCY}), got '${text}'`,
      "e.g. --connections per-request (a new connection per request, as vLLM's client) or --connections pooled:16",
    );
  }
  return { mode: 'pooled', limit: n };
}

function resolveLoad(o: Record<string, unknown>, target: TargetConfig): LoadSpec {
  const num = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : undefined);
  const rate = num('rate');
  const concurrencyFlag = num('concurrency');
  if (rate !== undefined && concurrencyFlag !== undefined) {
    throw usage(
      '--concurrency (closed loop) and --rate (open loop) cannot be used together',
      'choose one; cap an open loop with --max-concurrency',
    );
  }
  if (rate !== undefined && !(rate > 0)) throw usage(`--rate must be > 0, got ${rate}`, 'e.g. --rate 5');
  if (concurrencyFlag === 0) throw usage('--concurrency must be at least 1', 'e.g. --concurrency 8');
  const burstiness = num('burstiness');
  if (burstiness !== undefined && !(burstiness > 0)) {
    throw usage(`--burstiness must be > 0, got ${burstiness}`, 'use 1 for Poisson arrivals, <1 for bursts');
  }
  const maxConcurrency = num('maxConcurrency');
  if (maxConcurrency !== undefined && concurrencyFlag !== undefined) {
    throw usage(
      '--max-concurrency (open loop) and --concurrency (closed loop) cannot be used together',
      'choose one: --concurrency N workers, or --max-concurrency N to cap an open loop',
    );
  }
  if (maxConcurrency === 0) throw usage('--max-concurrency must be at least 1', 'e.g. --max-concurrency 64');
  // As in vLLM: --max-concurrency alone caps an unlimited rate (every request due at once).
  const openRate = rate ?? (maxConcurrency !== undefined ? Number.POSITIVE_INFINITY : undefined);
  const durationMs = num('duration');
  if (durationMs === 0) throw usage('--duration must be longer than 0', 'e.g. --duration 60s');
  let requests = num('requests');
  if (requests === 0) throw usage('--requests must be at least 1', 'e.g. --requests 100');
  const open = openRate !== undefined;
  const unlimited = openRate === Number.POSITIVE_INFINITY;
  if (unlimited && maxConcurrency === undefined && requests === undefined && durationMs !== undefined) {
    throw usage(
      '--rate inf with --duration alone would send without end',
      'say how many to send at once with --requests N, or cap the requests in flight with --max-concurrency N',
    );
  }
  const concurrency = open ? undefined : (concurrencyFlag ?? DEFAULT_LOAD.concurrency);
  if (requests === undefined && durationMs === undefined) {
    // About ten seconds of work at the chosen load (an unlimited rate: ten per slot, or the default count).
    requests = !open
      ? Math.max(DEFAULT_LOAD.requests, concurrency! * 10)
      : unlimited
        ? Math.max(DEFAULT_LOAD.requests, (maxConcurrency ?? 0) * 10)
        : Math.max(DEFAULT_LOAD.requests, Math.ceil(openRate * 10));
  }
  const load: LoadSpec = {
    mode: open ? 'open' : 'closed',
    warmup: num('warmup') ?? DEFAULT_LOAD.warmup,
    timeoutMs: num('timeout') ?? target.timeoutMs ?? DEFAULT_LOAD.timeoutMs,
    maxRetries: num('maxRetries') ?? target.maxRetries ?? DEFAULT_LOAD.maxRetries,
  };
  if (concurrency !== undefined) load.concurrency = concurrency;
  if (open) {
    load.rate = openRate;
    load.burstiness = burstiness ?? 1;
  }
  if (maxConcurrency !== undefined) load.maxConcurrency = maxConcurrency;
  if (requests !== undefined) load.requests = requests;
  if (durationMs !== undefined) load.durationMs = durationMs;
  const ttft = num('ttftTimeout');
  if (ttft !== undefined) load.ttftTimeoutMs = ttft;
  if (typeof o.connections === 'string') load.connections = parseConnections(o.connections);
  if (o.workers !== undefined) {
    const workers = resolveWorkerCount(o.workers as string, availableParallelism());
    if (workers > 1) load.workers = workers;
  }
  return load;
}

/**
 * Turns parsed flags (from BENCHMARK_OPTIONS), the environment and the optional config
 * file into a BenchmarkConfig. Throws E_USAGE / E_CONFIG / E_KEY naming the flag or the
 * config field at fault.
 */
export async function resolveBenchmarkConfig(
  args: ParsedArgs,
  env: Env,
  cwd: string,
): Promise<BenchmarkConfig> {
  const o = args.options;
  const str = (k: string) => (typeof o[k] === 'string' && o[k] !== '' ? (o[k] as string) : undefined);
  const num = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : undefined);
  // URL, model, key, SLO, timeout and retries: the config module's precedence (flag > env > file).
  const target = await resolveTarget({
    flags: {
      url: str('url'),
      model: str('model'),
      apiKeyFile: str('apiKeyFile'),
      config: str('config'),
      slo: str('slo'),
    },
    env,
    cwd,
  });
  refuseUnusableKey(target);

  const trace = resolveTraceFlags(args, cwd);
  const dataset = str('dataset');
  if (dataset !== undefined && args.given.has('promptTokens')) {
    throw usage(
      '--dataset and --prompt-tokens cannot be used together',
      'prompts come from the dataset; drop --prompt-tokens',
    );
  }
  const cancelAfterMs = num('cancelAfterMs');
  let cancelRate = num('cancelRate');
  if (cancelRate !== undefined && (cancelRate < 0 || cancelRate > 1)) {
    throw usage(`--cancel-rate must be between 0 and 1, got ${cancelRate}`, 'e.g. --cancel-rate 0.1');
  }
  if (cancelRate !== undefined && cancelAfterMs === undefined) {
    throw usage('--cancel-rate needs --cancel-after-ms', 'e.g. --cancel-after-ms 2000 --cancel-rate 0.1');
  }
  if (cancelAfterMs !== undefined && cancelRate === undefined) cancelRate = 1;
  const range = num('promptTokensRange');
  if (range !== undefined && (range < 0 || range >= 1)) {
    throw usage(`--prompt-tokens-range must be in [0, 1), got ${range}`, 'e.g. --prompt-tokens-range 0.2');
  }
  const promptTokens = num('promptTokens') ?? DEFAULT_WORKLOAD.promptTokens;
  if (promptTokens === 0 && dataset === undefined) {
    throw usage('--prompt-tokens must be at least 1', 'e.g. --prompt-tokens 2048');
  }
  const maxTokens = num('maxTokens') ?? DEFAULT_WORKLOAD.maxTokens;
  if (maxTokens === 0) throw usage('--max-tokens must be at least 1', 'e.g. --max-tokens 128');

  const seed = num('seed') ?? DEFAULT_SEED;
  const outDir = str('out');

  const config: BenchmarkConfig = {
    api: (str('api') as BenchmarkConfig['api']) ?? 'chat',
    sampling: {
      temperature: num('temperature') ?? 0,
      maxTokens,
      ignoreEos: o.ignoreEos === true,
      seed,
    },
    workload: { promptTokens },
    load: applyStageFlags(resolveLoad(o, target), args),
    slo: target.slo ?? {},
    seed,
    serverMetrics: { enabled: o.serverMetrics !== false },
  };
  if (target.baseUrl !== undefined) config.url = target.baseUrl;
  if (target.model !== undefined) config.model = target.model;
  if (target.apiKey !== undefined) config.apiKey = target.apiKey;
  const extra = parseHeaders(o.header as string[] | undefined, env, target.apiKey !== undefined);
  if (Object.keys(extra.headers).length > 0) config.headers = extra.headers;
  if (extra.secrets.length > 0) config.secrets = extra.secrets;
  const extraBody = str('extraBody');
  if (extraBody !== undefined) config.extraBody = await readExtraBody(extraBody, cwd);
  if (target.warnings.length > 0 || target.keyProblems.length > 0) {
    config.warnings = [...target.warnings, ...target.keyProblems.map((p) => `API key: ${p}`)];
  }
  const topP = num('topP');
  if (topP !== undefined) config.sampling.topP = topP;
  if (range !== undefined) config.workload.promptTokensRange = range;
  const sys = num('systemPromptTokens');
  if (sys !== undefined && sys > 0) config.workload.systemPromptTokens = sys;
  if (dataset !== undefined) {
    config.workload.datasetPath = isAbsolute(dataset) ? dataset : resolvePath(cwd, dataset);
    config.workload.outputFromDataset = !args.given.has('maxTokens');
  }
  if (trace !== undefined) {
    config.workload.trace = trace;
    config.workload.outputFromDataset = !args.given.has('maxTokens');
    // The trace's schedule is the load: open loop, every request of the trace unless cut.
    const load = config.load;
    load.mode = 'open';
    delete load.concurrency;
    delete load.rate;
    delete load.burstiness;
    if (!args.given.has('requests')) delete load.requests;
  }
  const tokenizer = str('tokenizer');
  if (tokenizer !== undefined) {
    // A path is read from the working directory; an encoding name (o200k_base…) stays a name.
    const path = resolvePath(cwd, tokenizer);
    config.workload.tokenizer = existsSync(path) ? path : tokenizer;
  }
  const chatTemplate = str('chatTemplate');
  if (chatTemplate !== undefined) config.workload.chatTemplatePath = resolvePath(cwd, chatTemplate);
  if (cancelAfterMs !== undefined) {
    config.workload.cancelAfterMs = cancelAfterMs;
    config.workload.cancelRate = cancelRate!;
  }
  applySessionFlags(o, args.given, config);
  await applyShapeFlags(o, args.given, config, cwd);
  if (outDir !== undefined) config.outDir = resolvePath(cwd, outDir);
  if (o.force === true) config.force = true;
  const labels = parseLabels(o.label as string[] | undefined);
  if (labels) config.labels = labels;
  applyMetricsSources(o, env, config);
  const gpuMetricsUrl = str('gpuMetricsUrl');
  if (gpuMetricsUrl !== undefined) {
    const gpu = normalizeMetricsUrl(gpuMetricsUrl, '--gpu-metrics-url', 'http://gpu-node:9400/metrics');
    config.gpuMetricsUrl = gpu.url;
    if (gpu.notes.length > 0) config.warnings = [...(config.warnings ?? []), ...gpu.notes];
  }
  const efficiency = efficiencyInputs(
    num('gpuPowerWatts'),
    num('gpuCount'),
    num('costPerHour'),
    str('costPer'),
  );
  if (efficiency) config.efficiency = efficiency;
  const simProfile = str('simProfile');
  if (simProfile !== undefined) {
    if (config.url !== undefined) {
      throw usage(
        '--sim-profile applies to the embedded engine only',
        'drop --url to run the embedded engine, or drop --sim-profile',
      );
    }
    try {
      resolveProfile(simProfile);
    } catch (e) {
      const err = e as GoodputError;
      throw usage(`--sim-profile: ${err.message}`, err.hint.replace('--profile', '--sim-profile'));
    }
    config.sim = { profile: simProfile };
  }
  const simProfileFile = str('simProfileFile');
  if (simProfileFile !== undefined) {
    if (config.url !== undefined)
      throw usage(
        '--sim-profile-file applies to the embedded engine only',
        'drop --url to run the embedded engine, or drop --sim-profile-file',
      );
    const profile = await loadProfileFile(resolvePath(cwd, simProfileFile)).catch((e: GoodputError) => {
      throw usage(`--sim-profile-file: ${e.message}`, e.hint.replace('--profile-file', '--sim-profile-file'));
    });
    config.sim = { ...config.sim, resolvedProfile: profile };
  }
  if (o.time === 'virtual') {
    if (config.url !== undefined) {
      throw usage(
        '--time virtual applies to the embedded engine only',
        'drop --url to simulate, or drop --time virtual to measure the server',
      );
    }
    if (config.serverMetrics.prometheus !== undefined || config.serverMetrics.replicas !== undefined) {
      throw usage(
        `${config.serverMetrics.prometheus ? '--metrics-prometheus' : '--metrics-url for several replicas'} with --time virtual: the simulated engine's own counters are the server block`,
        'drop it, or run in live time against the servers it names',
      );
    }
    if (config.gpuMetricsUrl !== undefined) {
      throw usage(
        '--gpu-metrics-url with --time virtual: a simulated clock has no GPU to read',
        'drop --gpu-metrics-url, or run in live time against the server on that GPU',
      );
    }
    config.sim = { ...config.sim, timeMode: 'virtual' };
  }
  const speculativeConfig = str('speculativeConfig');
  if (speculativeConfig !== undefined) {
    if (config.url !== undefined) {
      throw usage(
        '--speculative-config applies to the embedded engine only',
        "drop --url to simulate it; a server that runs speculative decoding reports it in its own metrics (the run's server block)",
      );
    }
    parseSpeculativeConfig(speculativeConfig); // E_SIM (exit 2) naming the fix
    config.sim = { ...config.sim, speculativeConfig };
  }
  const shard = str('shard');
  if (shard !== undefined) config.shard = parseShard(shard);
  const startAt = str('startAt');
  if (startAt !== undefined) config.startAtMs = parseStartAt(startAt, Date.now());
  const reasoningTokens = str('reasoningTokens');
  const reasoningField = str('reasoningField');
  if (reasoningTokens !== undefined || reasoningField !== undefined) {
    if (config.url !== undefined) {
      throw usage(
        '--reasoning-tokens and --reasoning-field apply to the embedded engine only',
        'drop --url to run the embedded engine in reasoning mode, or drop them to measure the server',
      );
    }
    if (reasoningTokens === undefined) {
      throw usage(
        '--reasoning-field needs --reasoning-tokens',
        'e.g. --reasoning-tokens 200 --reasoning-field reasoning',
      );
    }
    config.sim = {
      ...config.sim,
      reasoning: {
        length: parseReasoningLength(reasoningTokens),
        field: parseReasoningField(reasoningField ?? 'reasoning_content'),
      },
    };
  }
  const buckets = parseBuckets(o.buckets as string[] | undefined);
  if (buckets !== undefined) config.promptBuckets = buckets;
  const scrapeInterval = num('scrapeInterval');
  if (scrapeInterval !== undefined) {
    if (!(scrapeInterval >= 10))
      throw usage('--scrape-interval must be at least 10ms', 'e.g. --scrape-interval 1s');
    config.serverMetrics.intervalMs = scrapeInterval;
  }
  return config;
}
