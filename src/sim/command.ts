/**
 * `goodput sim`: the simulated engine as a standalone OpenAI-compatible server, with
 * vLLM's engine flags and failure-injection rates. Prints its URL on stderr and serves until
 * the command's signal aborts (Ctrl-C).
 *
 * @module
 */

import { resolve as resolvePath } from 'node:path';
import { ExitCode } from '../errors.js';
import {
  defineCommand,
  defineOptions,
  type FlagValues,
  type NumberOption,
  PORT_BOUNDS,
  REASONING_OPTIONS,
  regroupOptions,
  SCHEDULING_POLICY_OPTION,
  SPECULATIVE_CONFIG_OPTION,
} from '../flags/index.js';
import type { EngineConfig, EngineOptions } from './engine-config.js';
import type { FailureConfig } from './failures.js';
import { parseLoraModules } from './lora.js';
import {
  DEFAULT_PROFILE,
  GPU_PROFILES,
  loadProfileFile,
  MODEL_PROFILES,
  resolveProfile,
} from './profiles.js';
import { parseReasoningField, parseReasoningLength } from './reasoning.js';
import { startSim } from './server.js';

const E = 'Engine';
/** `sim calibrate`'s line in sim's help (its spec loads only when it runs). */
export const CALIBRATE_SUMMARY =
  "Fit the simulated engine's step time to runs measured on a real server; error on held-out runs";
const F = 'Failure injection (rates 0..1)';

const rate = (flag: string, description: string): NumberOption => ({
  flag,
  type: 'number',
  min: 0,
  max: 1,
  description,
  group: F,
  valueName: 'RATE',
});

/** Where and what the simulator serves. */
const SERVER_OPTIONS = defineOptions({
  port: {
    type: 'integer',
    default: 8000,
    ...PORT_BOUNDS,
    description: 'Port to listen on (0 picks a free one)',
    group: 'Server',
  },
  host: {
    type: 'string',
    default: '127.0.0.1',
    description: 'Address to listen on',
    group: 'Server',
  },
  profile: {
    type: 'string',
    default: DEFAULT_PROFILE,
    valueName: 'GPU[xN]:MODEL',
    description: `Hardware and model: GPUs ${Object.keys(GPU_PROFILES).join(', ')}; models ${Object.keys(MODEL_PROFILES).join(', ')}`,
    group: 'Server',
  },
  profileFile: {
    type: 'string',
    valueName: 'FILE',
    description: 'A JSON profile (overrides --profile)',
    group: 'Server',
  },
  servedModelName: {
    type: 'string',
    description: "Model id to serve (default: the model's Hugging Face id)",
    group: 'Server',
  },
  apiKey: {
    type: 'string',
    description: 'Require this bearer key on /v1/* (401 otherwise); also GOODPUT_SIM_API_KEY',
    group: 'Server',
  },
  seed: {
    type: 'integer',
    default: 0,
    description: 'Seed of output lengths, text and injected failures',
    group: 'Server',
  },
  slowdown: {
    type: 'number',
    default: 1,
    description: 'Multiply every step time (0.5 = twice as fast)',
    group: 'Server',
  },
  meanOutputTokens: {
    type: 'integer',
    default: 200,
    description: 'Mean output length without ignore_eos',
    group: 'Server',
  },
});

/** vLLM's engine flags of the simulated engine (also those `sim calibrate` fits under). */
export const ENGINE_OPTIONS = defineOptions({
  tensorParallelSize: {
    type: 'integer',
    description: 'GPUs per model replica (default: the profile)',
    group: E,
  },
  blockSize: { type: 'integer', default: 16, description: 'Tokens per KV-cache block', group: E },
  gpuMemoryUtilization: {
    type: 'number',
    default: 0.9,
    description: 'Fraction of GPU memory for weights + KV cache',
    group: E,
  },
  maxNumSeqs: { type: 'integer', default: 256, description: 'Most sequences in a batch', group: E },
  maxNumBatchedTokens: {
    type: 'integer',
    description: 'Token budget per step (default 8192; max-model-len without chunked prefill)',
    group: E,
  },
  enableChunkedPrefill: {
    type: 'boolean',
    default: true,
    description: 'Split long prefills across steps (--no-enable-chunked-prefill: V0 prefill-first steps)',
    group: E,
  },
  enablePrefixCaching: {
    type: 'boolean',
    default: true,
    description: 'Reuse KV blocks of identical prompt prefixes',
    group: E,
  },
  maxModelLen: {
    type: 'integer',
    description: "Context length (default: the model's, capped by the KV cache)",
    group: E,
  },
  numGpuBlocksOverride: { type: 'integer', description: 'Fix the number of KV blocks', group: E },
  speculativeConfig: { ...SPECULATIVE_CONFIG_OPTION, group: E },
  schedulingPolicy: { ...SCHEDULING_POLICY_OPTION, group: E },
  abortOnDisconnect: {
    type: 'boolean',
    default: true,
    description:
      'Abort a request when its client goes (--no-abort-on-disconnect keeps generating: wasted work)',
    group: E,
  },
});

