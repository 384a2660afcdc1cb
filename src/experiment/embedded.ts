/**
 * Configurations of the embedded simulated engine: plan parameters (vLLM's flag names, e.g.
 * `max-num-batched-tokens: 2048`, `enable-chunked-prefill: false`, `profile: h100:llama-3.1-8b`)
 * to the engine's options and to the flags as vLLM spells them (recorded as `engineArgs`).
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import { type EngineOptions, resolveProfile } from '../sim/index.js';
import type { ServeParamValue } from '../types.js';
import { closestName } from '../util/index.js';
import { isClassParam } from './class-params.js';
import type { ConfigurationSpec } from './types.js';

type Kind = 'integer' | 'number' | 'boolean' | 'string';

/** The engine parameters a configuration may set, by vLLM flag name (`choices`: the values a string takes). */
export const ENGINE_PARAMS: Readonly<
  Record<string, { key: keyof EngineOptions; kind: Kind; choices?: readonly string[] }>
> = {
  'max-num-seqs': { key: 'maxNumSeqs', kind: 'integer' },
  'max-num-batched-tokens': { key: 'maxNumBatchedTokens', kind: 'integer' },
  'enable-chunked-prefill': { key: 'enableChunkedPrefill', kind: 'boolean' },
  'enable-prefix-caching': { key: 'enablePrefixCaching', kind: 'boolean' },
  'gpu-memory-utilization': { key: 'gpuMemoryUtilization', kind: 'number' },
  'block-size': { key: 'blockSize', kind: 'integer' },
  'max-model-len': { key: 'maxModelLen', kind: 'integer' },
  'num-gpu-blocks-override': { key: 'numGpuBlocksOverride', kind: 'integer' },
  'speculative-config': { key: 'speculativeConfig', kind: 'string' },
  'scheduling-policy': { key: 'schedulingPolicy', kind: 'string', choices: ['fcfs', 'priority'] },
  'max-loras': { key: 'maxLoras', kind: 'integer' },
};

/** Parameter names that are not engine flags but choose the simulated hardware and model. */
const PROFILE_PARAM = 'profile';

function bad(where: string, message: string, hint: string): GoodputError {
  return new GoodputError('E_CONFIG', `${where}: ${message}`, hint);
}

function coerce(where: string, value: ServeParamValue, kind: Kind): ServeParamValue {
  if (kind === 'boolean') {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw bad(
      where,
      `expected true or false, got ${JSON.stringify(value)}`,
      'e.g. enable-chunked-prefill: false',
    );
  }
  if (kind === 'string') return typeof value === 'string' ? value : JSON.stringify(value);
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || (kind === 'integer' && !Number.isInteger(n)) || n < 0)
    throw bad(
      where,
      `expected ${kind === 'integer' ? 'a whole number' : 'a number'}, got ${JSON.stringify(value)}`,
      'e.g. max-num-batched-tokens: 2048',
    );
  return n;
}

/**
 * An embedded configuration from its parameters; throws E_CONFIG naming `where.param` for an
 * unknown parameter (with a did-you-mean), a bad value or an unknown profile.
 *
 * @example
 * embeddedConfiguration('Exp-1', { 'max-num-batched-tokens': 2048 }).target.engineArgs; // ['--max-num-batched-tokens', '2048']
 */
export function embeddedConfiguration(
  name: string,
  params: Record<string, ServeParamValue>,
  opts: { where?: string; profile?: string } = {},
): ConfigurationSpec {
  const where = opts.where ?? `configuration ${name}`;
  const engine: EngineOptions = {};
  const engineArgs: string[] = [];
  let profile = opts.profile;
  for (const [param, raw] of Object.entries(params)) {
    const at = `${where}.params.${param}`;
    if (param === PROFILE_PARAM) {
      profile = String(raw);
      continue;
    }
    // A traffic class's field (class-params.ts): the load's, not the engine's.
    if (isClassParam(param)) continue;
    const spec = ENGINE_PARAMS[param];
    if (!spec) {
      const guess = closestName(param, [...Object.keys(ENGINE_PARAMS), PROFILE_PARAM]);
      throw bad(
        at,
        'not a flag of the embedded engine',
        `${guess ? `did you mean ${guess}? ` : ''}the embedded engine takes ${Object.keys(ENGINE_PARAMS).join(', ')}, profile and class.NAME.KEY (a traffic class's field); give the configuration a serve: command or a url: to test other parameters`,
      );
    }
    const value = coerce(at, raw, spec.kind);
    if (spec.choices && !spec.choices.includes(value as string))
      throw bad(
        at,
        `expected one of ${spec.choices.join(', ')}, got ${JSON.stringify(raw)}`,
        `e.g. ${param}: ${spec.choices.at(-1)}`,
      );
    (engine as Record<string, unknown>)[spec.key] = value;
    if (spec.kind === 'boolean') engineArgs.push(value ? `--${param}` : `--no-${param}`);
    else engineArgs.push(`--${param}`, String(value));
  }
  // A bad profile is the plan's mistake; an engine combination the engine refuses at start-up
  // (as vLLM would) fails only this configuration, when it starts.
  if (profile !== undefined) {
    try {
      resolveProfile(profile);
    } catch (e) {
      if (!(e instanceof GoodputError)) throw e;
      throw bad(`${where}.params.profile`, e.message, e.hint);
    }
  }
  return {
    name,
    params,
    target: { kind: 'embedded', engine, engineArgs, ...(profile !== undefined ? { profile } : {}) },
  };
}
