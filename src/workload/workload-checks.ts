/**
 * The checks a workload's spec and options pass before any item is built: whole numbers where
 * counts are asked, rates in range, and the flags that cannot be used together (each refusal
 * an E_USAGE naming the flag and the fix).
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { WorkloadSpec } from '../types.js';
import { checkImages } from './images.js';
import type { WorkloadOptions } from './workload.js';

/** A usage error (exit 2) with its hint. */
export function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

export function checkWorkloadOptions(
  spec: WorkloadSpec,
  options: WorkloadOptions,
  cancelRate: number | undefined,
): void {
  if (!Number.isInteger(options.warmup) || options.warmup < 0) {
    throw usage(`--warmup must be a whole number ≥ 0, got ${options.warmup}`, 'pass e.g. --warmup 10');
  }
  if (!Number.isInteger(spec.maxTokens) || spec.maxTokens < 1) {
    throw usage(
      `--max-tokens must be a whole number ≥ 1, got ${spec.maxTokens}`,
      'pass e.g. --max-tokens 256',
    );
  }
  if (cancelRate !== undefined && !(cancelRate >= 0 && cancelRate <= 1)) {
    throw usage(
      `--cancel-rate must be between 0 and 1, got ${cancelRate}`,
      'pass e.g. --cancel-rate 0.1 for 10%',
    );
  }
  if (spec.kind === 'trace' && (spec.systemPromptTokens ?? 0) > 0) {
    throw usage(
      '--system-prompt-tokens cannot be used with --trace',
      "the trace's hash ids say which prompt blocks requests share; drop --system-prompt-tokens",
    );
  }
  if (spec.kind === 'synthetic') {
    const n = spec.promptTokens;
    if (n === undefined || !Number.isInteger(n) || n < 1) {
      throw usage(`--prompt-tokens must be a whole number ≥ 1, got ${n}`, 'pass e.g. --prompt-tokens 512');
    }
    const range = spec.promptTokensRange ?? 0;
    if (!(range >= 0 && range < 1)) {
      throw usage(
        `--prompt-tokens-range must be in [0, 1), got ${range}`,
        'pass e.g. --prompt-tokens-range 0.2 for ±20%',
      );
    }
  }
  const shaped = [
    options.lengths?.prompt && '--prompt-tokens-dist',
    options.lengths?.output && '--max-tokens-dist',
    spec.prefixGroups && '--prefix-groups',
  ].filter((f): f is string => typeof f === 'string');
  for (const flag of shaped) {
    const synthetic = flag !== '--max-tokens-dist';
    if (spec.sessions !== undefined || spec.kind === 'trace' || (synthetic && spec.kind !== 'synthetic')) {
      throw usage(
        `${flag} cannot be used with ${spec.sessions !== undefined ? 'sessions' : spec.kind === 'trace' ? '--trace' : '--dataset'}`,
        `${flag} shapes ${synthetic ? 'synthetic prompts' : 'the output limits of single requests'}; drop it, or drop the ${spec.sessions !== undefined ? 'session' : spec.kind} flags`,
      );
    }
  }
  if (spec.images) {
    checkImages(spec.images);
    if (spec.api !== 'chat' && spec.api !== 'responses')
      throw usage(
        `--images needs --api chat or responses, not ${spec.api}`,
        'images travel in chat messages: drop --api',
      );
    if (spec.sessions !== undefined || spec.kind === 'trace')
      throw usage(
        `--images cannot be used with ${spec.sessions !== undefined ? 'sessions' : '--trace'}`,
        'images go with single synthetic or dataset requests; drop --images',
      );
  }
  if (options.lengths?.prompt && spec.promptTokensRange) {
    throw usage(
      '--prompt-tokens-dist and --prompt-tokens-range cannot be used together',
      'a uniform spread is --prompt-tokens-dist uniform:MIN-MAX',
    );
  }
  const sys = spec.systemPromptTokens ?? 0;
  if (!Number.isInteger(sys) || sys < 0) {
    throw usage(
      `--system-prompt-tokens must be a whole number ≥ 0, got ${sys}`,
      'pass e.g. --system-prompt-tokens 4000',
    );
  }
}
