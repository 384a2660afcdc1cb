/**
 * runBenchmark: one whole run, live or virtual time, through the one run pipeline: the target
 * (URL or embedded engine, model: `prepareTarget`), the workload, the transport (a client
 * whose connections are opened before the clock starts, or the engine in-process on its
 * simulated clock), then the load with records flowing to requests.jsonl, the accumulator,
 * the server-metrics recorder, the diagnosis sample and the progress bar (`runPipeline`),
 * and summary.json. Returns the summary and the result directory.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Client } from '../client/index.js';
import { redactCommandLine, redactUrl } from '../config/index.js';
import { diagnose, observe, type RequestObservation } from '../diagnosis/index.js';
import { GoodputError } from '../errors.js';
import { efficiencyOf, RunAccumulator } from '../metrics/index.js';
import { describeOtlpOutcome, OtlpExport } from '../otlp/index.js';
import { JsonlWriter, RESULT_FILES } from '../results/index.js';
import {
  chooseMetricsUrl,
  type GpuMetricsRecorder,
  type ServerMetricsRecorder,
  startGpuMetricsRecorder,
  startServerMetricsRecorder,
  withGpu,
} from '../server-metrics/index.js';
import {
  type ConnectionWarmup,
  type GpuSummary,
  type LoadClock,
  type RequestRecord,
  type RunSummary,
  SCHEMA_VERSION,
  type ServerSummary,
} from '../types.js';
import { createRng, Part, type PartSpec, type Tokenizer } from '../workload/index.js';
import type { BenchmarkConfig } from './config.js';
import { connectionUse, describeServerConnections, HeadersTally } from './connection-use.js';
import { describeRunTarget } from './describe.js';
import { type ConnectionPlan, createRunClient, planConnections, warmConnections } from './live-client.js';
import { LATE_SEND_TOLERANCE_MS, type SendFn } from './load.js';
import { RunOutput } from './output.js';
import { buildRunMeta, fanOut, type RecordSinkFn, runPipeline } from './pipeline.js';
import { Progress, type ProgressMode, type ProgressStream, progressMode } from './progress.js';
import { Reservoir } from './reservoir.js';
import { buildRunWorkload, prepareRunDir, rebuildInfo } from './run-workload.js';
import {
  checkShard,
  inShardRecord,
  peakInFlight,
  shardItem,
  shardLoad,
  shardSessions,
} from './sharding/shard.js';
import { checkServedModel, type PreparedTarget, prepareTarget } from './target.js';
import { RunClock } from './timer.js';
import { createVirtualTransport } from './virtual.js';
import { checkWorkers, effectiveWorkers, type LoadWorkerPool, startLoadWorkers } from './workers/index.js';

/** Requests diagnosis looks at (a uniform sample beyond this): enough for its time slices, flat in memory. */
export const MAX_DIAGNOSIS_OBSERVATIONS = 10_000;

export interface BenchmarkIo {
  /** Notes (result directory, embedded engine) and the progress bar (when a TTY). */
  stderr?: ProgressStream;
  /** Aborting it stops the load, interrupts in-flight requests and still writes the results. */
  signal?: AbortSignal;
  /** Base of the default result directory. */
  cwd: string;
  /** No notes, no progress. */
  quiet?: boolean;
  /** Progress form (default: a bar on a terminal, a line every 10 s elsewhere). */
  progress?: ProgressMode;
  /** Tool version recorded in the summary. */
  version?: string;
  /** The command line that ran this (`goodput run …`): recorded in the summary with its secrets redacted. */
  command?: readonly string[];
  /** Called with every record (warmup included) as it completes. */
  onRecord?: (record: RequestRecord) => void;
}

export interface BenchmarkResult {
  summary: RunSummary;
  /** The result directory (summary.json, requests.jsonl, server-metrics.jsonl). */
  dir: string;
}

/** A note when the connection warm-up did not open every connection, else undefined. */
export function describeConnectionWarmup(w: ConnectionWarmup): string | undefined {
  if (!w.reason) return undefined;
  const why = {
    budget: `the server did not answer GET /v1/models within ${w.ms} ms`,
    aborted: 'the run was stopped',
    errors: 'GET /v1/models failed',
  }[w.reason];
  return `connection warm-up: ${w.ok} of ${w.requested} connections ready (${why}); the load starts on fresh connections, opened as it needs them`;
}

