/**
 * One probing round of one target: a run (the run pipeline, `runPipeline`) whose records flow
 * to the run accumulator (the round's RunSummary, from which every figure of the round is
 * read: counts, good requests, errors, and which the rollback rule reads), the store sink (the
 * store's compact histograms) and the exporter — and are never written to disk one by one.
 * There is no second aggregation here: what the round stores is what its summary says. The round also
 * measures the prober's own lag: the event-loop delay and the dispatch lag seen by the runner,
 * and the drift of the timer that started the round. A round in which the prober was the
 * bottleneck is marked invalid.
 *
 * @module
 */

import type { Client } from '../client/index.js';
import { efficiencyOf, failedRequests, metricsOf, RunAccumulator } from '../metrics/index.js';
import {
  CLIENT_BOUND_LOOP_DELAY_MS,
  LATE_SEND_TOLERANCE_MS,
  type RunClock,
  runPipeline,
  warmWorkload,
} from '../runner/index.js';
import { RoundCombiner, scrapeOnce, withGpu } from '../server-metrics/index.js';
import {
  type RoundGpuFigures,
  type RoundServerFigures,
  type StoredLatency,
  type StoredRound,
  StoreHistogram,
} from '../store/index.js';
import type {
  EfficiencyInputs,
  GpuSummary,
  LoadSpec,
  RequestErrorCode,
  RequestRecord,
  RunMeta,
  RunSummary,
  ServerSample,
} from '../types.js';
import type { Tokenizer, Workload } from '../workload/index.js';

/** Everything a round needs about its target, set up once per watch. */
export interface ProbeTarget {
  name: string;
  model: string;
  client: Client;
  clock: RunClock;
  tokenizer: Tokenizer;
  /** Metadata of every round of this target (buildRunMeta; runId and startedAt are set per round). */
  meta: RunMeta;
  load: LoadSpec;
  /** Server metrics URL, when it answered at start. */
  metricsUrl?: string;
  /** Several replicas (`--metrics-url` for each): read in place of `metricsUrl`, their totals kept. */
  metricsUrls?: string[];
  /**
   * A round's requests: the watch's workload (the runner's `createRunWorkload`, a dataset read
   * once) drawn with the round's seed, so other prompts every round (with a dataset, other
   * entries) and prefix caches do not flatter.
   */
  workloadFor: (seed: number) => Workload;
}

export interface RoundOptions {
  round: number;
  /** Seed of this round's prompts (different every round, so prefix caches do not flatter). */
  seed: number;
  /** How late the timer that started this round fired (ms). */
  timerDriftMs: number;
  /** Timer drift beyond this marks the round invalid. */
  driftToleranceMs: number;
  /** Aborts the round's requests (hard stop); a graceful stop lets the round finish instead. */
  signal?: AbortSignal;
  /** Called with each measured record (exporter). */
  onRecord?: (record: RequestRecord) => void;
  /**
   * Ends the target's GPU window when the round's load ends (gpu.ts): its summary becomes the
   * round summary's `server.gpu`. Absent: the target has no GPU exporter.
   */
  gpuWindow?: () => GpuSummary | undefined;
  /** Energy and cost inputs: the round summary's `efficiency` (with the GPU window's power, if any). */
  efficiency?: EfficiencyInputs;
  /** The round's requests, when already drawn (the target's `workloadFor(seed)`). */
  workload?: Workload;
}

export interface RoundResult {
  summary: RunSummary;
  stored: StoredRound;
  /** Output + prompt tokens spent (for the daily budget), warmup requests included. */
  tokensSpent: number;
  /** Every latency value of the round's successful requests, ms (for the exporter's histograms). */
  values: Record<StoredLatency, number[]>;
}

/**
 * A round's server figures from the scrapes before and after it: the gauges of the last one,
 * the preemptions between the two. A figure the engine does not publish is left out.
 */
