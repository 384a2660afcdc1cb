/**
 * Sampling parameters: fixed for a run, validated once, recorded in every summary so that
 * runs compare fairly. Temperature defaults to 0 (greedy) for reproducible outputs.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { Sampling } from '../types.js';

export interface SamplingInput {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  ignoreEos?: boolean;
}

export const DEFAULT_SAMPLING: Sampling = { temperature: 0, maxTokens: 256, ignoreEos: false };

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/**
 * Validates and completes sampling parameters: --temperature in [0, 2] (default 0),
 * --top-p in (0, 1], --max-tokens a whole number ≥ 1, --seed a whole number ≥ 0.
 *
 * @example
 * resolveSampling({ maxTokens: 128, seed: 7 }); // { temperature: 0, maxTokens: 128, ignoreEos: false, seed: 7 }
 */
export function resolveSampling(input: SamplingInput, defaults: Sampling = DEFAULT_SAMPLING): Sampling {
  const temperature = input.temperature ?? defaults.temperature;
  if (!Number.isFinite(temperature) || temperature < 0 || temperature > 2) {
    throw usage(
      `--temperature must be between 0 and 2, got ${temperature}`,
      'use 0 (the default) for reproducible outputs',
    );
  }
  const maxTokens = input.maxTokens ?? defaults.maxTokens;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw usage(`--max-tokens must be a whole number ≥ 1, got ${maxTokens}`, 'pass e.g. --max-tokens 256');
  }
  const sampling: Sampling = { temperature, maxTokens, ignoreEos: input.ignoreEos ?? defaults.ignoreEos };
  const topP = input.topP ?? defaults.topP;
  if (topP !== undefined) {
    if (!Number.isFinite(topP) || topP <= 0 || topP > 1) {
      throw usage(
        `--top-p must be in (0, 1], got ${topP}`,
        'pass e.g. --top-p 0.95, or leave it out for the server default',
      );
    }
    sampling.topP = topP;
  }
  const seed = input.seed ?? defaults.seed;
  if (seed !== undefined) {
    if (!Number.isSafeInteger(seed) || seed < 0) {
      throw usage(`--seed must be a whole number ≥ 0, got ${seed}`, 'pass e.g. --seed 42');
    }
    sampling.seed = seed;
  }
  return sampling;
}
