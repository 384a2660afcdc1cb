/**
 * What every kind of run sets up the same way: the workload (tokenizer, dataset, synthetic
 * prompts, arrivals) from a BenchmarkConfig, and the result directory (default name, checked
 * writable before the first request).
 *
 * @module
 */

import { join } from 'node:path';
import { redactUrl } from '../config/index.js';
import { GoodputError } from '../errors.js';
import { prepareOutDir, type RunRebuildInfo } from '../results/index.js';
import type { LoadSpec, RunMeta, Sampling, WorkloadSpec } from '../types.js';
import {
  createWorkload,
  type Dataset,
  loadDataset,
  loadImageFolder,
  loadTrace,
  resolveTokenizer,
  type Tokenizer,
  type Trace,
  type Workload,
  type WorkloadOptions,
} from '../workload/index.js';
import type { BenchmarkConfig, BenchmarkWorkload } from './config.js';
import type { BenchmarkIo } from './io.js';
import { LATE_SEND_TOLERANCE_MS } from './load.js';

/**
 * The tokenizer that counts a run's prompts: `--tokenizer` (default o200k_base), with the
 * chat template rendered with the requests' `chat_template_kwargs` as the server renders it.
 */
export async function runTokenizer(
  config: BenchmarkConfig,
  note?: (text: string) => void,
): Promise<Tokenizer> {
  const kwargs = config.extraBody?.chat_template_kwargs;
  const tokenizer = await resolveTokenizer({
    ...(config.workload.tokenizer !== undefined ? { tokenizer: config.workload.tokenizer } : {}),
    ...(config.workload.chatTemplatePath !== undefined
      ? { chatTemplate: config.workload.chatTemplatePath }
      : {}),
    ...(kwargs && typeof kwargs === 'object' && !Array.isArray(kwargs)
      ? { templateKwargs: kwargs as Record<string, unknown> }
      : {}),
  });
  if (config.api === 'chat' && tokenizer.file && !tokenizer.file.chatTemplate) {
    note?.(
      `${tokenizer.name} has no chat template (tokenizer_config.json, chat_template.jinja): chat prompts are counted without it; pass --chat-template FILE to count them as the server does`,
    );
  }
  return tokenizer;
}

/**
 * What the workload flags add to a WorkloadSpec whatever the prompts' source: the prompt
 * length spread, the shared system prompt and the sessions' shape. A run and each round of
 * `watch` build their workload through this, so a flag means the same in both.
 */
export function workloadShape(
  workload: Pick<BenchmarkWorkload, 'promptTokensRange' | 'systemPromptTokens' | 'sessions'>,
  load: Pick<LoadSpec, 'sessions'>,
): Pick<WorkloadSpec, 'promptTokensRange' | 'systemPromptTokens' | 'sessions'> {
  const shape: Pick<WorkloadSpec, 'promptTokensRange' | 'systemPromptTokens' | 'sessions'> = {};
  if (workload.promptTokensRange !== undefined) shape.promptTokensRange = workload.promptTokensRange;
  if (workload.systemPromptTokens !== undefined) shape.systemPromptTokens = workload.systemPromptTokens;
  if (workload.sessions !== undefined || load.sessions !== undefined)
    shape.sessions = workload.sessions ?? {};
  return shape;
}

/**
 * Loads what a workload's sends would otherwise load mid-run: the first item the prompt
 * generator's tables, and, when replies are sure to be counted (cancelled requests, the replies
 * of sessions), a first count the tokenizer's. Called before any clock starts, so the first
 * sends are not late by tens of milliseconds. Otherwise a reply is counted only when the server
 * sends no usage, and the tokenizer loads then (once; most of a second for o200k_base), so a
 * run against a server that reports usage never loads it.
 */
export function warmWorkload(workload: Workload, tokenizer: Tokenizer): void {
  if (workload.total !== 0) workload.item(0);
  const { cancelRate, sessions } = workload.spec;
  if ((cancelRate !== undefined && cancelRate > 0) || sessions !== undefined) tokenizer.count('warm');
}

/**
 * The run's workload, the tokenizer that counted its prompts (`--tokenizer`, default
 * o200k_base) with its tables and the prompt generator's loaded, and the load as run (a trace replay sends as many requests as the trace holds
 * unless --requests or --duration cut it); `signal` stops a dataset or trace read, `note`
 * says what the user should know.
 */
