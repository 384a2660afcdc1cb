/**
 * runBenchmark: one whole run. Starts the embedded engine when there is no URL, finds the
 * model, builds the workload, opens connections before the clock starts, runs the load with
 * records streaming to requests.jsonl and into the accumulator, scrapes server metrics,
 * and writes summary.json. Returns the summary and the result directory.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { type Client, createClient, listModels, WARMUP_BUDGET_MS } from '../client/index.js';
import { redactUrl } from '../config/index.js';
import { diagnose, observe, type RequestObservation } from '../diagnosis/index.js';
import { GoodputError } from '../errors.js';
import { RunAccumulator } from '../metrics/index.js';
import { JsonlWriter, RESULT_FILES } from '../results/index.js';
import {
  chooseMetricsUrl,
  type ServerMetricsRecorder,
  startServerMetricsRecorder,
} from '../server-metrics/index.js';
import { type EmbeddedSim, startEmbeddedSim } from '../sim/index.js';
import {
  type ConnectionWarmup,
  type RequestRecord,
  type RunMeta,
  type RunSummary,
  SCHEMA_VERSION,
  type TargetInfo,
} from '../types.js';
import { makeRedactor } from '../util/index.js';
import { createRng } from '../workload/index.js';
import type { BenchmarkConfig } from './config.js';
import { LATE_SEND_TOLERANCE_MS, runLoad } from './load.js';
import { RunOutput } from './output.js';
import { ProgressBar, type ProgressStream } from './progress.js';
import { Reservoir } from './reservoir.js';
import { buildRunWorkload, prepareRunDir, rebuildInfo } from './run-workload.js';
import { RunClock } from './timer.js';
import { runVirtualBenchmark } from './virtual.js';

/** Requests diagnosis looks at (a uniform sample beyond this): enough for its time slices, flat in memory. */
export const MAX_DIAGNOSIS_OBSERVATIONS = 10_000;

export interface BenchmarkIo {
  /** Notes (result directory, embedded engine) and the progress bar (when a TTY). */
  stderr?: ProgressStream;
  /** Aborting it stops the load, interrupts in-flight requests and still writes the results. */
  signal?: AbortSignal;
  /** Base of the default result directory. */
  cwd: string;
  /** No notes, no progress bar. */
  quiet?: boolean;
  /** Tool version recorded in the summary. */
  version?: string;
  /** Called with every record (warmup included) as it completes. */
  onRecord?: (record: RequestRecord) => void;
}

export interface BenchmarkResult {
  summary: RunSummary;
  /** The result directory (summary.json, requests.jsonl, server-metrics.jsonl). */
  dir: string;
}

async function pickModel(baseUrl: string, config: BenchmarkConfig, signal?: AbortSignal): Promise<string> {
  // Bounded in bytes and time (listModels' defaults) and stopped by Ctrl-C.
  const models = await listModels(baseUrl, config.apiKey, {
    headers: config.headers,
    secrets: config.secrets,
    ...(signal ? { signal } : {}),
  });
  const first = models[0];
  if (first === undefined) {
    throw new GoodputError(
      'E_NO_MODEL',
      `GET ${baseUrl}/v1/models returned no model`,
      'pass --model with the id the server serves',
    );
  }
  // The id is a server string that would be stored and printed everywhere: a server that
  // echoes the key (or a secret header) there must not get it into the results.
  if (makeRedactor([config.apiKey, ...(config.secrets ?? [])])(first) !== first) {
    throw new GoodputError(
      'E_NO_MODEL',
      `the first model id from GET ${baseUrl}/v1/models contains (part of) the API key or a secret header; it is not used`,
      'pass --model with the id the server serves, and check the server or gateway that echoes the key',
    );
  }
  return first;
}

/** A note when the connection warm-up did not open every connection, else undefined. */
export function describeConnectionWarmup(w: ConnectionWarmup): string | undefined {
  if (!w.reason) return undefined;
  const why = {
    budget: `the server did not answer GET /v1/models within ${w.ms} ms`,
    aborted: 'the run was stopped',
    errors: 'GET /v1/models failed',
  }[w.reason];
  return `connection warm-up: ${w.ok} of ${w.requested} connections ready (${why}); the others connect during the load, their set-up counted in TTFT`;
}

