/**
 * resolveBenchmarkConfig: parsed flags + environment + config file → BenchmarkConfig.
 * Precedence: flags > environment > config file > defaults. The key comes from
 * --api-key-file, else GOODPUT_API_KEY, else OPENAI_API_KEY, else the config file.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import {
  DEFAULT_SESSION_HEADER,
  normalizeMetricsUrl,
  parseExtraBody,
  parseHeaders,
  parseStartAt,
  refuseUnusableKey,
  resolveTarget,
  sessionHeaderName,
  type TargetConfig,
} from '../config/index.js';
import { GoodputError } from '../errors.js';
import { type BenchmarkConfig, DEFAULT_LOAD, DEFAULT_SEED, DEFAULT_WORKLOAD } from '../runner/config.js';
import { resolveWorkerCount } from '../runner/index.js';
import { parseShard } from '../runner/sharding/shard.js';
import type { ConnectionSetting, EfficiencyInputs, LoadSpec } from '../types.js';
import { readTextFileBounded } from '../util/index.js';
import { applyAgentFlags } from './agents.js';
import { applyClassFlags } from './classes.js';
import { applyEmbeddedEngineFlags, applyReasoningFlags } from './embedded.js';
import { applyMetricsSources } from './metrics-sources.js';
import { type BenchmarkFlags, MAX_FLAG_CONCURRENCY } from './options/index.js';
import { applySessionFlags } from './sessions.js';
import { applyShapeFlags } from './shape.js';
import type { ParsedArgs } from './spec.js';
import { applyStageFlags } from './stages.js';
import { resolveTraceFlags } from './trace.js';

type Env = Record<string, string | undefined>;

/** --gpu-power-watts, --gpu-count, --cost-per-hour, --cost-per → the run's EfficiencyInputs (none given: undefined). */
function efficiencyInputs(
  watts: number | undefined,
  gpus: number | undefined,
  price: number | undefined,
  per: string | undefined,
): EfficiencyInputs | undefined {
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

/** `--source-addresses IP,…`: IP addresses of one family. */
export function parseSourceAddresses(items: readonly string[]): string[] {
  const addresses = items.map((a) => a.trim()).filter((a) => a !== '');
  const bad = addresses.find((a) => isIP(a) === 0);
  if (bad !== undefined) {
    throw usage(
      `--source-addresses expects IP addresses of this machine, got '${bad}'`,
      'e.g. --source-addresses 10.0.0.5,10.0.0.6 (ip -brief address lists them); a 127.x.x.x target spreads over loopback addresses by itself',
    );
  }
  if (new Set(addresses.map((a) => isIP(a))).size > 1) {
    throw usage(
      `--source-addresses mixes IPv4 and IPv6 addresses (${addresses.join(',')})`,
      'give addresses of the family of the --url host only',
    );
  }
  return addresses;
}

/** Text of a flag, an empty one as absent. */
function text(value: string | undefined): string | undefined {
  return value === '' ? undefined : value;
}

function resolveLoad(o: BenchmarkFlags, target: TargetConfig): LoadSpec {
  const { rate, concurrency: concurrencyFlag, burstiness, maxConcurrency, duration: durationMs } = o;
  if (rate !== undefined && concurrencyFlag !== undefined) {
    throw usage(
      '--concurrency (closed loop) and --rate (open loop) cannot be used together',
      'choose one; cap an open loop with --max-concurrency',
    );
  }
  if (maxConcurrency !== undefined && concurrencyFlag !== undefined) {
    throw usage(
      '--max-concurrency (open loop) and --concurrency (closed loop) cannot be used together',
      'choose one: --concurrency N workers, or --max-concurrency N to cap an open loop',
    );
  }
  // As in vLLM: --max-concurrency alone caps an unlimited rate (every request due at once).
  const openRate = rate ?? (maxConcurrency !== undefined ? Number.POSITIVE_INFINITY : undefined);
  let requests = o.requests;
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
    warmup: o.warmup ?? DEFAULT_LOAD.warmup,
    timeoutMs: o.timeout ?? target.timeoutMs ?? DEFAULT_LOAD.timeoutMs,
    maxRetries: o.maxRetries ?? target.maxRetries ?? DEFAULT_LOAD.maxRetries,
  };
  if (concurrency !== undefined) load.concurrency = concurrency;
  if (open) {
    load.rate = openRate;
    load.burstiness = burstiness ?? 1;
  }
  if (maxConcurrency !== undefined) load.maxConcurrency = maxConcurrency;
  if (requests !== undefined) load.requests = requests;
  if (durationMs !== undefined) load.durationMs = durationMs;
  if (o.ttftTimeout !== undefined) load.ttftTimeoutMs = o.ttftTimeout;
  if (o.connections !== undefined) load.connections = parseConnections(o.connections);
  if (o.sourceAddresses !== undefined && o.sourceAddresses.length > 0) {
    load.connections = {
      ...(load.connections ?? { mode: 'pooled' }),
      sourceAddresses: parseSourceAddresses(o.sourceAddresses),
    };
  }
  if (o.workers !== undefined) {
    const workers = resolveWorkerCount(o.workers, availableParallelism());
    if (workers > 1) load.workers = workers;
  }
  return load;
}