export async function buildRunWorkload(
  config: BenchmarkConfig,
  signal?: AbortSignal,
  note?: (text: string) => void,
): Promise<{ workload: Workload; tokenizer: Tokenizer; load: LoadSpec }> {
  const tokenizer = await runTokenizer(config, note);
  const dataset = config.workload.datasetPath
    ? await loadDataset(config.workload.datasetPath, undefined, signal ? { signal } : {})
    : undefined;
  const folder = config.workload.images?.folder;
  const imageFolder = folder ? await loadImageFolder(folder.path, signal) : undefined;
  const t = config.workload.trace;
  const trace = t
    ? await loadTrace(t.path, {
        ...(t.format ? { format: t.format } : {}),
        ...(t.columns ? { columns: t.columns } : {}),
        ...(t.timeUnit ? { timeUnit: t.timeUnit } : {}),
        ...(signal ? { signal } : {}),
      })
    : undefined;
  if (trace && t!.sha256 !== undefined && trace.sha256 !== t!.sha256) {
    throw new GoodputError(
      'E_DATASET',
      `trace ${t!.path} is not the one recorded (sha256 ${trace.sha256.slice(0, 12)}…, expected ${t!.sha256.slice(0, 12)}…)`,
      'replay the recorded trace file: restore it, or record the workload again',
    );
  }
  const workload = createRunWorkload(config, { tokenizer, dataset, trace, imageFolder }, config.seed, note);
  warmWorkload(workload, tokenizer);
  return { workload, tokenizer, load: traceLoad(config.load, workload, t?.closedLoop === true) };
}

/** What a run's prompts come from, once read: the tokenizer that counts them, a dataset, a trace, an image folder. */
export interface WorkloadSources {
  tokenizer: Tokenizer;
  dataset?: Dataset | undefined;
  trace?: Trace | undefined;
  imageFolder?: Awaited<ReturnType<typeof loadImageFolder>> | undefined;
}

/** What the workload is built from of a config: the flags of a run, or of a watch round. */
export type WorkloadConfig = Pick<BenchmarkConfig, 'api' | 'workload' | 'load'> & {
  sampling: Pick<Sampling, 'maxTokens'>;
};

/**
 * The workload of a config's flags, seeded with `seed`: its spec (kind, api, lengths,
 * tokenizer, shape, prefix groups, images, classes, agents) and its items (arrivals from the
 * load, cancels, a dataset's or trace's entries, length distributions). A run and each round of
 * `watch` (a seed of its own every round) build theirs here, so a flag means the same in both.
 */
export function createRunWorkload(
  config: WorkloadConfig,
  { tokenizer, dataset, trace, imageFolder }: WorkloadSources,
  seed: number,
  note?: (text: string) => void,
): Workload {
  const spec: WorkloadSpec = {
    kind: trace ? 'trace' : dataset ? 'dataset' : 'synthetic',
    api: config.api,
    maxTokens: config.sampling.maxTokens,
    tokenizer: tokenizer.name,
  };
  if (!dataset && !trace) spec.promptTokens = config.workload.promptTokens;
  if ((dataset || trace) && config.workload.outputFromDataset !== false)
    spec.maxTokensFrom = trace ? 'trace' : 'dataset';
  Object.assign(spec, workloadShape(config.workload, config.load));
  if (config.workload.prefixGroups) spec.prefixGroups = config.workload.prefixGroups;
  if (config.workload.images) spec.images = config.workload.images;
  if (config.workload.classes) spec.classes = config.workload.classes;
  const agents = config.workload.agents;
  if (agents) spec.agents = agents.spec;
  const tools = config.workload.tools;
  if (tools) spec.tools = tools.spec;
  const { promptTokensDist: prompt, maxTokensDist: output } = config.workload;
  const sessions = config.load.sessions;
  const t = config.workload.trace;
  return createWorkload(spec, {
    seed,
    warmup: config.load.warmup,
    requests: config.load.requests,
    rate: sessions ? sessions.rate : config.load.mode === 'open' ? config.load.rate : undefined,
    ...(config.load.stagesOf === 'rate' && config.load.stages ? { stages: config.load.stages } : {}),
    burstiness: config.load.burstiness,
    cancelRate: config.workload.cancelRate,
    cancelAfterMs: config.workload.cancelAfterMs,
    dataset,
    ...(imageFolder ? { imageFolder } : {}),
    tokenizer,
    outputFromDataset: config.workload.outputFromDataset ?? true,
    ...(trace
      ? {
          trace: {
            trace,
            timeScale: t!.timeScale,
            ...(t!.blockSize !== undefined ? { blockSize: t!.blockSize } : {}),
          },
        }
      : {}),
    ...(note ? { note } : {}),
    ...(agents
      ? {
          agents: {
            toolLatency: agents.toolLatency,
            toolResultTokens: agents.toolResultTokens,
            ...(agents.tools ? { tools: agents.tools } : {}),
            ...(agents.trace ? { trace: agents.trace } : {}),
          },
        }
      : {}),
    ...(tools ? { tools: tools.definitions } : {}),
    ...classOptions(config),
    ...(prompt || output
      ? { lengths: { ...(prompt ? { prompt } : {}), ...(output ? { output } : {}) } }
      : {}),
  });
}

