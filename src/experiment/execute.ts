/**
 * runExperiment: every run of every configuration, in the experiment's order, each an ordinary
 * `runBenchmark` into `runs/<config>/run-<k>/`. Serve configurations get their server started
 * (once per visit, or per run with `restart: per-run`), described, cache-reset between runs and
 * stopped; embedded configurations run the simulated engine with their flags (virtual time when
 * asked: seconds per configuration). experiment.json is rewritten atomically after every change;
 * a server that does not come up fails only its configuration; Ctrl-C (the signal) stops the run
 * in flight, stops the server and leaves the experiment 'interrupted' for `--resume`.
 *
 * @module
 */

import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { GoodputError } from '../errors.js';
import { runBenchmark, unmeasurableError } from '../runner/index.js';
import { describeServer, redactDescription } from '../server-metrics/index.js';
import type { ExperimentConfiguration, ExperimentFile } from '../types.js';
import { resetCache } from './cache-reset.js';
import { configFileHashes } from './config-files.js';
import { sweepPidFile } from './pid-file.js';
import { embeddedDescription, runConfig } from './run-config.js';
import { type RunningServer, ServeFailure, startServer } from './serve.js';
import { sleepUnlessAborted as sleep } from './sleep.js';
import { EXPERIMENT_FILE, initialState, readState, reconcileForResume, writeState } from './state.js';
import type { ConfigurationSpec, ExperimentSpec, ServeTemplate } from './types.js';

type ServeStart = NonNullable<NonNullable<ExperimentConfiguration['serve']>['starts']>[number];

export interface ExperimentIo {
  /** Notes and one line per run. */
  stderr?: { write(chunk: string): unknown; isTTY?: boolean };
  /** Aborting it (Ctrl-C, SIGTERM) stops the run in flight and the server; the experiment is left 'interrupted'. */
  signal?: AbortSignal;
  cwd: string;
  /** No notes. */
  quiet?: boolean;
  /** Tool version recorded in each run's summary. */
  version?: string;
  /** Continue the experiment in `spec.dir` (same plan) instead of starting one. */
  resume?: boolean;
  /** Start over in a folder that holds an earlier experiment (its runs and logs are removed). */
  force?: boolean;
}

export interface ExperimentResult {
  state: ExperimentFile;
  dir: string;
  /** What the user should know (a swept orphan server, failed configurations). */
  notes: string[];
}

/** The state to run from: a fresh one, or the interrupted one of `--resume`. */
function openState(spec: ExperimentSpec, io: ExperimentIo, note: (t: string) => void): ExperimentFile {
  if (io.resume) {
    const state = readState(spec.dir);
    if (state.planSha256 !== spec.planSha256) {
      throw new GoodputError(
        'E_USAGE',
        `the plan changed since the experiment in ${spec.dir} started (sha256 ${state.planSha256.slice(0, 12)}…, now ${spec.planSha256.slice(0, 12)}…)`,
        'resume with the plan as it was, or start a new experiment in another folder (output: or --out)',
      );
    }
    const left = reconcileForResume(spec.dir, state);
    note(`resuming ${spec.dir}: ${left} run(s) left, finished runs kept`);
    return state;
  }
  const existing = join(spec.dir, EXPERIMENT_FILE);
  if (existsSync(existing)) {
    if (!io.force) {
      throw new GoodputError(
        'E_USAGE',
        `${existing} already holds an experiment`,
        'continue it with --resume, start over with --force, or choose another folder (output: or --out)',
      );
    }
    for (const sub of ['runs', 'logs', EXPERIMENT_FILE])
      rmSync(join(spec.dir, sub), { recursive: true, force: true });
  }
  return initialState(spec);
}

/** Marks a configuration failed, with its pending runs. */
function failConfiguration(conf: ExperimentConfiguration, f: ServeFailure | GoodputError): void {
  conf.status = 'failed';
  conf.failure = {
    code: f.code,
    message: f.message,
    hint: f.hint,
    ...(f instanceof ServeFailure && f.logTail ? { logTail: f.logTail } : {}),
  };
  for (const r of conf.runs) {
    if (r.status === 'pending') {
      r.status = 'failed';
      r.error = { code: f.code, message: f.message };
    }
  }
}