export function serverFigures(
  before: Pick<ServerSample, 'values'> | undefined,
  after: Pick<ServerSample, 'values'> | undefined,
): RoundServerFigures | undefined {
  if (!after) return undefined;
  const out: RoundServerFigures = {};
  const v = after.values;
  if (v.kvUsage !== undefined) out.kvUsage = v.kvUsage;
  if (v.waiting !== undefined) out.waiting = v.waiting;
  if (v.running !== undefined) out.running = v.running;
  const p0 = before?.values.preemptionsTotal;
  if (v.preemptionsTotal !== undefined && p0 !== undefined)
    out.preemptions = Math.max(0, v.preemptionsTotal - p0);
  return out;
}

type Scrape = Pick<ServerSample, 'values'> | undefined;

/**
 * Several replicas' scrapes before and after a round: queue depths summed and KV usage averaged
 * as a run's scrape rounds are (server-metrics' RoundCombiner), preemptions the sum of each
 * replica's own increase (a replica that did not answer both times adds none).
 */
export function replicaFigures(
  before: Scrape | Scrape[],
  after: Scrape | Scrape[],
): RoundServerFigures | undefined {
  const b = Array.isArray(before) ? before : [];
  const a = Array.isArray(after) ? after : [];
  const answered = a.flatMap((s, i) =>
    s ? [{ tMs: 0, engine: 'unknown' as const, replica: String(i), values: s.values }] : [],
  );
  const joined = new RoundCombiner().add(answered);
  if (!joined) return undefined;
  const out = serverFigures(undefined, joined)!;
  delete out.preemptions;
  a.forEach((s, i) => {
    const p1 = s?.values.preemptionsTotal;
    const p0 = b[i]?.values.preemptionsTotal;
    if (p1 !== undefined && p0 !== undefined) out.preemptions = (out.preemptions ?? 0) + Math.max(0, p1 - p0);
  });
  return out;
}

/**
 * The store sink: each successful measured request's latencies go into the store's compact
 * histograms (its own codec, see store/) and the exporter's value lists. Counts, good
 * requests and errors are not counted here: they are read from the round's summary.
 */
class StoreSink {
  readonly histograms: Record<StoredLatency, StoreHistogram> = {
    ttft: new StoreHistogram(),
    tpot: new StoreHistogram(),
    itl: new StoreHistogram(),
    e2el: new StoreHistogram(),
  };
  readonly values: Record<StoredLatency, number[]> = { ttft: [], tpot: [], itl: [], e2el: [] };
  tokensSpent = 0;

  add(record: RequestRecord): void {
    // Warmup requests are not measured, but they are spent.
    this.tokensSpent += record.promptTokens + record.outputTokens;
    if (record.warmup) return;
    if (record.outcome !== 'success') return;
    const m = metricsOf(record);
    if (m.ttftMs !== undefined) this.keep('ttft', m.ttftMs);
    if (m.tpotMs !== undefined) this.keep('tpot', m.tpotMs);
    for (const gap of m.itlMs) this.keep('itl', gap);
    this.keep('e2el', m.e2elMs);
  }

  private keep(name: StoredLatency, ms: number): void {
    this.histograms[name].record(ms);
    this.values[name].push(ms);
  }
}

/** The round's error codes and counts, as its summary gives them. */
function errorCounts(summary: RunSummary): Partial<Record<RequestErrorCode, number>> {
  const out: Partial<Record<RequestErrorCode, number>> = {};
  for (const e of summary.errors) out[e.code] = e.count;
  return out;
}

/** The target's server metrics now: one scrape, or one per replica. */
async function scrapeTarget(target: ProbeTarget): Promise<Scrape | Scrape[]> {
  if (target.metricsUrls) return Promise.all(target.metricsUrls.map((u) => tryScrape(u)));
  return tryScrape(target.metricsUrl);
}

async function tryScrape(url: string | undefined): Promise<Pick<ServerSample, 'values'> | undefined> {
  if (url === undefined) return undefined;
  try {
    return await scrapeOnce(url, { timeoutMs: 2000 });
  } catch {
    return undefined;
  }
}

/**
 * The most tokens a round of `count` requests (warmup included) can spend, for the daily
 * budget: without sessions, exactly those requests' prompts and output limits, read from the
 * workload before anything is sent; with sessions, `perRequestBound` for each request.
 */
