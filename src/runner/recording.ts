/**
 * Everything a run records while its load runs, and the summary made of it: requests.jsonl,
 * the accumulator, the server-metrics and GPU recorders, the diagnosis sample, the progress
 * bar, the caller's own sink and a shard's tally. `sinks` is the list the transport hands
 * every record to; `summarise` ends the recorders and turns the load's result into the
 * summary, diagnosis included.
 *
 * @module
 */

import { openSync } from 'node:fs';
import { join } from 'node:path';
import { redactUrl } from '../config/index.js';
import { diagnose } from '../diagnosis/index.js';
import { efficiencyOf, RunAccumulator } from '../metrics/index.js';
import { describeOtlpOutcome, OtlpExport } from '../otlp/index.js';
import { JsonlWriter, RESULT_FILES } from '../results/index.js';
import {
  type chooseMetricsUrl,
  type GpuMetricsRecorder,
  type ServerMetricsRecorder,
  startGpuMetricsRecorder,
  startServerMetricsRecorder,
  withGpu,
} from '../server-metrics/index.js';
import {
  type LoadClock,
  type RequestRecord,
  type RunMeta,
  type RunSummary,
  SCHEMA_VERSION,
} from '../types.js';
import { createRng } from '../workload/index.js';
import { describeServerConnections } from './connection-use.js';
import type { BenchmarkIo } from './io.js';
import { LATE_SEND_TOLERANCE_MS } from './load.js';
import { ObservationSample } from './observation-sample.js';
import type { RunOutput } from './output.js';
import type { RecordSinkFn } from './pipeline.js';
import type { LoadPlan } from './plan.js';
import { Progress, progressMode } from './progress.js';
import { rebuildInfo } from './run-workload.js';
import { ShardTally } from './sharding/tally.js';
import type { TransportResult } from './transport/types.js';

/** Requests diagnosis looks at (a uniform sample beyond this): enough for its time slices, flat in memory. */
export const MAX_DIAGNOSIS_OBSERVATIONS = 10_000;

/** The server metrics URL that answered, and its counters' baseline (none in virtual time). */
export type MetricsProbe = Partial<Awaited<ReturnType<typeof chooseMetricsUrl>>>;

export interface RecordingOptions {
  plan: LoadPlan;
  meta: RunMeta;
  dir: string;
  output: RunOutput;
  clock: LoadClock;
  /** Where requests go (the OpenTelemetry export names it). */
  baseUrl: string;
  metrics: MetricsProbe;
  /** Virtual time: no GPU exporter to scrape. */
  virtual: boolean;
  io: BenchmarkIo;
  /** requests.jsonl, opened before the connections (openRecordsFile). */
  recordsFd?: number;
}

/**
 * Opens DIR/requests.jsonl for the records. A run opens it before its connections: a load
 * that takes every file descriptor then cannot cost it the records.
 */
export function openRecordsFile(dir: string): number {
  return openSync(join(dir, RESULT_FILES.requests), 'w');
}

export class Recording {
  readonly writer: JsonlWriter<RequestRecord>;
  readonly sinks: ReadonlyArray<RecordSinkFn | undefined>;
  private recorder: ServerMetricsRecorder | undefined;
  private gpu: GpuMetricsRecorder | undefined;
  private readonly accumulator: RunAccumulator;
  private readonly progress: Progress | undefined;
  private readonly observations: ObservationSample;
  private readonly shard: ShardTally | undefined;
  private readonly otlp: OtlpExport | undefined;
  private closed = false;

  constructor(private readonly o: RecordingOptions) {
    const { plan, meta, dir, output, clock, io } = o;
    const run = plan.config;
    const metricsUrl = o.metrics.url;
    const requestsPath = join(dir, RESULT_FILES.requests);
    this.writer = new JsonlWriter<RequestRecord>(
      requestsPath,
      {
        schemaVersion: SCHEMA_VERSION,
        kind: 'goodput.requests',
        runId: meta.runId,
        startedAt: meta.startedAt,
        run: rebuildInfo(meta, run, metricsUrl ? redactUrl(metricsUrl) : undefined),
      },
      {
        onError: output.onWriteError(requestsPath),
        ...(o.recordsFd !== undefined ? { fd: o.recordsFd } : {}),
      },
    );
    const common = {
      dir,
      runId: meta.runId,
      startedAt: meta.startedAt,
      clock,
      intervalMs: run.serverMetrics.intervalMs,
    };
    if (metricsUrl) {
      this.recorder = startServerMetricsRecorder({
        ...common,
        metricsUrl,
        baseline: o.metrics.baseline,
        ...o.metrics.sources,
        onWriteError: output.onWriteError(join(dir, RESULT_FILES.serverMetrics)),
      });
    }
    if (run.gpuMetricsUrl !== undefined && !o.virtual) {
      this.gpu = startGpuMetricsRecorder({
        ...common,
        url: run.gpuMetricsUrl,
        shownUrl: redactUrl(run.gpuMetricsUrl),
        onWriteError: output.onWriteError(join(dir, RESULT_FILES.gpuMetrics)),
      });
    }
    // OpenTelemetry: a sink after the measuring ones, exporting in the background, never failing the run.
    if (run.otlp) this.otlp = new OtlpExport(run.otlp, meta.tool.version);
    this.accumulator = RunAccumulator.fromMeta(meta, {
      lateSendToleranceMs: LATE_SEND_TOLERANCE_MS,
      promptBuckets: run.promptBuckets,
      rehearseWarmup: meta.target.timeMode !== 'virtual',
    });
    // An explicit form wins over quiet (a sweep keeps its points' notes quiet but shows their progress).
    const shown = io.progress ?? (io.quiet ? 'none' : progressMode(undefined, io.stderr));
    this.progress =
      shown === 'none' || !io.stderr
        ? undefined
        : new Progress(io.stderr, shown, plan.load.requests, run.load.durationMs).start(io.progressEveryMs);
    // Diagnosis looks at a bounded uniform sample of the requests: memory stays flat on long runs.
    const rng = createRng(run.seed).fork('diagnosis');
    this.observations = new ObservationSample(MAX_DIAGNOSIS_OBSERVATIONS, () => rng.next());
    this.shard = plan.shard && new ShardTally(plan.shard, run.load.warmup, plan.split);
    this.sinks = this.list();
  }