/** A configuration's status from its runs (a failed configuration stays failed). */
function settle(conf: ExperimentConfiguration): void {
  if (conf.status === 'failed' && conf.failure) return;
  if (conf.runs.some((r) => r.status === 'pending')) conf.status = 'pending';
  else conf.status = conf.runs.some((r) => r.status === 'ok') ? 'ok' : 'failed';
}

type ExperimentRun = ExperimentConfiguration['runs'][number];

/** What every step of an experiment shares: the plan, the state it writes, where notes go, the server up. */
interface ExperimentContext {
  spec: ExperimentSpec;
  io: ExperimentIo;
  state: ExperimentFile;
  dir: string;
  signal: AbortSignal | undefined;
  /** The measurement's headers, with its key as a bearer token: what a server is described with. */
  headers: Record<string, string>;
  /** Redacted from a server's description. */
  secrets: Array<string | undefined>;
  /** Rewrites experiment.json. */
  save(): void;
  /** A line on stderr (unless quiet). */
  say(text: string): void;
  /** A line on stderr that is also returned in the result's notes. */
  note(text: string): void;
  /** The serve configuration's server that is up: at most one at a time. */
  current: { ci: number; server: RunningServer } | undefined;
}

/** Where a run goes: its URL (none for an embedded engine), the server's port, whether the server just started. */
interface RunTarget {
  url: string | undefined;
  port: number | undefined;
  fresh: boolean;
}

/** Runs the experiment; see the module comment. Throws only for what stops the whole experiment. */
export async function runExperiment(spec: ExperimentSpec, io: ExperimentIo): Promise<ExperimentResult> {
  const notes: string[] = [];
  const say = (text: string) => {
    if (!io.quiet) io.stderr?.write(`${text}\n`);
  };
  const note = (text: string) => {
    notes.push(text);
    say(text);
  };
  if (spec.configurations.length === 0)
    throw new GoodputError(
      'E_CONFIG',
      'the experiment has no configuration',
      'add configurations: or grid: to the plan',
    );
  mkdirSync(join(spec.dir, 'runs'), { recursive: true });
  mkdirSync(join(spec.dir, 'logs'), { recursive: true });
  // A server left running by a goodput that was killed (SIGKILL) is stopped before anything starts.
  const swept = await sweepPidFile(spec.dir);
  if (swept) note(swept);
  const state = openState(spec, io, note);
  const dir = spec.dir;
  const save = () => writeState(dir, state);
  save();

  const m = spec.measurement;
  const headers: Record<string, string> = { ...m.headers };
  if (m.apiKey) headers.authorization = `Bearer ${m.apiKey}`;
  const ctx: ExperimentContext = {
    spec,
    io,
    state,
    dir,
    signal: io.signal,
    headers,
    secrets: [m.apiKey, ...(m.secrets ?? [])],
    save,
    say,
    note,
    current: undefined,
  };
  let lastSave: unknown;
  try {
    await runPendingRuns(ctx);
  } finally {
    lastSave = await closeExperiment(ctx);
  }
  if (lastSave !== undefined) throw lastSave;
  return { state, dir, notes };
}

