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
import type { ExperimentSpec } from './types.js';

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

/** Runs the experiment; see the module comment. Throws only for what stops the whole experiment. */
export async function runExperiment(spec: ExperimentSpec, io: ExperimentIo): Promise<ExperimentResult> {
  const notes: string[] = [];
  const note = (text: string) => {
    notes.push(text);
    if (!io.quiet) io.stderr?.write(`${text}\n`);
  };
  const say = (text: string) => {
    if (!io.quiet) io.stderr?.write(`${text}\n`);
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
  const secrets = [m.apiKey, ...(m.secrets ?? [])];
  const headers: Record<string, string> = { ...m.headers };
  if (m.apiKey) headers.authorization = `Bearer ${m.apiKey}`;
  const slots = state.configurations
    .flatMap((conf, ci) => conf.runs.map((run) => ({ ci, run })))
    .sort((a, b) => a.run.order - b.run.order);
  const total = slots.length;
  let current: { ci: number; server: RunningServer; engine?: string } | undefined;
  const stopCurrent = async () => {
    const c = current;
    current = undefined;
    await c?.server.stop();
  };
  const signal = io.signal;
  let lastSave: unknown;
  try {
    for (let s = 0; s < slots.length; s++) {
      const { ci, run } = slots[s]!;
      const conf = state.configurations[ci]!;
      const c = spec.configurations[ci]!;
      if (run.status !== 'pending' || conf.status === 'failed') continue;
      if (signal?.aborted) break;
      let url: string | undefined;
      let fresh = false;
      let port: number | undefined;
      if (c.target.kind === 'serve') {
        if (current && (current.ci !== ci || spec.restart === 'per-run' || current.server.exited()))
          await stopCurrent();
        if (!current) {
          const template = c.target.serve;
          let start: ServeStart | undefined;
          try {
            const server = await startServer({
              configuration: conf.name,
              template,
              params: c.params,
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
            current = { ci, server };
            fresh = true;
            say(
              `${conf.name}: server up on port ${server.port} in ${(server.startupMs / 1000).toFixed(1)} s (pid ${server.pid})`,
            );
          } catch (e) {
            if (!(e instanceof ServeFailure)) throw e;
            if (signal?.aborted) break;
            failConfiguration(conf, e);
            save();
            note(`${conf.name}: failed (${e.message}); the experiment goes on without it`);
            continue;
          }
        }
        url = current.server.url;
        port = current.server.port;
      } else {
        await stopCurrent();
        if (c.target.kind === 'url') url = c.target.url;
      }
      if (conf.server === undefined) {
        conf.server =
          c.target.kind === 'embedded'
            ? embeddedDescription(c, spec, io.version)
            : redactDescription(
                await describeServer(url!, {
                  headers,
                  ...(m.gpuMetricsUrl ? { gpuMetricsUrl: m.gpuMetricsUrl } : {}),
                  ...(signal ? { signal } : {}),
                }),
                secrets,
              );
      }
      if (url !== undefined && !fresh) {
        const reset = await resetCache(spec.cacheReset, url, {
          engine: conf.server.engine,
          ...(port !== undefined ? { port } : {}),
          ...(signal ? { signal } : {}),
        });
        if (reset) run.cacheReset = reset;
      }
      run.startedAt = new Date().toISOString();
      delete run.error;
      save();
      const outDir = join(dir, run.dir);
      let outcome: 'ok' | 'failed' | 'interrupted';
      try {
        const { summary } = await runBenchmark(runConfig(spec, c, url, outDir, run.repeat), {
          ...(io.stderr ? { stderr: io.stderr } : {}),
          ...(signal ? { signal } : {}),
          cwd: io.cwd,
          quiet: true,
          ...(io.version ? { version: io.version } : {}),
        });
        const unmeasurable = unmeasurableError(summary, outDir);
        if (signal?.aborted) outcome = 'interrupted';
        else if (unmeasurable) {
          outcome = 'failed';
          run.error = { code: unmeasurable.code, message: unmeasurable.message };
        } else outcome = 'ok';
      } catch (e) {
        if (signal?.aborted) outcome = 'interrupted';
        else {
          const err =
            e instanceof GoodputError
              ? e
              : new GoodputError('E_INTERNAL', (e as Error).message, 'report this');
          outcome = 'failed';
          run.error = { code: err.code, message: err.message };
          // The embedded engine refused its flags: as a server that does not start, the configuration fails.
          if (c.target.kind === 'embedded' && err.code === 'E_SIM') failConfiguration(conf, err);
        }
      }
      if (outcome === 'interrupted') {
        // Left pending: --resume redoes it from an empty folder.
        save();
        break;
      }
      run.status = outcome;
      run.endedAt = new Date().toISOString();
      save();
      say(
        `[${s + 1}/${total}] ${conf.name} run ${run.repeat + 1}: ${outcome}${run.error ? ` (${run.error.message})` : ''}`,
      );
      const next = slots
        .slice(s + 1)
        .find((x) => x.run.status === 'pending' && state.configurations[x.ci]!.status !== 'failed');
      if (current && (spec.restart === 'per-run' || next?.ci !== ci)) await stopCurrent();
      if (next && spec.cooldownMs > 0) await sleep(spec.cooldownMs, signal);
    }
  } finally {
    await stopCurrent().catch(() => undefined);
    for (const conf of state.configurations) settle(conf);
    const left = state.configurations.some((conf) => conf.runs.some((r) => r.status === 'pending'));
    state.status = left || signal?.aborted ? 'interrupted' : 'done';
    try {
      save();
    } catch (e) {
      // Thrown below when nothing else stopped the experiment (else that error is the one to report).
      lastSave = e;
    }
  }
  if (lastSave !== undefined) throw lastSave;
  return { state, dir, notes };
}