export function roundTokenBound(workload: Workload, count: number, perRequestBound: number): number {
  if (workload.sessions) return count * perRequestBound;
  let tokens = 0;
  for (let i = 0; i < count; i++) {
    const item = workload.item(i);
    tokens += item.promptTokens + item.maxTokens;
  }
  return tokens;
}

/** Runs one round against one target; never throws for request failures (they are the round's data). */
export async function runRound(target: ProbeTarget, opts: RoundOptions): Promise<RoundResult> {
  const startedAt = Date.now();
  const meta: RunMeta = {
    ...target.meta,
    runId: `${target.name}#${opts.round}`,
    startedAt: new Date(startedAt).toISOString(),
  };
  const workload = opts.workload ?? target.workloadFor(opts.seed);
  warmWorkload(workload, target.tokenizer);
  const accumulator = RunAccumulator.fromMeta(meta, { lateSendToleranceMs: LATE_SEND_TOLERANCE_MS });
  const store = new StoreSink();
  const before = await scrapeTarget(target);
  target.clock.reset();
  const onRecord = opts.onRecord;
  const result = await runPipeline({
    load: target.load,
    workItem: (i, cls) => workload.item(i, cls),
    ...(workload.userClass ? { userClass: workload.userClass } : {}),
    ...(workload.sessions ? { sessions: workload.sessions } : {}),
    send: (item, o) => target.client.send(item, o),
    clock: target.clock,
    signal: opts.signal,
    sinks: [
      (record) => accumulator.add(record),
      (record) => store.add(record),
      onRecord &&
        ((record) => {
          if (!record.warmup) onRecord(record);
        }),
    ],
  });
  const gpu = opts.gpuWindow?.();
  const after = await scrapeTarget(target);
  const server = withGpu(undefined, gpu);
  const summary = accumulator.summarize(meta, {
    dropped: result.dropped,
    peakInFlight: result.peakInFlight,
    clientBound: result.clientBound,
    interrupted: result.interrupted,
    ...(server ? { server } : {}),
  });
  const efficiency = efficiencyOf(summary, opts.efficiency ?? {});
  if (efficiency) summary.efficiency = efficiency;
  const dispatchLagP99 = result.dispatchLag.count > 0 ? result.dispatchLag.percentile(99) : 0;
  const proberLagMs = Math.max(result.eventLoopDelay.p99, dispatchLagP99, opts.timerDriftMs);
  let invalidReason: string | undefined;
  if (result.eventLoopDelay.p99 > CLIENT_BOUND_LOOP_DELAY_MS) {
    invalidReason = `prober event-loop delay p99 ${result.eventLoopDelay.p99.toFixed(1)} ms > ${CLIENT_BOUND_LOOP_DELAY_MS} ms`;
  } else if (result.clientBound) {
    invalidReason = `prober ${result.clientBoundReason ?? `dispatch lag p99 ${dispatchLagP99.toFixed(1)} ms`}: the prober could not keep its schedule`;
  } else if (opts.timerDriftMs > opts.driftToleranceMs) {
    invalidReason = `round timer fired ${opts.timerDriftMs.toFixed(0)} ms late (tolerance ${opts.driftToleranceMs} ms)`;
  }
  const stored: StoredRound = {
    target: target.name,
    round: opts.round,
    startedAt,
    durationMs: Date.now() - startedAt,
    valid: invalidReason === undefined,
    attempted: summary.counts.attempted,
    completed: summary.counts.completed,
    failed: failedRequests(summary),
    good: summary.goodput.goodRequests,
    outputTokens: summary.total_output_tokens,
    proberLagMs,
    errors: errorCounts(summary),
    histograms: store.histograms,
  };
  if (invalidReason !== undefined) stored.invalidReason = invalidReason;
  const figures = Array.isArray(after)
    ? replicaFigures(before, after)
    : serverFigures(before as Scrape, after);
  if (gpu) {
    const { metricsUrl: _url, gpus: _perGpu, ...aggregates } = gpu;
    stored.server = { ...figures, gpu: aggregates satisfies RoundGpuFigures };
  } else if (figures) stored.server = figures;
  return { summary, stored, tokensSpent: store.tokensSpent, values: store.values };
}