/** Every pending run in the experiment's order, until the runs are done or the signal aborts. */
async function runPendingRuns(ctx: ExperimentContext): Promise<void> {
  const { spec, state, signal } = ctx;
  const slots = state.configurations
    .flatMap((conf, ci) => conf.runs.map((run) => ({ ci, run })))
    .sort((a, b) => a.run.order - b.run.order);
  const total = slots.length;
  for (let s = 0; s < slots.length; s++) {
    const { ci, run } = slots[s]!;
    const conf = state.configurations[ci]!;
    const c = spec.configurations[ci]!;
    if (run.status !== 'pending' || conf.status === 'failed') continue;
    if (signal?.aborted) break;
    const target = await targetOf(ctx, ci);
    if (target === 'aborted') break;
    if (target === 'failed') continue;
    const server = await describedServer(ctx, conf, c, target.url);
    if (target.url !== undefined && !target.fresh) {
      const reset = await resetCache(spec.cacheReset, target.url, {
        engine: server.engine,
        ...(target.port !== undefined ? { port: target.port } : {}),
        ...(signal ? { signal } : {}),
      });
      if (reset) run.cacheReset = reset;
    }
    const outcome = await benchmarkRun(ctx, conf, c, run, target.url);
    if (outcome === 'interrupted') {
      // Left pending: --resume redoes it from an empty folder.
      ctx.save();
      break;
    }
    run.status = outcome;
    run.endedAt = new Date().toISOString();
    ctx.save();
    ctx.say(
      `[${s + 1}/${total}] ${conf.name} run ${run.repeat + 1}: ${outcome}${run.error ? ` (${run.error.message})` : ''}`,
    );
    const next = slots
      .slice(s + 1)
      .find((x) => x.run.status === 'pending' && state.configurations[x.ci]!.status !== 'failed');
    if (ctx.current && (spec.restart === 'per-run' || next?.ci !== ci)) await stopCurrentServer(ctx);
    if (next && spec.cooldownMs > 0) await sleep(spec.cooldownMs, signal);
  }
}

/**
 * Where configuration `ci`'s next run goes. A serve configuration reuses the server up (its own,
 * alive, and `restart: per-config`) or starts one: 'failed' when it does not come up (the
 * configuration is failed), 'aborted' when the signal stopped it. Any other stops the server up.
 */
async function targetOf(ctx: ExperimentContext, ci: number): Promise<RunTarget | 'failed' | 'aborted'> {
  const c = ctx.spec.configurations[ci]!;
  if (c.target.kind !== 'serve') {
    await stopCurrentServer(ctx);
    return { url: c.target.kind === 'url' ? c.target.url : undefined, port: undefined, fresh: false };
  }
  if (ctx.current && (ctx.current.ci !== ci || ctx.spec.restart === 'per-run' || ctx.current.server.exited()))
    await stopCurrentServer(ctx);
  if (ctx.current) return { url: ctx.current.server.url, port: ctx.current.server.port, fresh: false };
  const conf = ctx.state.configurations[ci]!;
  try {
    const server = await startConfigurationServer(ctx, conf, c.target.serve, c.params);
    ctx.current = { ci, server };
    ctx.say(
      `${conf.name}: server up on port ${server.port} in ${(server.startupMs / 1000).toFixed(1)} s (pid ${server.pid})`,
    );
    return { url: server.url, port: server.port, fresh: true };
  } catch (e) {
    if (!(e instanceof ServeFailure)) throw e;
    if (ctx.signal?.aborted) return 'aborted';
    failConfiguration(conf, e);
    ctx.save();
    ctx.note(`${conf.name}: failed (${e.message}); the experiment goes on without it`);
    return 'failed';
  }
}

/**
 * Starts a serve configuration's server. experiment.json records its command (with the hashes
 * of the config files it names) and every start: pid, start-up time, and how and when it stopped.
 */
async function startConfigurationServer(
  ctx: ExperimentContext,
  conf: ExperimentConfiguration,
  template: ServeTemplate,
  params: ConfigurationSpec['params'],
): Promise<RunningServer> {
  const { dir, signal, save } = ctx;
  let start: ServeStart | undefined;
  const server = await startServer({
    configuration: conf.name,
    template,
    params,
    dir,
    logPath: join(dir, conf.log ?? join('logs', `${conf.slug}.log`)),
    ...(signal ? { signal } : {}),
    onCommand: (argv, p, health) => {
      const starts = conf.serve?.starts ?? [];
      conf.serve = {
        argv,
        cwd: template.cwd,
        envNames: Object.keys(template.env),
        health,
        port: p,
        starts,
      };
      const files = configFileHashes(argv, template.cwd);
      if (files.length > 0) conf.configFiles = files;
      save();
    },
    onSpawn: (pid) => {
      start = { pid, startedAt: new Date().toISOString() };
      conf.serve?.starts?.push(start);
      save();
    },
    onStop: (how, ms) => {
      if (!start) return;
      start.stoppedAt = new Date().toISOString();
      start.stopMs = Math.round(ms);
      start.stop = how;
      save();
    },
  });
  if (start) start.startupMs = Math.round(server.startupMs);
  return server;
}

