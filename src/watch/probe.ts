/**
 * A watched target made ready for its rounds, once per watch: prepared as a run's target is
 * (URL or embedded engine, the model), its client, the workload each round draws (built by the
 * runner's `createRunWorkload` from watch's flags, as `goodput run` builds a run's, with the
 * round's own seed), its server-metrics source, the state a restart resumes from, and its
 * OpenTelemetry sink.
 *
 * @module
 */

import type { Client } from '../client/index.js';
import { GoodputError } from '../errors.js';
import type { OtlpExport } from '../otlp/index.js';
import {
  buildRunMeta,
  createRunClient,
  createRunWorkload,
  type PreparedTarget,
  prepareTarget,
  RunClock,
  type WorkloadConfig,
} from '../runner/index.js';
import { chooseMetricsUrl } from '../server-metrics/index.js';
import type { WatchStore } from '../store/index.js';
import type { RequestRecord, Slo } from '../types.js';
import type { Tokenizer } from '../workload/index.js';
import type { WatchConfig } from './config.js';
import { initialRollbackState, type RollbackState } from './rollback.js';
import type { ProbeTarget } from './round.js';
import type { WatchTarget } from './targets.js';

/** Per-target state persisted in the store. */
export interface TargetState {
  rollback: RollbackState;
  budget: { day: string; used: number };
}

/** A target while watch runs: its probe, its last round and its state. */
export interface LiveTarget {
  probe: ProbeTarget;
  round: number;
  state: TargetState;
  url: string;
}

/**
 * The run flags a round's workload is built from: watch's, read as `goodput run` reads the same
 * flags. A round's output stays bounded by --max-tokens, whatever a dataset's entries say.
 */
export function roundWorkloadConfig(config: WatchConfig): WorkloadConfig {
  return {
    api: config.api,
    sampling: config.sampling,
    load: config.load,
    workload: { promptTokens: config.promptTokens, ...config.workload, outputFromDataset: false },
  };
}

/** What preparing a target needs from the watcher. */
export interface ProbeContext {
  config: WatchConfig;
  tokenizer: Tokenizer;
  store: WatchStore;
  log: (text: string) => void;
  signal?: AbortSignal | undefined;
  otlp?: OtlpExport | undefined;
}

/**
 * Prepares one target for its rounds; `onPrepared` and `onClient` hand the watcher what it
 * closes at the end, even when a later step fails.
 */
export async function prepareProbe(
  t: WatchTarget,
  ctx: ProbeContext,
  own: { targets: PreparedTarget[]; clients: Client[] },
): Promise<{ live: LiveTarget; otlpSink?: (record: RequestRecord) => void }> {
  const { config, tokenizer, store, log } = ctx;
  // The same target preparation as a run: URL or embedded engine, the model picked one way.
  const target = await prepareTarget({
    url: t.url,
    model: t.model,
    api: config.api,
    apiKey: t.apiKey,
    seed: config.seed,
    note: log,
    modelHint: 'pass --model (or model: in the targets file) so watch can start while the target is down',
    signal: ctx.signal,
    headers: config.headers,
    secrets: config.secrets,
  }).catch((e: unknown) => {
    if (e instanceof GoodputError) throw new GoodputError(e.code, `${t.name}: ${e.message}`, e.hint);
    throw e;
  });
  own.targets.push(target);
  const { baseUrl, model } = target;
  const clock = new RunClock();
  // The run's client, with this target's key: the same options as `goodput run`.
  const client = createRunClient(
    { ...config, apiKey: t.apiKey },
    { baseUrl, model },
    config.load,
    tokenizer,
    clock,
  );
  own.clients.push(client);
  const flags = roundWorkloadConfig(config);
  const sources = { tokenizer, dataset: config.dataset };
  const workloadFor = (seed: number) => createRunWorkload(flags, sources, seed);
  // runId and startedAt are set per round.
  const meta = buildRunMeta(
    { sampling: config.sampling, load: config.load, slo: t.slo as Slo, seed: config.seed },
    target,
    workloadFor(config.seed).spec,
    { runId: '', startedAt: '', version: config.toolVersion },
  );
  const metrics = await chooseMetricsUrl(config.serverMetrics, baseUrl);
  const probe: ProbeTarget = {
    name: t.name,
    model,
    client,
    clock,
    tokenizer,
    meta,
    load: config.load,
    workloadFor,
  };
  if (metrics.url) probe.metricsUrl = metrics.url;
  if (metrics.sources?.replicas) probe.metricsUrls = metrics.sources.replicas.map((r) => r.url);
  store.targetId(t.name, target.info.baseUrl, model);
  const saved = store.loadState<TargetState>(t.name);
  const state: TargetState = saved ?? { rollback: initialRollbackState(), budget: { day: '', used: 0 } };
  const round = store.lastRound(t.name);
  if (round > 0)
    log(`${t.name}: resuming after round ${round} (bad-window streak ${state.rollback.streak.length})`);
  const live: LiveTarget = { probe, round, state, url: target.info.baseUrl };
  if (!ctx.otlp) return { live };
  const otlpSink = ctx.otlp.sinkFor({
    model,
    api: config.api,
    baseUrl,
    epochMsAtZero: () => Date.now() - clock.now(),
  });
  return { live, otlpSink };
}