/** How requests reach the target: a live client over sockets, load workers, or the engine in-process. */
interface Transport {
  clock: LoadClock;
  /** Absent with load workers: each sends through its own client. */
  send?: SendFn;
  /** `--workers N` > 1: the threads that run the load (the clock is their t0). */
  workers?: { pool: LoadWorkerPool; clock: RunClock };
  /** Live: the client to close at the end. */
  client?: Client;
  /** Live: the server metrics URL that answered, and its counters' baseline. */
  metrics?: Awaited<ReturnType<typeof chooseMetricsUrl>>;
  connectionWarmup?: ConnectionWarmup;
  /** Live, one load thread: the client's connection plan (its connections are the client's). */
  plan?: ConnectionPlan;
  /** Virtual: the engine's own counters, in place of scraped server metrics. */
  server?: () => ServerSummary;
}

/** A live client of the target, its server metrics probed and its connections opened before the clock starts. */
async function openLiveTransport(
  config: BenchmarkConfig,
  target: PreparedTarget,
  tokenizer: Tokenizer,
  io: BenchmarkIo,
  note: (text: string) => void,
): Promise<Transport> {
  const clock = new RunClock();
  const plan = planConnections(config.load, config.sampling.maxTokens);
  const client = createRunClient(config, target, config.load, tokenizer, clock);
  try {
    // Server metrics: probe (and take the counters' baseline) before the clock starts.
    const metrics = await chooseMetricsUrl({ ...config.serverMetrics, shown: redactUrl }, target.baseUrl);
    if (metrics.note) note(metrics.note);
    const connectionWarmup = await warmConnections(client, plan, config.load, io.signal);
    const warmupNote = describeConnectionWarmup(connectionWarmup);
    if (warmupNote) note(warmupNote);
    clock.reset();
    return { clock, send: (item, opts) => client.send(item, opts), client, metrics, connectionWarmup, plan };
  } catch (e) {
    await client.close().catch(() => undefined);
    throw e;
  }
}

/** `--shard` / `--start-at` refused before anything starts when they cannot work. */
function checkShardedRun(config: BenchmarkConfig, virtual: boolean): void {
  if (config.shard) checkShard(config.load, config.shard, virtual);
  if (config.shard && virtual && config.load.stages !== undefined) {
    throw new GoodputError(
      'E_USAGE',
      '--stages with --shard in virtual time: each virtual shard runs the whole load, so its stage tally would not be its share',
      'leave out --shard (one virtual run is the whole staged load), or run the shards in live time',
    );
  }
  if (config.startAtMs !== undefined && virtual) {
    throw new GoodputError(
      'E_USAGE',
      '--start-at with --time virtual: a simulated clock has no wall-clock instant to meet',
      'leave out --start-at (virtual shards need no common start), or run in live time',
    );
  }
}

/** Load workers of the target, each with its connections open, the server metrics probed, before the clock starts. */
async function openWorkerTransport(
  loads: { run: BenchmarkConfig; own: BenchmarkConfig; shard: PartSpec | undefined },
  target: PreparedTarget,
  workers: number,
  io: BenchmarkIo,
  note: (text: string) => void,
): Promise<Transport> {
  const clock = new RunClock();
  const metrics = await chooseMetricsUrl({ ...loads.run.serverMetrics, shown: redactUrl }, target.baseUrl);
  if (metrics.note) note(metrics.note);
  const pool = await startLoadWorkers({
    config: loads.run,
    load: loads.own.load,
    ...(loads.shard ? { shard: loads.shard } : {}),
    baseUrl: target.baseUrl,
    model: target.model,
    workers,
    signal: io.signal,
  });
  note(
    pool.threads
      ? `load: ${workers} worker threads`
      : `load: ${workers} load workers on this thread (worker threads need the built package)`,
  );
  const warmupNote = describeConnectionWarmup(pool.connectionWarmup);
  if (warmupNote) note(warmupNote);
  clock.reset();
  return { clock, workers: { pool, clock }, metrics, connectionWarmup: pool.connectionWarmup };
}