/** What a configuration's target says of itself, asked once, before its first run (an embedded engine: from its flags). */
async function describedServer(
  ctx: ExperimentContext,
  conf: ExperimentConfiguration,
  c: ConfigurationSpec,
  url: string | undefined,
): Promise<NonNullable<ExperimentConfiguration['server']>> {
  if (conf.server === undefined) {
    const { spec, io, signal } = ctx;
    const m = spec.measurement;
    conf.server =
      c.target.kind === 'embedded'
        ? embeddedDescription(c, spec, io.version)
        : redactDescription(
            await describeServer(url!, {
              headers: ctx.headers,
              ...(m.gpuMetricsUrl ? { gpuMetricsUrl: m.gpuMetricsUrl } : {}),
              ...(signal ? { signal } : {}),
            }),
            ctx.secrets,
          );
  }
  return conf.server;
}

/**
 * One run's benchmark into its folder: 'ok', 'failed' (with the run's error) or 'interrupted'.
 * An embedded engine that refuses its flags fails its configuration.
 */
async function benchmarkRun(
  ctx: ExperimentContext,
  conf: ExperimentConfiguration,
  c: ConfigurationSpec,
  run: ExperimentRun,
  url: string | undefined,
): Promise<'ok' | 'failed' | 'interrupted'> {
  const { spec, io, signal } = ctx;
  run.startedAt = new Date().toISOString();
  delete run.error;
  ctx.save();
  const outDir = join(ctx.dir, run.dir);
  try {
    const { summary } = await runBenchmark(runConfig(spec, c, url, outDir, run.repeat), {
      ...(io.stderr ? { stderr: io.stderr } : {}),
      ...(signal ? { signal } : {}),
      cwd: io.cwd,
      quiet: true,
      ...(io.version ? { version: io.version } : {}),
    });
    const unmeasurable = unmeasurableError(summary, outDir);
    if (signal?.aborted) return 'interrupted';
    if (unmeasurable) {
      run.error = { code: unmeasurable.code, message: unmeasurable.message };
      return 'failed';
    }
    return 'ok';
  } catch (e) {
    if (signal?.aborted) return 'interrupted';
    const err =
      e instanceof GoodputError ? e : new GoodputError('E_INTERNAL', (e as Error).message, 'report this');
    run.error = { code: err.code, message: err.message };
    // The embedded engine refused its flags: as a server that does not start, the configuration fails.
    if (c.target.kind === 'embedded' && err.code === 'E_SIM') failConfiguration(conf, err);
    return 'failed';
  }
}

/** Stops the server up, if any. */
async function stopCurrentServer(ctx: ExperimentContext): Promise<void> {
  const c = ctx.current;
  ctx.current = undefined;
  await c?.server.stop();
}

/**
 * However the runs ended: the server stopped, every configuration's status settled, the
 * experiment 'done' or 'interrupted', and experiment.json saved. Returns the save's failure
 * instead of throwing it: runExperiment throws it when nothing else stopped the experiment
 * (else that error is the one to report).
 */
async function closeExperiment(ctx: ExperimentContext): Promise<unknown> {
  const { state, signal } = ctx;
  await stopCurrentServer(ctx).catch(() => undefined);
  for (const conf of state.configurations) settle(conf);
  const left = state.configurations.some((conf) => conf.runs.some((r) => r.status === 'pending'));
  state.status = left || signal?.aborted ? 'interrupted' : 'done';
  try {
    ctx.save();
  } catch (e) {
    return e;
  }
  return undefined;
}
