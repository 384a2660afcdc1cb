/**
 * runBenchmark: one whole run, live or virtual time: target (URL or embedded engine, model:
 * `prepareTarget`) → plan (the workload and what this process sends of it: `buildPlan`) →
 * transport (a live client, load workers, or the engine in-process on its simulated clock,
 * opened before the clock starts) → `transport.run` with records flowing to the run's sinks
 * (`Recording`: requests.jsonl, accumulator, server-metrics and GPU recorders, diagnosis
 * sample, progress) → summarise and diagnose → summary.json. Returns the summary and the
 * result directory.
 *
 * File descriptors: requests.jsonl is opened before the connections and the connections are
 * closed before summary.json is written, so a load that takes every descriptor costs neither
 * (the live transport also holds its pool within the limit); a run that still runs out fails
 * with E_FD_LIMIT naming `ulimit -n` and the load, never as a bug.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { closeSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { redactCommandLine, redactUrl } from '../config/index.js';
import { GoodputError, isGoodputError, outOfFilesError } from '../errors.js';
import { RESULT_FILES } from '../results/index.js';
import { chooseMetricsUrl } from '../server-metrics/index.js';
import type { LoadClock, LoadSpec } from '../types.js';
import { outOfFilesCode, readOpenFilesLimit } from '../util/index.js';
import type { BenchmarkConfig } from './config.js';
import { describeRunTarget } from './describe.js';
import { type BenchmarkIo, type BenchmarkResult, noter } from './io.js';
import { RunOutput } from './output.js';
import { buildRunMeta } from './pipeline.js';
import { buildPlan, type LoadPlan } from './plan.js';
import { type MetricsProbe, openRecordsFile, Recording } from './recording.js';
import { prepareRunDir } from './run-workload.js';
import { checkShard } from './sharding/shard.js';
import { checkServedModel, type PreparedTarget, prepareTarget } from './target.js';
import { openLiveTransport } from './transport/live.js';
import type { Transport } from './transport/types.js';
import { openWorkerTransport } from './transport/workers.js';
import { checkWorkers } from './workers/config.js';

/** Runs one benchmark and writes its result directory; see the module comment. */
export async function runBenchmark(config: BenchmarkConfig, io: BenchmarkIo): Promise<BenchmarkResult> {
  const note = noter(io);
  const virtual = config.sim?.timeMode === 'virtual' && config.url === undefined;
  checkRun(config, virtual);
  const runId = randomBytes(4).toString('hex');
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
  let recording: Recording | undefined;
  let recordsFd: number | undefined;
  try {
    const plan = await buildPlan(config, target.virtualProfile !== undefined, io.signal, note);
    // What the server says of itself, before the clock starts (after the workload: building it
    // can hold the event loop longer than the answers may take), while the connections open.
    const selfDescription = describeRunTarget(config, target, io.signal);
    // --model against the server's list, while the connections open (a wrong id is refused, exit 2).
    const modelCheck = checkModel(config, target, io, note);
    // Server metrics: probe (and take the counters' baseline) before the clock starts.
    const metrics: MetricsProbe = target.virtualProfile
      ? {}
      : await chooseMetricsUrl({ ...config.serverMetrics, shown: redactUrl }, target.baseUrl);
    if (metrics.note) note(metrics.note);
    recordsFd = openRecordsFile(dir);
    transport = await openTransport(plan, target, io.signal, note);
    const modelProblem = await modelCheck;
    if (modelProblem) throw modelProblem;
    note(`results: ${dir}`);
    const meta = runMeta(plan, target, runId, io);
    meta.target = { ...meta.target, selfDescription: await selfDescription };
    const { clock } = transport;
    recording = new Recording({
      plan,
      meta,
      dir,
      output,
      clock,
      metrics,
      baseUrl: target.baseUrl,
      virtual: !!target.virtualProfile,
      io,
      recordsFd,
    });
    const startAtMs = startInstant(config, clock, note);
    const result = await transport.run(plan, {
      records: recording.sinks,
      writer: recording.writer,
      signal: output.signal,
      ...(startAtMs !== undefined ? { startAtMs } : {}),
    });
    const summary = await recording.summarise(result, note);
    await recording.close(output);
    // Every connection closed before summary.json takes a file descriptor.
    await transport.close();
    transport = undefined;
    await output.finish(summary);
    return { summary, dir };
  } catch (e) {
    throw outOfFiles(e, config.load, dir) ?? e;
  } finally {
    if (recordsFd !== undefined && !recording) dropRecordsFile(recordsFd, dir);
    await recording?.abandon();
    await transport?.close();
    await target.close().catch(() => undefined);
  }
}

