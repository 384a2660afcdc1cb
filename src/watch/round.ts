/**
 * One probing round of one target: a small bounded load (runLoad) whose records feed the run
 * accumulator (for the round's RunSummary, which the rollback rule reads), the store's compact
 * histograms and the exporter — and are never written to disk one by one. The round also
 * measures the prober's own lag: the event-loop delay and the dispatch lag seen by the runner,
 * and the drift of the timer that started the round. A round in which the prober was the
 * bottleneck is marked invalid.
 *
 * @module
 */

import type { Client } from '../client/index.js';
import { failedRequests, meetsSlo, RunAccumulator, requestMetrics } from '../metrics/index.js';
import {
  CLIENT_BOUND_LOOP_DELAY_MS,
  LATE_SEND_TOLERANCE_MS,
  type RunClock,
  runLoad,
} from '../runner/index.js';
import { scrapeOnce } from '../server-metrics/index.js';
import {
  type RoundServerFigures,
  type StoredLatency,
  type StoredRound,
  StoreHistogram,
} from '../store/index.js';
import type {
  LoadSpec,
  RequestErrorCode,
  RequestRecord,
  RunMeta,
  RunSummary,
  ServerSample,
} from '../types.js';
import type { Tokenizer } from '../workload/index.js';
import { createWorkload } from '../workload/index.js';

/** Everything a round needs about its target, set up once per watch. */
export interface ProbeTarget {
  name: string;
  model: string;
  client: Client;
  clock: RunClock;
  tokenizer: Tokenizer;
  /** Metadata of every round of this target (runId and startedAt are set per round). */
  meta: RunMeta;
  load: LoadSpec;
  /** Server metrics URL, when it answered at start. */
  metricsUrl?: string;
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
}

export interface RoundResult {
  summary: RunSummary;
  stored: StoredRound;
  /** Output + prompt tokens spent (for the daily budget). */
  tokensSpent: number;
  /** Every latency value of the round's successful requests, ms (for the exporter's histograms). */
  values: Record<StoredLatency, number[]>;
}

function serverFigures(
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

async function tryScrape(url: string | undefined): Promise<Pick<ServerSample, 'values'> | undefined> {
  if (url === undefined) return undefined;
  try {
    return await scrapeOnce(url, { timeoutMs: 2000 });
  } catch {
    return undefined;
  }
}

/** Runs one round against one target; never throws for request failures (they are the round's data). */
export async function runRound(target: ProbeTarget, opts: RoundOptions): Promise<RoundResult> {
  const startedAt = Date.now();
  const meta: RunMeta = {
    ...target.meta,
    runId: `${target.name}#${opts.round}`,
    startedAt: new Date(startedAt).toISOString(),
  };
  const workload = createWorkload(meta.workload, {
    seed: opts.seed,
    warmup: 0,
    requests: target.load.requests,
    rate: target.load.mode === 'open' ? target.load.rate : undefined,
    burstiness: target.load.burstiness,
    tokenizer: target.tokenizer,
  });
  const accumulator = RunAccumulator.fromMeta(meta, { lateSendToleranceMs: LATE_SEND_TOLERANCE_MS });
  const histograms = {
    ttft: new StoreHistogram(),
    tpot: new StoreHistogram(),
    itl: new StoreHistogram(),
    e2el: new StoreHistogram(),
  };
  const values: Record<StoredLatency, number[]> = { ttft: [], tpot: [], itl: [], e2el: [] };
  const errors: Partial<Record<RequestErrorCode, number>> = {};
  let good = 0;
  let tokensSpent = 0;
  const before = await tryScrape(target.metricsUrl);
  target.clock.reset();
  const result = await runLoad({
    load: target.load,
    workItem: (i) => workload.item(i),
    send: (item, o) => target.client.send(item, o),
    clock: target.clock,
    signal: opts.signal,
    onRecord: (record) => {
      if (record.warmup) return;
      accumulator.add(record);
      tokensSpent += record.promptTokens + record.outputTokens;
      const m = requestMetrics(record);
      if (record.outcome === 'success') {
        const keep = (name: StoredLatency, ms: number) => {
          histograms[name].record(ms);
          values[name].push(ms);
        };
        if (m.ttftMs !== undefined) keep('ttft', m.ttftMs);
        if (m.tpotMs !== undefined) keep('tpot', m.tpotMs);
        for (const gap of m.itlMs) keep('itl', gap);
        keep('e2el', m.e2elMs);
      } else if (record.error) {
        errors[record.error.code] = (errors[record.error.code] ?? 0) + 1;
      }
      if (meetsSlo(record, m, meta.slo)) good++;
      opts.onRecord?.(record);
    },
  });
  const after = await tryScrape(target.metricsUrl);
  const summary = accumulator.summarize(meta, {
    dropped: result.dropped,
    peakInFlight: result.peakInFlight,
    clientBound: result.clientBound,
    interrupted: result.interrupted,
  });
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
    good,
    outputTokens: summary.total_output_tokens,
    proberLagMs,
    errors,
    histograms,
  };
  if (invalidReason !== undefined) stored.invalidReason = invalidReason;
  const server = serverFigures(before, after);
  if (server) stored.server = server;
  return { summary, stored, tokensSpent, values };
}
