/**
 * `goodput run --time virtual`: the run's workload goes through the embedded engine with a
 * simulated clock instead of sockets, so a what-if run of thousands of requests finishes in
 * seconds. Each request's simulated timings become an ordinary RequestRecord (send, first
 * token, one chunk per token, end), so requests.jsonl, summary.json and every command that
 * reads them work as for a live run; the summary says `meta.target.timeMode: "virtual"`.
 *
 * What a virtual record cannot know: network and client time (none), chunk sizes in
 * characters (one per chunk: one token per chunk, as the live engine streams). Output lengths
 * are drawn exactly as the live engine draws them (same seed, same prompt key), and the
 * engine's own counters fill the `server` block.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { GoodputError } from '../errors.js';
import { RunAccumulator } from '../metrics/index.js';
import { JsonlWriter, RESULT_FILES, writeSummary } from '../results/index.js';
import {
  chatPromptText,
  pickOutputLength,
  resolveProfile,
  simulateVirtual,
  type VirtualRequest,
  type VirtualTiming,
} from '../sim/index.js';
import {
  type RequestRecord,
  type RunMeta,
  SCHEMA_VERSION,
  type ServerSummary,
  type WorkItem,
} from '../types.js';
import type { BenchmarkIo, BenchmarkResult } from './benchmark.js';
import type { BenchmarkConfig } from './config.js';
import { LATE_SEND_TOLERANCE_MS } from './load.js';
import { buildRunWorkload, prepareRunDir } from './run-workload.js';

/** The live engine's mean output length when ignore_eos is off (its default). */
const MEAN_OUTPUT_TOKENS = 200;

const us = (ms: number) => Math.round(ms * 1000) / 1000;

/** One simulated request as the client would have recorded it. */
export function virtualRecord(item: WorkItem, t: VirtualTiming, scheduledMs: number): RequestRecord {
  const sent = us(t.arrivalMs);
  const base: RequestRecord = {
    id: item.id,
    index: item.index,
    warmup: item.warmup,
    outcome: 'success',
    attempts: 1,
    scheduledMs: us(scheduledMs),
    sentMs: sent,
    firstSentMs: sent,
    headersMs: sent,
    endMs: us(t.endMs),
    chunkMs: [],
    chunkChars: [],
    httpStatus: 200,
    promptTokens: item.promptTokens,
    serverPromptTokens: item.promptTokens,
    outputTokens: t.outputTokens,
    outputTokensSource: 'usage',
    maxTokens: item.maxTokens,
  };
  if (t.finishReason === 'rejected') {
    return {
      ...base,
      outcome: 'error',
      httpStatus: 400,
      error: { code: 'HTTP_CLIENT_ERROR', message: t.error ?? 'rejected by the engine', httpStatus: 400 },
      outputTokens: 0,
    };
  }
  let times = t.tokenTimesMs ?? [];
  if (item.cancelAfterMs !== undefined && t.arrivalMs + item.cancelAfterMs < t.endMs) {
    // The user gave up: the record ends there with the tokens received so far.
    const gone = t.arrivalMs + item.cancelAfterMs;
    times = times.filter((x) => x <= gone);
    base.outcome = 'cancelled';
    base.error = { code: 'ABORTED', message: `cancelled after ${item.cancelAfterMs} ms (simulated user)` };
    base.endMs = us(gone);
    base.outputTokens = times.length;
    base.outputTokensSource = 'counted';
  } else {
    base.finishReason = t.finishReason;
  }
  base.chunkMs = times.map(us);
  base.chunkChars = times.map(() => 1);
  if (times.length > 0) base.firstTokenMs = base.chunkMs[0];
  return base;
}

/** Highest number of requests in flight at once. */
function peakInFlight(records: readonly RequestRecord[]): number {
  const edges: Array<[number, number]> = [];
  for (const r of records) edges.push([r.sentMs, 1], [r.endMs, -1]);
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of edges) {
    now += d;
    if (now > peak) peak = now;
  }
  return peak;
}

