/**
 * `goodput doctor`: find what is wrong with a channel before measuring it.
 *
 * @module
 */

import type { TargetFlags } from '../config/index.js';
import { GoodputError } from '../errors.js';
import {
  CONCURRENCY_BOUNDS,
  defineCommand,
  FORCE_OPTION,
  pickOptions,
  resolveBenchmarkConfig,
  TARGET_OPTIONS,
  TOKEN_BOUNDS,
} from '../flags/index.js';
import { runDoctor } from './doctor.js';
import { renderDoctorJson, renderDoctorSummary, renderStep } from './render.js';

const TARGET_FLAGS = pickOptions(TARGET_OPTIONS, [
  'url',
  'model',
  'api',
  'config',
  'apiKeyFile',
  'header',
  'extraBody',
  'timeout',
]);

export const doctorCommand = defineCommand({
  name: 'doctor',
  summary:
    'Check a channel step by step (config, reachability, models, streaming, conformance) and name the fix',
  description:
    'Walks the channel as an experienced engineer would and stops at the first failure with its cause and its fix. ' +
    'Exit codes: 0 all passed, 10 config, 11 reachability, 12 models, 13 non-streaming, 14 streaming, 15 conformance, 16 progressive load.',
  options: {
    ...TARGET_FLAGS,
    progressive: {
      type: 'boolean',
      group: 'Doctor',
      description:
        'After the checks, run 5, then 30, then 100 requests, stopping at the first stage that fails',
    },
    concurrency: {
      type: 'integer',
      ...CONCURRENCY_BOUNDS,
      group: 'Doctor',
      description: 'Concurrency of the progressive stages [default: 4]',
    },
    promptTokens: {
      type: 'integer',
      ...TOKEN_BOUNDS,
      group: 'Doctor',
      description: 'Prompt length of the progressive stages [default: 256]',
    },
    maxTokens: {
      type: 'integer',
      ...TOKEN_BOUNDS,
      group: 'Doctor',
      description: 'Output limit of the progressive stages [default: 128]',
    },
    slo: {
      type: 'string',
      group: 'Doctor',
      valueName: 'SLO',
      description: 'SLOs for the 100-request stage, e.g. ttft=500,tpot=100',
    },
    minAttainment: {
      type: 'number',
      default: 0.9,
      group: 'Doctor',
      description: 'SLO attainment the 100-request stage needs',
    },
    seed: {
      type: 'integer',
      group: 'Doctor',
      description: 'Seed of the progressive stages and the embedded engine',
    },
    out: {
      type: 'string',
      group: 'Output',
      valueName: 'DIR',
      description: 'Where the progressive stages write their results [default: a temporary directory]',
    },
    force: { ...FORCE_OPTION, description: "Replace an earlier doctor's stage results found in --out" },
    json: { type: 'boolean', group: 'Output', description: 'Print every step as JSON on stdout' },
  },
  async run(ctx) {
    const o = ctx.args.options;
    const json = o.json === true;
    if (o.api === 'responses' || o.api === 'embeddings') {
      throw new GoodputError(
        'E_USAGE',
        `doctor checks the chat and completions APIs, not --api ${o.api}`,
        `run doctor with --api chat (or completions), then measure /v1/${o.api} with goodput run --api ${o.api}`,
      );
    }
    // The CLI adapts its flags to doctor's typed options.
    const target: TargetFlags = {};
    for (const k of ['url', 'model', 'apiKeyFile', 'config'] as const) {
      const v = o[k];
      if (v !== undefined) target[k] = v;
    }
    const report = await runDoctor({
      target,
      resolveConfig: () => resolveBenchmarkConfig(ctx.args, ctx.env, ctx.cwd),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.out !== undefined ? { outDir: o.out } : {}),
      env: ctx.env,
      cwd: ctx.cwd,
      signal: ctx.signal,
      progressive: o.progressive === true,
      minAttainment: o.minAttainment,
      ...(json ? {} : { onStep: (s) => ctx.stdout.write(renderStep(s)) }),
    });
    ctx.stdout.write(json ? renderDoctorJson(report) : renderDoctorSummary(report));
    return report.exitCode;
  },
});