/** Runs one benchmark and writes its result directory; see the module comment. */
export async function runBenchmark(config: BenchmarkConfig, io: BenchmarkIo): Promise<BenchmarkResult> {
  const note = (text: string) => {
    if (!io.quiet) io.stderr?.write(`${text}\n`);
  };
  if (config.sim?.timeMode === 'virtual') return runVirtualBenchmark(config, io);
  const runId = randomBytes(4).toString('hex');
  const clock = new RunClock();
  // The result folder is checked (created, written, fsync'd) before anything reaches the server.
  const dir = await prepareRunDir(config, io, runId);
  // A write that fails mid-run stops the load (output.signal) and the summary is still saved.
  const output = new RunOutput(dir, io.signal);
  let sim: EmbeddedSim | undefined;
  let recorder: ServerMetricsRecorder | undefined;
  let writer: JsonlWriter<RequestRecord> | undefined;
  let client: Client | undefined;
  try {
    if (config.url === undefined) {
      sim = await startEmbeddedSim({
        host: '127.0.0.1',
        port: 0,
        seed: config.seed,
        profile: config.sim?.profile,
      });
      note(
        `embedded engine: ${sim.url} (${sim.profileId}${sim.isolated ? ', own thread' : ''}), model ${sim.model}`,
      );
    }
    const baseUrl = config.url ?? sim!.url;
    const model = config.model ?? (await pickModel(baseUrl, config, io.signal));

    const { workload, tokenizer } = await buildRunWorkload(config);

    const target: TargetInfo = { baseUrl: redactUrl(baseUrl), api: config.api, embedded: sim !== undefined };
    if (sim) {
      target.timeMode = 'live';
      target.simProfile = sim.profileId;
    }
    const width = config.load.concurrency ?? config.load.maxConcurrency ?? 64;
    client = createClient(
      {
        baseUrl,
        api: config.api,
        model,
        apiKey: config.apiKey,
        headers: config.headers,
        secrets: config.secrets,
        extraBody: config.extraBody,
        timeoutMs: config.load.timeoutMs,
        ttftTimeoutMs: config.load.ttftTimeoutMs,
        maxRetries: config.load.maxRetries,
        connections: config.load.mode === 'closed' ? width : config.load.maxConcurrency,
        sampling: config.sampling,
        countTokens: (text) => tokenizer.count(text),
      },
      clock,
    );
    // Server metrics: probe (and take the counters' baseline) before the clock starts.
    const metrics = await chooseMetricsUrl(config.serverMetrics, baseUrl);
    if (metrics.note) note(metrics.note);
    // Open the connections first, then start the clock: TCP set-up is not charged to TTFT.
    // Bounded (a server that never answers, Ctrl-C, a short --duration): the load starts anyway.
    const connectionWarmup = await client.warmup(Math.min(width, 256), {
      budgetMs: Math.min(WARMUP_BUDGET_MS, config.load.durationMs ?? Number.POSITIVE_INFINITY),
      signal: io.signal,
    });
    const warmupNote = describeConnectionWarmup(connectionWarmup);
    if (warmupNote) note(warmupNote);
    clock.reset();
    const startedAt = new Date();

    const meta: RunMeta = {
      tool: { name: 'goodput', version: io.version ?? '0.0.0' },
      runId,
      startedAt: startedAt.toISOString(),
      target,
      model,
      sampling: config.sampling,
      workload: workload.spec,
      load: config.load,
      slo: config.slo,
      seed: config.seed,
    };
    if (config.labels) meta.labels = config.labels;

    note(`results: ${dir}`);
    const requestsPath = join(dir, RESULT_FILES.requests);
    writer = new JsonlWriter<RequestRecord>(
      requestsPath,
      {
        schemaVersion: SCHEMA_VERSION,
        kind: 'goodput.requests',
        runId,
        startedAt: startedAt.toISOString(),
        run: rebuildInfo(meta, config, metrics.url ? redactUrl(metrics.url) : undefined),
      },
      { onError: output.onWriteError(requestsPath) },
    );
    if (metrics.url) {
      recorder = startServerMetricsRecorder({
        metricsUrl: metrics.url,
        dir,
        runId,
        startedAt: startedAt.toISOString(),
        clock,
        intervalMs: config.serverMetrics.intervalMs,
        baseline: metrics.baseline,
        onWriteError: output.onWriteError(join(dir, RESULT_FILES.serverMetrics)),
      });
    }

    const accumulator = RunAccumulator.fromMeta(meta, {
      lateSendToleranceMs: LATE_SEND_TOLERANCE_MS,
      promptBuckets: config.promptBuckets,
    });
    const progress =
      !io.quiet && ProgressBar.wanted(io.stderr)
        ? new ProgressBar(io.stderr, config.load.requests, config.load.durationMs)
        : undefined;
    const sink = writer;
    // Diagnosis looks at a bounded uniform sample of the requests: memory stays flat on long runs.
    const observations = new Reservoir<RequestObservation>(
      MAX_DIAGNOSIS_OBSERVATIONS,
      (() => {
        const rng = createRng(config.seed).fork('diagnosis');
        return () => rng.next();
      })(),
    );
    let draining: Promise<void> | undefined;
    const result = await runLoad({
      load: config.load,
      workItem: (i) => workload.item(i),
      send: (item, opts) => client!.send(item, opts),
      clock,
      signal: output.signal,
      backpressure: () => {
        if (!sink.backlogged) return undefined;
        // One shared wait, however many workers are blocked on it.
        draining ??= sink.drained().finally(() => {
          draining = undefined;
        });
        return draining;
      },
      onRecord: (record) => {
        sink.write(record);
        accumulator.add(record);
        recorder?.observe(record);
        if (!record.warmup) observations.offer(() => observe(record));
        progress?.add(record);
        io.onRecord?.(record);
      },
    });
    progress?.finish();

    const samples = recorder?.scraper.samples ?? [];
    const scraped = recorder ? await recorder.finish() : undefined;
    if (scraped?.scrapeFailures)
      note(`server metrics: ${scraped.scrapeFailures} scrape(s) failed (${recorder!.scraper.lastError})`);
    const server = scraped && scraped.samples > 0 ? scraped : undefined;
    const summary = accumulator.summarize(meta, {
      dropped: result.dropped,
      peakInFlight: result.peakInFlight,
      clientBound: result.clientBound,
      clientBoundReason: result.clientBoundReason,
      interrupted: result.interrupted,
      server,
      serverGeneratedTokens: server ? recorder!.measuredGeneratedTokens(server) : undefined,
    });
    summary.load.connectionWarmup = connectionWarmup;
    recorder = undefined;
    const findings = diagnose({ observations: observations.items, samples, summary });
    if (findings.length > 0) summary.diagnosis = findings;
    await output.close(writer);
    writer = undefined;
    await output.finish(summary);
    return { summary, dir };
  } finally {
    await recorder?.finish().catch(() => undefined);
    await writer?.close().catch(() => undefined);
    await client?.close().catch(() => undefined);
    await sim?.close().catch(() => undefined);
  }
}