/** The workload flags checked before the config is built: what the prompts come from, and the cancels. */
interface WorkloadChoice {
  trace: BenchmarkConfig['workload']['trace'];
  dataset: string | undefined;
  promptTokens: number;
  cancelAfterMs: number | undefined;
  cancelRate: number | undefined;
}

function workloadChoice(args: ParsedArgs<BenchmarkFlags>, cwd: string): WorkloadChoice {
  const o = args.options;
  const trace = resolveTraceFlags(args, cwd);
  const dataset = text(o.dataset);
  if (dataset !== undefined && args.given.has('promptTokens')) {
    throw usage(
      '--dataset and --prompt-tokens cannot be used together',
      'prompts come from the dataset; drop --prompt-tokens',
    );
  }
  const cancelAfterMs = o.cancelAfterMs;
  let cancelRate = o.cancelRate;
  if (cancelRate !== undefined && cancelAfterMs === undefined) {
    throw usage('--cancel-rate needs --cancel-after-ms', 'e.g. --cancel-after-ms 2000 --cancel-rate 0.1');
  }
  if (cancelAfterMs !== undefined && cancelRate === undefined) cancelRate = 1;
  const promptTokens = o.promptTokens ?? DEFAULT_WORKLOAD.promptTokens;
  if (promptTokens === 0 && dataset === undefined) {
    throw usage('--prompt-tokens must be at least 1', 'e.g. --prompt-tokens 2048');
  }
  return { trace, dataset, promptTokens, cancelAfterMs, cancelRate };
}

/** The target's URL, model and key, the extra headers and body fields, and the target's warnings. */
async function applyTargetFlags(
  o: BenchmarkFlags,
  env: Env,
  cwd: string,
  target: Awaited<ReturnType<typeof resolveTarget>>,
  config: BenchmarkConfig,
): Promise<void> {
  if (target.baseUrl !== undefined) config.url = target.baseUrl;
  if (target.model !== undefined) config.model = target.model;
  if (target.apiKey !== undefined) config.apiKey = target.apiKey;
  const extra = parseHeaders(o.header, env, target.apiKey !== undefined);
  if (Object.keys(extra.headers).length > 0) config.headers = extra.headers;
  if (extra.secrets.length > 0) config.secrets = extra.secrets;
  const sessionHeader = sessionHeaderName(o.sessionHeader, extra.headers);
  if (sessionHeader !== DEFAULT_SESSION_HEADER) config.sessionHeader = sessionHeader;
  const extraBody = text(o.extraBody);
  if (extraBody !== undefined) config.extraBody = await readExtraBody(extraBody, cwd);
  if (target.warnings.length > 0 || target.keyProblems.length > 0) {
    config.warnings = [...target.warnings, ...target.keyProblems.map((p) => `API key: ${p}`)];
  }
}

/** Prompt lengths, a dataset or a trace (whose schedule is the load), the tokenizer and the cancels. */
function applyWorkloadFlags(
  args: ParsedArgs<BenchmarkFlags>,
  cwd: string,
  choice: WorkloadChoice,
  config: BenchmarkConfig,
): void {
  const o = args.options;
  const { trace, dataset, cancelAfterMs, cancelRate } = choice;
  const range = o.promptTokensRange;
  if (range !== undefined) config.workload.promptTokensRange = range;
  const sys = o.systemPromptTokens;
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
  const tokenizer = text(o.tokenizer);
  if (tokenizer !== undefined) {
    // A path is read from the working directory; an encoding name (o200k_base…) stays a name.
    const path = resolvePath(cwd, tokenizer);
    config.workload.tokenizer = existsSync(path) ? path : tokenizer;
  }
  const chatTemplate = text(o.chatTemplate);
  if (chatTemplate !== undefined) config.workload.chatTemplatePath = resolvePath(cwd, chatTemplate);
  if (cancelAfterMs !== undefined) {
    config.workload.cancelAfterMs = cancelAfterMs;
    config.workload.cancelRate = cancelRate!;
  }
}