/** Failed before the load (a refused --model): no empty records file is left behind. */
function dropRecordsFile(fd: number, dir: string): void {
  closeSync(fd);
  rmSync(join(dir, RESULT_FILES.requests), { force: true });
}

/** E_FD_LIMIT for a run that ran out of file descriptors where nothing classified it; else undefined. */
function outOfFiles(e: unknown, load: LoadSpec, dir: string): GoodputError | undefined {
  if (isGoodputError(e) || !outOfFilesCode(e)) return undefined;
  const openFiles = readOpenFilesLimit();
  const flag =
    load.mode === 'closed' && load.concurrency !== undefined
      ? `--concurrency ${load.concurrency}`
      : load.rate !== undefined && Number.isFinite(load.rate)
        ? `--rate ${load.rate}`
        : undefined;
  return outOfFilesError({
    what: e instanceof Error ? e.message : String(e),
    ...(openFiles !== undefined ? { openFiles } : {}),
    ...(flag ? { load: flag } : {}),
    saved: `what was measured is in ${join(dir, RESULT_FILES.requests)} (goodput summarize ${dir} rebuilds its summary)`,
    cause: e,
  });
}

/** `--workers`, `--shard` and `--start-at` refused before anything starts when they cannot work. */
function checkRun(config: BenchmarkConfig, virtual: boolean): void {
  checkWorkers(config);
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

/** The transport of the plan: the engine in-process (virtual time), load workers, or a live client. */
async function openTransport(
  plan: LoadPlan,
  target: PreparedTarget,
  signal: AbortSignal | undefined,
  note: (text: string) => void,
): Promise<Transport> {
  if (target.virtualProfile) {
    // Loaded here only: a live or --url run loads no simulator module (issue 30).
    const { openVirtualTransport } = await import('./transport/virtual.js');
    const transport = openVirtualTransport(plan.config, target.virtualProfile);
    note(`virtual time (${target.virtualProfile.id}): the load runs on the engine's simulated clock`);
    return transport;
  }
  if (plan.workers > 1) return openWorkerTransport(plan, target, signal, note);
  return openLiveTransport(plan, target, signal, note);
}

/** `--model` checked against the server's list (an error to throw once the transport is open), or undefined. */
function checkModel(
  config: BenchmarkConfig,
  target: PreparedTarget,
  io: BenchmarkIo,
  note: (text: string) => void,
): Promise<unknown> | undefined {
  if (config.model === undefined || target.virtualProfile) return undefined;
  return checkServedModel(target, {
    apiKey: config.apiKey,
    signal: io.signal,
    headers: config.headers,
    secrets: config.secrets,
  }).then(
    (r) => (r.note ? note(r.note) : undefined),
    (e: unknown) => e,
  );
}

/** The run's meta: the command line (redacted), its load workers and shard as run. */
function runMeta(plan: LoadPlan, target: PreparedTarget, runId: string, io: BenchmarkIo) {
  const { config } = plan;
  const meta = buildRunMeta(config, target, plan.workload.spec, {
    runId,
    startedAt: new Date(),
    version: io.version,
  });
  if (io.command)
    meta.tool.command = redactCommandLine(io.command, [config.apiKey, ...(config.secrets ?? [])]);
  meta.load = { ...meta.load };
  if (plan.workers > 1) meta.load.workers = plan.workers;
  else delete meta.load.workers;
  if (plan.shard) {
    meta.shard = { index: plan.shard.index, count: plan.shard.count };
    if (config.startAtMs !== undefined) meta.shard.startAt = new Date(config.startAtMs).toISOString();
  }
  return meta;
}

/** `--start-at` on the run's clock (the wall-clock instant as it stands now); a note when it has passed. */
function startInstant(
  config: BenchmarkConfig,
  clock: LoadClock,
  note: (text: string) => void,
): number | undefined {
  if (config.startAtMs === undefined) return undefined;
  const startAtMs = clock.now() + (config.startAtMs - Date.now());
  if (startAtMs < clock.now())
    note(
      `--start-at was ${(clock.now() - startAtMs).toFixed(0)} ms ago when the load was ready: it starts late (give a later instant)`,
    );
  return startAtMs;
}