  private list(): Array<RecordSinkFn | undefined> {
    const { writer, accumulator, recorder, observations, progress } = this;
    const sinks: Array<RecordSinkFn | undefined> = [
      (record) => writer.write(record),
      (record) => accumulator.add(record),
      recorder && ((record) => recorder.observe(record)),
      (record) => {
        if (!record.warmup) observations.offer(record);
      },
      progress && ((record) => progress.add(record)),
      this.o.io.onRecord,
      this.otlpSink(),
    ];
    return this.shard ? this.shard.sinks(sinks) : sinks;
  }

  private otlpSink(): RecordSinkFn | undefined {
    const { meta } = this.o;
    const t0Epoch = Date.parse(meta.startedAt);
    return this.otlp?.sinkFor({
      model: meta.model,
      api: meta.target.api,
      baseUrl: this.o.baseUrl,
      epochMsAtZero: () => t0Epoch,
    });
  }

  /** Ends the recorders and makes the run's summary of the transport's result; `note` says what fell short. */
  async summarise(result: TransportResult, note: (text: string) => void): Promise<RunSummary> {
    const { load } = result;
    this.progress?.stop();
    const otlpConfig = this.o.plan.config.otlp;
    if (this.otlp && otlpConfig) {
      const undelivered = describeOtlpOutcome(await this.otlp.close(), redactUrl(otlpConfig.metricsUrl));
      if (undelivered) note(`warning: ${undelivered}`);
    }
    const recorder = this.recorder;
    const samples = recorder?.scraper.samples ?? [];
    const scraped = recorder ? await recorder.finish() : undefined;
    if (scraped?.scrapeFailures)
      note(`server metrics: ${scraped.scrapeFailures} scrape(s) failed (${recorder!.scraper.lastError})`);
    const recorded = recorder?.note();
    if (recorded) note(`server metrics: ${recorded}`);
    const gpu = await this.finishGpu(note);
    const server = withGpu(result.server ?? (scraped && scraped.samples > 0 ? scraped : undefined), gpu);
    const summary = this.accumulator.summarize(this.o.meta, {
      dropped: load.dropped,
      peakInFlight: this.shard ? this.shard.peakInFlight(load.peakInFlight) : load.peakInFlight,
      clientBound: load.clientBound,
      clientBoundReason: load.clientBoundReason,
      interrupted: load.interrupted,
      server,
      ...(load.gcPauses ? { gcPauses: load.gcPauses } : {}),
      ...(load.startWindow ? { startWindow: load.startWindow } : {}),
      // The engine's own count, or the scraped counters' over the measured requests.
      serverGeneratedTokens: result.server
        ? server?.generatedTokens
        : recorder && server
          ? recorder.measuredGeneratedTokens(server)
          : undefined,
    });
    this.recorder = undefined;
    if (result.connectionWarmup) summary.load.connectionWarmup = result.connectionWarmup;
    if (result.connections) {
      summary.load.connections = result.connections(summary.load.peakInFlight);
      const limited = describeServerConnections(summary.load.connections, result.connectionWarmup);
      if (limited)
        note(`${limited}; raise the server's HTTP threads (llama.cpp: --threads-http) or lower the load`);
    }
    this.shard?.window(summary, load.measuredStartMs);
    if (load.startSkewMs !== undefined) {
      summary.load.startSkewMs = Math.round(load.startSkewMs * 1000) / 1000;
      note(
        `start skew: ${summary.load.startSkewMs >= 0 ? '+' : ''}${summary.load.startSkewMs.toFixed(1)} ms after --start-at`,
      );
    }
    if (load.stages) summary.load.stages = load.stages;
    const efficiency = efficiencyOf(summary, this.o.plan.config.efficiency ?? {});
    if (efficiency) summary.efficiency = efficiency;
    const findings = diagnose({ observations: this.observations.items(), samples, summary });
    if (findings.length > 0) summary.diagnosis = findings;
    return summary;
  }

  /** Ends the GPU recording: its summary, and a note when scrapes failed (never a failure of the run). */
  private async finishGpu(note: (text: string) => void) {
    const recorder = this.gpu;
    if (!recorder) return undefined;
    const gpu = await recorder.finish();
    const text = recorder.note();
    if (text) note(text);
    return gpu;
  }

  /** Closes requests.jsonl through the run's output (a failed write is the run's error). */
  async close(output: RunOutput): Promise<void> {
    await output.close(this.writer);
    this.closed = true;
  }

  /** Ends whatever is still recording (a run that failed before its summary). */
  async abandon(): Promise<void> {
    await this.otlp?.close();
    await this.recorder?.finish().catch(() => undefined);
    await this.gpu?.finish().catch(() => undefined);
    if (!this.closed) await this.writer.close().catch(() => undefined);
    this.closed = true;
  }
}
