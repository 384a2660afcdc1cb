/**
 * runDoctor: walks the channel step by step, as an experienced engineer would, and stops at
 * the first failure with its cause and its fix.
 *
 * @module
 */

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { ExitCode } from '../errors.js';
import type { ParsedArgs } from '../flags/index.js';
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

export interface DoctorOptions {
  args: ParsedArgs;
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
      typeof opts.args.options.url === 'string' ||
      opts.env.GOODPUT_BASE_URL !== undefined ||
      typeof opts.args.options.config === 'string';
    if (!hasTarget) {
      const seed = typeof opts.args.options.seed === 'number' ? opts.args.options.seed : 1;
      sim = await startSim({ host: '127.0.0.1', port: 0, seed });
    }
    const cfg = await checkConfig(opts.args, opts.env, opts.cwd, sim?.url);
    if (sim) cfg.step.details.unshift(`no --url: checking the embedded simulated engine at ${sim.url}`);
    target = cfg.callUrl ?? '';
    redact = makeRedactor([cfg.config?.apiKey, cfg.apiKeyRaw]);
    if (!add(cfg.step) || !cfg.config || !cfg.baseUrl || !cfg.callUrl) return finish();
    const config = cfg.config;
    const channel: Channel = {
      baseUrl: cfg.baseUrl,
      timeoutMs: Math.min(config.load.timeoutMs, 30_000),
      redact,
    };
    if (config.apiKey) channel.apiKey = config.apiKey;
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
        typeof opts.args.options.out === 'string'
          ? resolvePath(opts.cwd, opts.args.options.out)
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