/**
 * Traffic classes: what the classes name in files, and in a closed loop (`--concurrency N`,
 * `--sessions N`; not stages) its users, of which each class has its share.
 */
function classOptions(config: WorkloadConfig): Pick<WorkloadOptions, 'users' | 'classInputs'> {
  if (!config.workload.classes) return {};
  const { load, workload } = config;
  const users = load.sessions
    ? load.sessions.concurrency
    : load.mode === 'closed' && !(load.stages && load.stagesOf !== 'rate')
      ? Math.max(1, load.concurrency ?? 1)
      : undefined;
  return {
    ...(users !== undefined ? { users } : {}),
    ...(workload.classInputs ? { classInputs: workload.classInputs } : {}),
  };
}

/**
 * A trace replay's load: open loop on the trace's schedule (or, `closedLoop`, its requests at
 * the load's concurrency), as many requests as it holds unless cut.
 */
function traceLoad(load: LoadSpec, workload: Workload, closedLoop: boolean): LoadSpec {
  if (workload.spec.kind !== 'trace') return load;
  const out: LoadSpec = { ...load, mode: closedLoop ? 'closed' : 'open' };
  if (!closedLoop) delete out.concurrency;
  delete out.rate;
  delete out.burstiness;
  out.requests = workload.total! - load.warmup;
  return out;
}

/** "20260314-091502" in local time. */
function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** `--out DIR`, else goodput-results/<stamp>-<runId>/ under cwd, so records always stream to disk. */
export function resultDir(config: BenchmarkConfig, cwd: string, startedAt: Date, runId: string): string {
  return config.outDir ?? join(cwd, 'goodput-results', `${stamp(startedAt)}-${runId}`);
}

/** The run's result folder, ready to write (see prepareOutDir); says what --force removed. */
export async function prepareRunDir(
  config: BenchmarkConfig,
  io: BenchmarkIo,
  runId: string,
): Promise<string> {
  const dir = resultDir(config, io.cwd, new Date(), runId);
  const { removed } = await prepareOutDir(dir, { force: config.force === true });
  if (removed.length > 0 && !io.quiet) {
    io.stderr?.write(`--force: removed the earlier run's ${removed.join(', ')} from ${dir}\n`);
  }
  return dir;
}

/** The header of requests.jsonl carries this, so `goodput summarize` can rebuild a killed run's summary. */
export function rebuildInfo(meta: RunMeta, config: BenchmarkConfig, metricsUrl?: string): RunRebuildInfo {
  const info: RunRebuildInfo = { meta, lateSendToleranceMs: LATE_SEND_TOLERANCE_MS };
  if (config.promptBuckets !== undefined) info.promptBuckets = config.promptBuckets;
  if (metricsUrl !== undefined) info.metricsUrl = metricsUrl;
  if (config.gpuMetricsUrl !== undefined) info.gpuMetricsUrl = redactUrl(config.gpuMetricsUrl);
  if (config.efficiency) info.efficiency = config.efficiency;
  return info;
}