/** Ends the GPU recording: its summary, and a note when scrapes failed (never a failure of the run). */
async function finishGpu(
  recorder: GpuMetricsRecorder | undefined,
  note: (text: string) => void,
): Promise<GpuSummary | undefined> {
  if (!recorder) return undefined;
  const gpu = await recorder.finish();
  const text = recorder.note();
  if (text) note(text);
  return gpu;
}

/** Runs one benchmark and writes its result directory; see the module comment. */
export async function runBenchmark(config: BenchmarkConfig, io: BenchmarkIo): Promise<BenchmarkResult> {
  const note = (text: string) => {
    if (!io.quiet) io.stderr?.write(`${text}\n`);
  };
  checkWorkers(config);
  const runId = randomBytes(4).toString('hex');
  const virtual = config.sim?.timeMode === 'virtual' && config.url === undefined;
  checkShardedRun(config, virtual);
  // The result folder is checked (created, written, fsync'd) before anything reaches the server.
  const dir = await prepareRunDir(config, io, runId);
  // A write that fails mid-run stops the load (output.signal) and the summary is still saved.
  const output = new RunOutput(dir, io.signal);
  const target = await prepareTarget({
    url: config.url,
    model: config.model,
    api: config.api,
    apiKey: config.apiKey,
    seed: config.seed,
    sim: config.sim,
    note,
    signal: io.signal,
    headers: config.headers,
    secrets: config.secrets,
  });
  let transport: Transport | undefined;
  let recorder: ServerMetricsRecorder | undefined;
  let gpuRecorder: GpuMetricsRecorder | undefined;
  let writer: JsonlWriter<RequestRecord> | undefined;
  let otlp: OtlpExport | undefined;
  try {
    const built = await buildRunWorkload(config, io.signal, note);
    // What the server says of itself, before the clock starts (after the workload: building it
    // can hold the event loop longer than the answers may take).
    const selfDescription = await describeRunTarget(config, target, io.signal);
    const { workload, tokenizer } = built;
    // A trace replay fills in its load (open loop, the trace's request count).
    const run: BenchmarkConfig = built.load === config.load ? config : { ...config, load: built.load };
    // What this process sends: the whole load, or its shard's share (in virtual time the engine
    // serves the whole workload, as a shared server serves every shard, and only the share is kept).
    const shard = config.shard;
    const split = shard !== undefined && !target.virtualProfile;
    const own = split ? { ...run, load: shardLoad(run.load, shard) } : run;
    const keep =
      shard !== undefined && !split
        ? (r: RequestRecord) => inShardRecord(r, run.load.warmup, shard)
        : undefined;
    // --workers: no more than the load this process runs can keep busy.
    const workers = target.virtualProfile ? 1 : effectiveWorkers(own.load, config.load.workers ?? 1);
    // --model against the server's list, while the connections open (a wrong id is refused, exit 2).
    const modelCheck =
      config.model !== undefined && !target.virtualProfile
        ? checkServedModel(target, {
            apiKey: config.apiKey,
            signal: io.signal,
            headers: config.headers,
            secrets: config.secrets,
          }).then(
            (r) => (r.note ? note(r.note) : undefined),
            (e: unknown) => e,
          )
        : undefined;
    const spans: Array<[number, number]> = [];
    const window = { first: Number.POSITIVE_INFINITY, last: Number.NEGATIVE_INFINITY };
    if (target.virtualProfile) {
      transport = createVirtualTransport(run, target.virtualProfile);
      note(`virtual time (${target.virtualProfile.id}): the load runs on the engine's simulated clock`);
    } else if (workers > 1) {
      transport = await openWorkerTransport(
        { run, own, shard: split ? shard : undefined },
        target,
        workers,
        io,
        note,
      );
    } else {
      transport = await openLiveTransport(own, target, tokenizer, io, note);
    }
    const modelProblem = await modelCheck;
    if (modelProblem) throw modelProblem;
    const { clock } = transport;
    const startedAt = new Date();
    note(`results: ${dir}`);
    const meta = buildRunMeta(run, target, workload.spec, { runId, startedAt, version: io.version });
    meta.target = { ...meta.target, selfDescription };
    if (io.command)
      meta.tool.command = redactCommandLine(io.command, [config.apiKey, ...(config.secrets ?? [])]);
    meta.load = { ...meta.load };
    if (workers > 1) meta.load.workers = workers;
    else delete meta.load.workers;
    if (shard) {
      meta.shard = { index: shard.index, count: shard.count };
      if (config.startAtMs !== undefined) meta.shard.startAt = new Date(config.startAtMs).toISOString();
    }
    const metrics = transport.metrics;
    const requestsPath = join(dir, RESULT_FILES.requests);
    const out = new JsonlWriter<RequestRecord>(
      requestsPath,
      {
        schemaVersion: SCHEMA_VERSION,
        kind: 'goodput.requests',
        runId,
        startedAt: meta.startedAt,
        run: rebuildInfo(meta, run, metrics?.url ? redactUrl(metrics.url) : undefined),
      },
      { onError: output.onWriteError(requestsPath) },
    );
    writer = out;
    if (metrics?.url) {
      recorder = startServerMetricsRecorder({
        metricsUrl: metrics.url,
        dir,
        runId,
        startedAt: meta.startedAt,
        clock,
        intervalMs: run.serverMetrics.intervalMs,
        baseline: metrics.baseline,
        ...metrics.sources,
        onWriteError: output.onWriteError(join(dir, RESULT_FILES.serverMetrics)),
      });
    }
    if (run.gpuMetricsUrl !== undefined && !target.virtualProfile) {
      gpuRecorder = startGpuMetricsRecorder({
        url: run.gpuMetricsUrl,
        shownUrl: redactUrl(run.gpuMetricsUrl),
        dir,
        runId,
        startedAt: meta.startedAt,
        clock,
        intervalMs: run.serverMetrics.intervalMs,
        onWriteError: output.onWriteError(join(dir, RESULT_FILES.gpuMetrics)),
      });
    }
    // OpenTelemetry: a sink after the measuring ones, exporting in the background, never failing the run.
    if (run.otlp) otlp = new OtlpExport(run.otlp, meta.tool.version);
    const t0Epoch = startedAt.getTime();
    const otlpSink = otlp?.sinkFor({
      model: meta.model,
      api: meta.target.api,
      baseUrl: target.baseUrl,
      epochMsAtZero: () => t0Epoch,
    });
    const accumulator = RunAccumulator.fromMeta(meta, {
      lateSendToleranceMs: LATE_SEND_TOLERANCE_MS,
      promptBuckets: run.promptBuckets,
    });
    // An explicit form wins over quiet (a sweep keeps its points' notes quiet but shows their progress).
    const shown = io.progress ?? (io.quiet ? 'none' : progressMode(undefined, io.stderr));
    const progress =
      shown === 'none' || !io.stderr
        ? undefined
        : new Progress(io.stderr, shown, own.load.requests, run.load.durationMs).start();
    // Diagnosis looks at a bounded uniform sample of the requests: memory stays flat on long runs.
    const observations = new Reservoir<RequestObservation>(
      MAX_DIAGNOSIS_OBSERVATIONS,
      (() => {
        const rng = createRng(run.seed).fork('diagnosis');
        return () => rng.next();
      })(),
    );
    const scraper = recorder;
    // --start-at, on this run's clock: the wall-clock instant as it stands now.
    const startAtMs =
      config.startAtMs === undefined ? undefined : clock.now() + (config.startAtMs - Date.now());
    if (startAtMs !== undefined && startAtMs < clock.now())
      note(
        `--start-at was ${(clock.now() - startAtMs).toFixed(0)} ms ago when the load was ready: it starts late (give a later instant)`,
      );
    const headers = new HeadersTally();
    const sinks: Array<RecordSinkFn | undefined> = [
      (record) => headers.add(record),
      (record) => out.write(record),
      (record) => accumulator.add(record),
      scraper && ((record) => scraper.observe(record)),
      (record) => {
        if (!record.warmup) observations.offer(() => observe(record));
      },
      progress && ((record) => progress.add(record)),
      io.onRecord,
      otlpSink,
      shard &&
        ((record) => {
          if (record.warmup) return;
          if (keep) spans.push([record.sentMs, record.endMs]);
          window.first = Math.min(window.first, record.firstSentMs ?? record.sentMs);
          window.last = Math.max(window.last, record.endMs);
        }),
    ];
    const result = transport.workers
      ? await transport.workers.pool.run({
          clock: transport.workers.clock,
          signal: output.signal,
          writer: out,
          onRecord: fanOut(sinks),
          ...(startAtMs !== undefined ? { startAtMs } : {}),
        })
      : await runPipeline({
          load: own.load,
          workItem: split ? shardItem(workload, run.load.warmup, shard) : (i) => workload.item(i),
          ...(workload.sessions
            ? {
                sessions: split
                  ? shardSessions(workload.sessions, run.load.warmup, shard)
                  : workload.sessions,
              }
            : {}),
          ...(split ? { stageUsers: Part.of(shard) } : {}),
          send: transport.send!,
          clock,
          signal: output.signal,
          writer: out,
          ...(startAtMs !== undefined ? { startAtMs } : {}),
          sinks: keep ? sinks.map((s) => s && ((r: RequestRecord) => keep(r) && s(r))) : sinks,
        });
    progress?.stop();
    if (otlp && run.otlp) {
      const undelivered = describeOtlpOutcome(await otlp.close(), redactUrl(run.otlp.metricsUrl));
      if (undelivered) note(`warning: ${undelivered}`);
    }

    const samples = recorder?.scraper.samples ?? [];
    const scraped = recorder ? await recorder.finish() : undefined;
    if (scraped?.scrapeFailures)
      note(`server metrics: ${scraped.scrapeFailures} scrape(s) failed (${recorder!.scraper.lastError})`);
    const recorded = recorder?.note();
    if (recorded) note(`server metrics: ${recorded}`);
    const gpu = await finishGpu(gpuRecorder, note);
    const server = withGpu(
      transport.server ? transport.server() : scraped && scraped.samples > 0 ? scraped : undefined,
      gpu,
    );
    const serverGeneratedTokens = transport.server
      ? server?.generatedTokens
      : recorder && server
        ? recorder.measuredGeneratedTokens(server)
        : undefined;
    const summary = accumulator.summarize(meta, {
      dropped: result.dropped,
      peakInFlight: keep ? peakInFlight(spans) : result.peakInFlight,
      clientBound: result.clientBound,
      clientBoundReason: result.clientBoundReason,
      interrupted: result.interrupted,
      server,
      serverGeneratedTokens,
    });
    if (transport.connectionWarmup) summary.load.connectionWarmup = transport.connectionWarmup;
    if (transport.client && transport.plan) {
      summary.load.connections = connectionUse({
        plan: transport.plan,
        stats: transport.client.connectionStats(),
        ...(transport.connectionWarmup ? { warmup: transport.connectionWarmup } : {}),
        peakInFlight: summary.load.peakInFlight,
        headers,
      });
      const limited = describeServerConnections(summary.load.connections, transport.connectionWarmup);
      if (limited)
        note(`${limited}; raise the server's HTTP threads (llama.cpp: --threads-http) or lower the load`);
    }
    if (shard && window.first <= window.last) {
      const at = (ms: number) => Math.round((ms - result.measuredStartMs) * 1000) / 1000;
      summary.load.shardWindow = { firstSendMs: at(window.first), lastEndMs: at(window.last) };
    }
    if (result.startSkewMs !== undefined) {
      summary.load.startSkewMs = Math.round(result.startSkewMs * 1000) / 1000;
      note(
        `start skew: ${summary.load.startSkewMs >= 0 ? '+' : ''}${summary.load.startSkewMs.toFixed(1)} ms after --start-at`,
      );
    }
    if (result.stages) summary.load.stages = result.stages;
    const efficiency = efficiencyOf(summary, run.efficiency ?? {});
    if (efficiency) summary.efficiency = efficiency;
    recorder = undefined;
    const findings = diagnose({ observations: observations.items, samples, summary });
    if (findings.length > 0) summary.diagnosis = findings;
    await output.close(out);
    writer = undefined;
    await output.finish(summary);
    return { summary, dir };
  } finally {
    await otlp?.close();
    await recorder?.finish().catch(() => undefined);
    await gpuRecorder?.finish().catch(() => undefined);
    await writer?.close().catch(() => undefined);
    await transport?.client?.close().catch(() => undefined);
    await transport?.workers?.pool.close().catch(() => undefined);
    await target.close().catch(() => undefined);
  }
}
