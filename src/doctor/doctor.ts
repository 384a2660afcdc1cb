/**
 * runDoctor: walks the channel step by step, as an experienced engineer would, and stops at
 * the first failure with its cause and its fix.
 *
 * @module
 */

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import type { TargetFlags } from '../config/index.js';
import { ExitCode } from '../errors.js';
import type { BenchmarkConfig } from '../runner/index.js';
import { type SimServer, startSim } from '../sim/index.js';
import { makeRedactor, noRedaction, type Redactor, redactDeep } from '../util/index.js';
import { checkConfig } from './config-step.js';
import type { Channel } from './http.js';
import { runProgressive } from './progressive.js';
import { checkReachability } from './reach.js';
import { checkModels, checkNonStreaming } from './steps-api.js';
import { checkConformance, checkStreaming } from './steps-stream.js';
import type { DoctorReport, StageId, StepResult } from './types.js';

export const STAGE_EXIT: Record<StageId, ExitCode> = {
  config: ExitCode.DOCTOR_CONFIG,
  reachability: ExitCode.DOCTOR_REACHABILITY,
  models: ExitCode.DOCTOR_MODELS,
  'non-streaming': ExitCode.DOCTOR_NON_STREAMING,
  streaming: ExitCode.DOCTOR_STREAMING,
  conformance: ExitCode.DOCTOR_CONFORMANCE,
  load: ExitCode.DOCTOR_LOAD,
};

/**
 * What doctor checks, as typed options (the CLI adapts its flags to them; see command.ts).
 *
 * @example
 * await runDoctor({ target: { url: 'http://localhost:8000' }, resolveConfig: async () => config, env: process.env, cwd: process.cwd() });
 */
export interface DoctorOptions {
  /** The target as given (URL, model, key file, config file): where each setting came from is traced from it. */
  target: TargetFlags;
  /**
   * Resolves the whole benchmark configuration (flags > env > file). A GoodputError it throws
   * fails the configuration stage with its message and hint, as any other config problem.
   */
  resolveConfig: () => Promise<BenchmarkConfig>;
  /** Seed of the embedded engine and the progressive stages (default 1). */
  seed?: number;
  /** Where the progressive stages write their results (default: a temporary directory). */
  outDir?: string;
  env: Record<string, string | undefined>;
  cwd: string;
  signal?: AbortSignal;
  /** Run the progressive load stages after the checks. */
  progressive?: boolean;
  minAttainment?: number;
  /** Called as each step finishes (for live terminal output). */
  onStep?: (step: StepResult) => void;
  version?: string;
}

/** Runs every stage in order until one fails; never throws for a channel problem. */
export async function runDoctor(opts: DoctorOptions): Promise<DoctorReport> {
  const steps: StepResult[] = [];
  let target = '';
  let sim: SimServer | undefined;
  // Every step passes through the key's redactor before it is kept or shown: whatever a
  // server said (error objects, echoed headers, model ids) reaches stdout and --json clean.
  let redact: Redactor = noRedaction;
  const add = (raw: StepResult): boolean => {
    const s = redactDeep(raw, redact);
    s.ms = Math.round(s.ms * 10) / 10;
    steps.push(s);
    opts.onStep?.(s);
    return s.status !== 'fail';
  };
  const finish = (): DoctorReport => {
    const failed = steps.find((s) => s.status === 'fail');
    return {
      schemaVersion: 1,
      kind: 'goodput.doctor',
      target,
      ok: failed === undefined,
      steps,
      ...(failed ? { failedStage: failed.stage } : {}),
      // Stopped by Ctrl-C / SIGTERM: the interrupted step is reported, the exit says why.
      exitCode: opts.signal?.aborted ? ExitCode.INTERRUPTED : failed ? STAGE_EXIT[failed.stage] : ExitCode.OK,
    };
  };
  try {
    const hasTarget =
      opts.target.url !== undefined ||
      opts.env.GOODPUT_BASE_URL !== undefined ||
      opts.env.OPENAI_BASE_URL !== undefined ||
      opts.target.config !== undefined;
    if (!hasTarget) sim = await startSim({ host: '127.0.0.1', port: 0, seed: opts.seed ?? 1 });
    const cfg = await checkConfig(opts, sim?.url);
    if (sim) cfg.step.details.unshift(`no --url: checking the embedded simulated engine at ${sim.url}`);
    target = cfg.callUrl ?? '';
    redact = makeRedactor([cfg.config?.apiKey, cfg.apiKeyRaw, ...(cfg.config?.secrets ?? [])]);
    if (!add(cfg.step) || !cfg.config || !cfg.baseUrl || !cfg.callUrl) return finish();
    const config = cfg.config;
    const channel: Channel = {
      baseUrl: cfg.baseUrl,
      timeoutMs: Math.min(config.load.timeoutMs, 30_000),
      redact,
    };
    if (config.apiKey) channel.apiKey = config.apiKey;
    if (config.headers) channel.headers = config.headers;
    if (config.extraBody) channel.extraBody = config.extraBody;
    if (opts.signal) channel.signal = opts.signal;
    if (!add(await checkReachability(cfg.callUrl, opts.env))) return finish();
    const models = await checkModels(channel, config.model);
    if (!add(models.step) || !models.model) return finish();
    const model = models.model;
    if (!add(await checkNonStreaming(channel, config.api, model))) return finish();
    const streaming = await checkStreaming(channel, config.api, model);
    if (!add(streaming.step) || !streaming.trace) return finish();
    if (!add(await checkConformance(channel, config.api, model, streaming.trace, []))) return finish();
    if (opts.progressive && !opts.signal?.aborted) {
      const outDir =
        opts.outDir !== undefined
          ? resolvePath(opts.cwd, opts.outDir)
          : await mkdtemp(join(tmpdir(), 'goodput-doctor-'));
      const stages = await runProgressive({
        config: { ...config, model },
        outDir,
        cwd: opts.cwd,
        minAttainment: opts.minAttainment ?? 0.9,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.version ? { version: opts.version } : {}),
      });
      for (const s of stages) if (!add(s)) break;
    }
    return finish();
  } finally {
    await sim?.close();
  }
}