/** Runs the benchmark in virtual time against the embedded engine and writes its result directory. */
export async function runVirtualBenchmark(
  config: BenchmarkConfig,
  io: BenchmarkIo,
): Promise<BenchmarkResult> {
  if (config.url !== undefined || config.load.requests === undefined) {
    throw new GoodputError(
      'E_USAGE',
      'a virtual-time run needs the embedded engine and a request count',
      'drop --url and give --requests N with --time virtual',
    );
  }
  const runId = randomBytes(4).toString('hex');
  const dir = await prepareRunDir(config, io, runId);
  const profile = resolveProfile(config.sim?.profile);
  const model = config.model ?? profile.model.servedName;
  const { workload } = await buildRunWorkload(config);
  const total = config.load.warmup + config.load.requests;
  const items: WorkItem[] = [];
  const requests: VirtualRequest[] = [];
  for (let i = 0; i < total; i++) {
    const item = workload.item(i);
    items.push(item);
    const text = item.messages ? chatPromptText(item.messages) : (item.prompt ?? '');
    const out = pickOutputLength({
      seed: config.seed,
      key: `${text}\u0000${String(config.sampling.seed ?? '')}`,
      maxTokens: item.maxTokens,
      ignoreEos: config.sampling.ignoreEos,
      meanOutputTokens: MEAN_OUTPUT_TOKENS,
    });
    const r: VirtualRequest = {
      id: item.id,
      arrivalMs: item.scheduledMs ?? 0,
      promptTokens: item.promptTokens,
      outputTokens: out.tokens,
      finishReason: out.finishReason,
    };
    if (config.workload.systemPromptTokens) {
      r.sharedPrefixTokens = config.workload.systemPromptTokens;
      r.prefixId = 1;
    }
    if (item.cancelAfterMs !== undefined) r.cancelAfterMs = item.cancelAfterMs;
    requests.push(r);
  }
  const closed = config.load.mode === 'closed';
  const sim = simulateVirtual(requests, {
    profile,
    ...((closed ? config.load.concurrency : config.load.maxConcurrency) !== undefined
      ? { concurrency: (closed ? config.load.concurrency : config.load.maxConcurrency)! }
      : {}),
    recordTokenTimes: true,
  });

  const startedAt = new Date();
  if (!io.quiet)
    io.stderr?.write(`virtual time (${profile.id}): ${total} requests simulated\nresults: ${dir}\n`);
  const meta: RunMeta = {
    tool: { name: 'goodput', version: io.version ?? '0.0.0' },
    runId,
    startedAt: startedAt.toISOString(),
    target: {
      baseUrl: 'virtual://embedded',
      api: config.api,
      embedded: true,
      timeMode: 'virtual',
      simProfile: profile.id,
    },
    model,
    sampling: config.sampling,
    workload: workload.spec,
    load: config.load,
    slo: config.slo,
    seed: config.seed,
  };
  if (config.labels) meta.labels = config.labels;
  const writer = new JsonlWriter<RequestRecord>(join(dir, RESULT_FILES.requests), {
    schemaVersion: SCHEMA_VERSION,
    kind: 'goodput.requests',
    runId,
    startedAt: meta.startedAt,
  });
  const accumulator = RunAccumulator.fromMeta(meta, {
    lateSendToleranceMs: LATE_SEND_TOLERANCE_MS,
    promptBuckets: config.promptBuckets,
  });
  const records: RequestRecord[] = [];
  let warmupTokens = 0;
  try {
    for (let i = 0; i < total; i++) {
      const item = items[i]!;
      const record = virtualRecord(item, sim.timings[i]!, item.scheduledMs ?? sim.timings[i]!.arrivalMs);
      if (record.warmup) warmupTokens += sim.timings[i]!.outputTokens;
      records.push(record);
      writer.write(record);
      accumulator.add(record);
      io.onRecord?.(record);
    }
  } finally {
    await writer.close();
  }
  const c = sim.counters;
  const server: ServerSummary = {
    engine: 'goodput-sim',
    metricsUrl: 'virtual',
    samples: 0,
    series: {},
    preemptions: c.preemptions,
    prefixCacheHitRate: c.prefixCacheQueries > 0 ? c.prefixCacheHits / c.prefixCacheQueries : 0,
    generatedTokens: c.generationTokens - warmupTokens,
    wastedTokens: c.abandonedTokens,
  };
  const summary = accumulator.summarize(meta, {
    dropped: 0,
    peakInFlight: peakInFlight(records.filter((r) => !r.warmup)),
    clientBound: false,
    interrupted: false,
    server,
    serverGeneratedTokens: server.generatedTokens,
  });
  await writeSummary(join(dir, RESULT_FILES.summary), summary);
  return { summary, dir };
}