/** LoRA adapters served beside the base model (vLLM's flags; lora.ts). */
const LORA_OPTIONS = defineOptions({
  loraModules: {
    type: 'string',
    repeatable: true,
    valueName: 'NAME[=PATH]',
    description:
      'LoRA adapters served beside the base model, as vLLM takes them (name=path, or a name; several per flag, space- or comma-separated); requests name one in "model"',
    group: E,
  },
  maxLoras: {
    type: 'integer',
    min: 1,
    max: 256,
    description: 'Distinct adapters in a batch; a request whose adapter finds no slot waits [default: 1]',
    group: E,
  },
  maxLoraRank: {
    type: 'integer',
    min: 1,
    max: 512,
    description: "The adapters' rank, for their cost [default: 16]",
    group: E,
  },
});

const FAILURE_OPTIONS = defineOptions({
  fail429: rate('fail-429', '429 with Retry-After'),
  fail500: rate('fail-500', '500 Internal Server Error'),
  fail503: rate('fail-503', '503 with Retry-After'),
  fail404: rate('fail-404', '404 model not found'),
  failStall: rate('fail-stall', 'Stall before the first token'),
  stallMs: { type: 'integer', default: 2000, description: 'Length of an injected stall', group: F },
  failDisconnect: rate('fail-disconnect', 'Disconnect mid-stream'),
  failMalformed: rate('fail-malformed', 'Malformed SSE line mid-stream'),
  failErrorObject: rate('fail-error-object', 'Error object inside a 200 stream'),
  failEmptyChoices: rate('fail-empty-choices', 'Empty-choices chunks between tokens'),
  retryAfter: {
    type: 'duration',
    description: 'Retry-After on 429/503, sent in whole seconds (rounded up) [default: 1s]',
    group: F,
  },
});

/** Every flag of `goodput sim`: server, engine (reasoning mode with the server's), failure injection. */
export const SIM_OPTIONS = defineOptions({
  ...SERVER_OPTIONS,
  ...ENGINE_OPTIONS,
  ...LORA_OPTIONS,
  ...regroupOptions(REASONING_OPTIONS, () => ({ group: 'Server' })),
  ...FAILURE_OPTIONS,
});

/** The engine flags' values, each possibly absent (calibrate takes them without the one it ignores). */
export type EngineFlags = Partial<FlagValues<typeof ENGINE_OPTIONS>>;

/** Engine flags from parsed options. */
export function engineOptionsFromArgs(o: EngineFlags): EngineOptions {
  return {
    blockSize: o.blockSize,
    gpuMemoryUtilization: o.gpuMemoryUtilization,
    maxNumSeqs: o.maxNumSeqs,
    maxNumBatchedTokens: o.maxNumBatchedTokens,
    enableChunkedPrefill: o.enableChunkedPrefill,
    enablePrefixCaching: o.enablePrefixCaching,
    maxModelLen: o.maxModelLen,
    numGpuBlocksOverride: o.numGpuBlocksOverride,
    abortOnDisconnect: o.abortOnDisconnect,
    speculativeConfig: o.speculativeConfig,
    ...(o.schedulingPolicy === 'priority' || o.schedulingPolicy === 'fcfs'
      ? { schedulingPolicy: o.schedulingPolicy }
      : {}),
  };
}

/** The adapters and their slots from parsed options (nothing when none is given). */
function loraOptionsFromArgs(o: Partial<FlagValues<typeof LORA_OPTIONS>>): EngineOptions {
  const out: EngineOptions = {};
  if (o.loraModules && o.loraModules.length > 0) out.loraModules = parseLoraModules(o.loraModules);
  if (o.maxLoras !== undefined) out.maxLoras = o.maxLoras;
  if (o.maxLoraRank !== undefined) out.maxLoraRank = o.maxLoraRank;
  return out;
}