/** The server's metrics and GPU exporter, and what the efficiency figures take (power, GPUs, price). */
function applyServerFlags(
  o: BenchmarkFlags,
  env: Env,
  metricsUrls: Awaited<ReturnType<typeof resolveTarget>>['metricsUrls'],
  config: BenchmarkConfig,
): void {
  applyMetricsSources(o, env, config, metricsUrls);
  const gpuMetricsUrl = text(o.gpuMetricsUrl);
  if (gpuMetricsUrl !== undefined) {
    const gpu = normalizeMetricsUrl(gpuMetricsUrl, '--gpu-metrics-url', 'http://gpu-node:9400/metrics');
    config.gpuMetricsUrl = gpu.url;
    if (gpu.notes.length > 0) config.warnings = [...(config.warnings ?? []), ...gpu.notes];
  }
  const efficiency = efficiencyInputs(o.gpuPowerWatts, o.gpuCount, o.costPerHour, o.costPer);
  if (efficiency) config.efficiency = efficiency;
}

/**
 * Turns parsed flags (from BENCHMARK_OPTIONS), the environment and the optional config
 * file into a BenchmarkConfig. Throws E_USAGE / E_CONFIG / E_KEY naming the flag or the
 * config field at fault.
 */
export async function resolveBenchmarkConfig(
  args: ParsedArgs<BenchmarkFlags>,
  env: Env,
  cwd: string,
): Promise<BenchmarkConfig> {
  const o = args.options;
  // URL, model, key, SLO, timeout and retries: the config module's precedence (flag > env > file).
  const target = await resolveTarget({
    flags: {
      url: text(o.url),
      model: text(o.model),
      apiKeyFile: text(o.apiKeyFile),
      config: text(o.config),
      slo: text(o.slo),
    },
    env,
    cwd,
  });
  refuseUnusableKey(target);

  const workload = workloadChoice(args, cwd);
  const seed = o.seed ?? DEFAULT_SEED;
  const config: BenchmarkConfig = {
    api: o.api ?? 'chat',
    sampling: {
      temperature: o.temperature ?? 0,
      maxTokens: o.maxTokens ?? DEFAULT_WORKLOAD.maxTokens,
      ignoreEos: o.ignoreEos === true,
      seed,
    },
    workload: { promptTokens: workload.promptTokens },
    load: applyStageFlags(resolveLoad(o, target), args),
    slo: target.slo ?? {},
    seed,
    serverMetrics: { enabled: o.serverMetrics !== false },
  };
  await applyTargetFlags(o, env, cwd, target, config);
  if (o.topP !== undefined) config.sampling.topP = o.topP;
  applyWorkloadFlags(args, cwd, workload, config);
  applySessionFlags(o, args.given, config);
  await applyShapeFlags(o, args.given, config, cwd);
  await applyAgentFlags(o, args.given, config, cwd);
  await applyClassFlags(o, target.classes, config, cwd);
  const outDir = text(o.out);
  if (outDir !== undefined) config.outDir = resolvePath(cwd, outDir);
  if (o.force === true) config.force = true;
  const labels = parseLabels(o.label);
  if (labels) config.labels = labels;
  applyServerFlags(o, env, target.metricsUrls, config);
  await applyEmbeddedEngineFlags(o, config, cwd);
  const shard = text(o.shard);
  if (shard !== undefined) config.shard = parseShard(shard);
  const startAt = text(o.startAt);
  if (startAt !== undefined) config.startAtMs = parseStartAt(startAt, Date.now());
  await applyReasoningFlags(o, config);
  const buckets = parseBuckets(o.buckets);
  if (buckets !== undefined) config.promptBuckets = buckets;
  if (o.scrapeInterval !== undefined) config.serverMetrics.intervalMs = o.scrapeInterval;
  return config;
}