/** ", speculative decoding eagle k=3 (acceptance 0.7)" for the start-up line; empty without. */
function specNote(c: EngineConfig): string {
  const s = c.speculative;
  if (!s) return '';
  const p = [...new Set(s.acceptance)];
  return `, speculative decoding ${s.method} k=${s.numSpeculativeTokens} (acceptance ${p.join('/')})`;
}

/** ", LoRA adapters a, b (max-loras 1)" for the start-up line; empty without. */
function loraNote(c: EngineConfig): string {
  return c.loraModules.length === 0
    ? ''
    : `, LoRA adapters ${c.loraModules.join(', ')} (max-loras ${c.maxLoras})`;
}

/** Failure rates from parsed options. */
export function failureConfigFromArgs(o: Partial<FlagValues<typeof FAILURE_OPTIONS>>): FailureConfig {
  return {
    rateLimit: o.fail429,
    serverError: o.fail500,
    unavailable: o.fail503,
    notFound: o.fail404,
    stall: o.failStall,
    stallMs: o.stallMs,
    disconnect: o.failDisconnect,
    malformed: o.failMalformed,
    errorObject: o.failErrorObject,
    emptyChoices: o.failEmptyChoices,
    retryAfterS: o.retryAfter === undefined ? undefined : Math.ceil(o.retryAfter / 1000),
  };
}

export const simCommand = defineCommand({
  name: 'sim',
  summary: 'Serve the simulated vLLM-like engine (OpenAI-compatible, with /metrics)',
  description: [
    'A continuous-batching engine with a paged KV cache, chunked prefill, preemption and prefix caching,',
    'whose step times come from a roofline of the model on the GPU. Serves /v1/chat/completions,',
    '/v1/completions, /v1/responses, /v1/embeddings, /v1/models, /health and /metrics (vLLM metric',
    'names) until Ctrl-C. --reasoning-tokens streams reasoning before each answer (reasoning models).',
  ].join('\n'),
  options: SIM_OPTIONS,
  // Loaded only when asked for: `goodput sim` does not load the fitting and the run readers.
  subcommands: [
    {
      name: 'calibrate',
      summary: CALIBRATE_SUMMARY,
      load: async () => (await import('../calibrate/command.js')).calibrateCommand,
    },
  ],
  runsWithoutSubcommand: true,
  async run(ctx) {
    const o = ctx.args.options;
    const profile =
      o.profileFile !== undefined
        ? await loadProfileFile(resolvePath(ctx.cwd, o.profileFile))
        : resolveProfile(o.profile, o.tensorParallelSize);
    if (o.profileFile !== undefined && o.tensorParallelSize !== undefined)
      profile.tensorParallel = o.tensorParallelSize;
    const sim = await startSim({
      profile,
      model: o.servedModelName,
      host: o.host,
      port: o.port,
      seed: o.seed,
      apiKey: o.apiKey ?? ctx.env.GOODPUT_SIM_API_KEY,
      slowdown: o.slowdown,
      meanOutputTokens: o.meanOutputTokens,
      engine: { ...engineOptionsFromArgs(o), ...loraOptionsFromArgs(o) },
      failures: failureConfigFromArgs(o),
      ...(o.toolCallFraction !== undefined ? { toolCallFraction: o.toolCallFraction } : {}),
      ...(o.reasoningTokens !== undefined
        ? {
            reasoning: {
              length: parseReasoningLength(o.reasoningTokens),
              field: parseReasoningField(o.reasoningField ?? 'reasoning_content'),
            },
          }
        : {}),
    });
    const c = sim.config;
    ctx.stderr.write(
      `goodput sim: ${sim.url} serving ${sim.model} on ${profile.gpu.name} x${profile.tensorParallel} ` +
        `(${c.numGpuBlocks} KV blocks of ${c.blockSize}, max-num-seqs ${c.maxNumSeqs}, ` +
        `max-num-batched-tokens ${c.maxNumBatchedTokens}, chunked prefill ${c.enableChunkedPrefill ? 'on' : 'off'}, ` +
        `prefix caching ${c.enablePrefixCaching ? 'on' : 'off'}${specNote(c)}${loraNote(c)})\n`,
    );
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await sim.close();
    ctx.stderr.write('goodput sim: stopped\n');
    return ExitCode.OK;
  },
});
