/**
 * `goodput sim`: the simulated engine as a standalone OpenAI-compatible server, with
 * vLLM's engine flags and failure-injection rates. Prints its URL on stderr and serves until
 * the command's signal aborts (Ctrl-C).
 *
 * @module
 */

import { resolve as resolvePath } from 'node:path';
import { calibrateCommand } from '../calibrate/command.js';
import { ExitCode } from '../errors.js';
import {
  type CommandSpec,
  type OptionSpec,
  REASONING_OPTIONS,
  SPECULATIVE_CONFIG_OPTION,
} from '../flags/index.js';
import type { EngineConfig, EngineOptions } from './engine-config.js';
import type { FailureConfig } from './failures.js';
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
const F = 'Failure injection (rates 0..1)';

const rate = (name: string, description: string): OptionSpec => ({
  name,
  type: 'number',
  description,
  group: F,
  valueName: 'RATE',
});

export const SIM_OPTIONS: OptionSpec[] = [
  {
    name: 'port',
    type: 'integer',
    default: 8000,
    description: 'Port to listen on (0 picks a free one)',
    group: 'Server',
  },
  {
    name: 'host',
    type: 'string',
    default: '127.0.0.1',
    description: 'Address to listen on',
    group: 'Server',
  },
  {
    name: 'profile',
    type: 'string',
    default: DEFAULT_PROFILE,
    valueName: 'GPU[xN]:MODEL',
    description: `Hardware and model: GPUs ${Object.keys(GPU_PROFILES).join(', ')}; models ${Object.keys(MODEL_PROFILES).join(', ')}`,
    group: 'Server',
  },
  {
    name: 'profile-file',
    type: 'string',
    valueName: 'FILE',
    description: 'A JSON profile (overrides --profile)',
    group: 'Server',
  },
  {
    name: 'served-model-name',
    type: 'string',
    description: "Model id to serve (default: the model's Hugging Face id)",
    group: 'Server',
  },
  {
    name: 'api-key',
    type: 'string',
    description: 'Require this bearer key on /v1/* (401 otherwise); also GOODPUT_SIM_API_KEY',
    group: 'Server',
  },
  {
    name: 'seed',
    type: 'integer',
    default: 0,
    description: 'Seed of output lengths, text and injected failures',
    group: 'Server',
  },
  {
    name: 'slowdown',
    type: 'number',
    default: 1,
    description: 'Multiply every step time (0.5 = twice as fast)',
    group: 'Server',
  },
  {
    name: 'mean-output-tokens',
    type: 'integer',
    default: 200,
    description: 'Mean output length without ignore_eos',
    group: 'Server',
  },
  {
    name: 'tensor-parallel-size',
    type: 'integer',
    description: 'GPUs per model replica (default: the profile)',
    group: E,
  },
  { name: 'block-size', type: 'integer', default: 16, description: 'Tokens per KV-cache block', group: E },
  {
    name: 'gpu-memory-utilization',
    type: 'number',
    default: 0.9,
    description: 'Fraction of GPU memory for weights + KV cache',
    group: E,
  },
  { name: 'max-num-seqs', type: 'integer', default: 256, description: 'Most sequences in a batch', group: E },
  {
    name: 'max-num-batched-tokens',
    type: 'integer',
    description: 'Token budget per step (default 8192; max-model-len without chunked prefill)',
    group: E,
  },
  {
    name: 'enable-chunked-prefill',
    type: 'boolean',
    default: true,
    description: 'Split long prefills across steps (--no-enable-chunked-prefill: V0 prefill-first steps)',
    group: E,
  },
  {
    name: 'enable-prefix-caching',
    type: 'boolean',
    default: true,
    description: 'Reuse KV blocks of identical prompt prefixes',
    group: E,
  },
  {
    name: 'max-model-len',
    type: 'integer',
    description: "Context length (default: the model's, capped by the KV cache)",
    group: E,
  },
  { name: 'num-gpu-blocks-override', type: 'integer', description: 'Fix the number of KV blocks', group: E },
  { ...SPECULATIVE_CONFIG_OPTION, group: E },
  {
    name: 'abort-on-disconnect',
    type: 'boolean',
    default: true,
    description:
      'Abort a request when its client goes (--no-abort-on-disconnect keeps generating: wasted work)',
    group: E,
  },
  ...REASONING_OPTIONS.map((o) => ({ ...o, group: 'Server' })),
  rate('fail-429', '429 with Retry-After'),
  rate('fail-500', '500 Internal Server Error'),
  rate('fail-503', '503 with Retry-After'),
  rate('fail-404', '404 model not found'),
  rate('fail-stall', 'Stall before the first token'),
  { name: 'stall-ms', type: 'integer', default: 2000, description: 'Length of an injected stall', group: F },
  rate('fail-disconnect', 'Disconnect mid-stream'),
  rate('fail-malformed', 'Malformed SSE line mid-stream'),
  rate('fail-error-object', 'Error object inside a 200 stream'),
  rate('fail-empty-choices', 'Empty-choices chunks between tokens'),
  {
    name: 'retry-after',
    type: 'duration',
    description: 'Retry-After on 429/503, sent in whole seconds (rounded up) [default: 1s]',
    group: F,
  },
];

/** Engine flags from parsed options (camelCase keys). */
export function engineOptionsFromArgs(o: Record<string, unknown>): EngineOptions {
  const num = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : undefined);
  const bool = (k: string) => (typeof o[k] === 'boolean' ? (o[k] as boolean) : undefined);
  return {
    blockSize: num('blockSize'),
    gpuMemoryUtilization: num('gpuMemoryUtilization'),
    maxNumSeqs: num('maxNumSeqs'),
    maxNumBatchedTokens: num('maxNumBatchedTokens'),
    enableChunkedPrefill: bool('enableChunkedPrefill'),
    enablePrefixCaching: bool('enablePrefixCaching'),
    maxModelLen: num('maxModelLen'),
    numGpuBlocksOverride: num('numGpuBlocksOverride'),
    abortOnDisconnect: bool('abortOnDisconnect'),
    speculativeConfig: typeof o.speculativeConfig === 'string' ? o.speculativeConfig : undefined,
  };
}

/** ", speculative decoding eagle k=3 (acceptance 0.7)" for the start-up line; empty without. */
function specNote(c: EngineConfig): string {
  const s = c.speculative;
  if (!s) return '';
  const p = [...new Set(s.acceptance)];
  return `, speculative decoding ${s.method} k=${s.numSpeculativeTokens} (acceptance ${p.join('/')})`;
}

/** Failure rates from parsed options. */
export function failureConfigFromArgs(o: Record<string, unknown>): FailureConfig {
  const num = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : undefined);
  return {
    rateLimit: num('fail429'),
    serverError: num('fail500'),
    unavailable: num('fail503'),
    notFound: num('fail404'),
    stall: num('failStall'),
    stallMs: num('stallMs'),
    disconnect: num('failDisconnect'),
    malformed: num('failMalformed'),
    errorObject: num('failErrorObject'),
    emptyChoices: num('failEmptyChoices'),
    retryAfterS: num('retryAfter') === undefined ? undefined : Math.ceil(num('retryAfter')! / 1000),
  };
}

export const simCommand: CommandSpec = {
  name: 'sim',
  summary: 'Serve the simulated vLLM-like engine (OpenAI-compatible, with /metrics)',
  description: [
    'A continuous-batching engine with a paged KV cache, chunked prefill, preemption and prefix caching,',
    'whose step times come from a roofline of the model on the GPU. Serves /v1/chat/completions,',
    '/v1/completions, /v1/responses, /v1/embeddings, /v1/models, /health and /metrics (vLLM metric',
    'names) until Ctrl-C. --reasoning-tokens streams reasoning before each answer (reasoning models).',
  ].join('\n'),
  options: SIM_OPTIONS,
  subcommands: [
    calibrateCommand(
      SIM_OPTIONS.filter((o) => o.group === E),
      engineOptionsFromArgs,
    ),
  ],
  runsWithoutSubcommand: true,
  async run(ctx) {
    const o = ctx.args.options;
    const profile =
      typeof o.profileFile === 'string'
        ? await loadProfileFile(resolvePath(ctx.cwd, o.profileFile))
        : resolveProfile(o.profile as string, o.tensorParallelSize as number | undefined);
    if (typeof o.profileFile === 'string' && typeof o.tensorParallelSize === 'number')
      profile.tensorParallel = o.tensorParallelSize;
    const sim = await startSim({
      profile,
      model: o.servedModelName as string | undefined,
      host: o.host as string,
      port: o.port as number,
      seed: o.seed as number,
      apiKey: (o.apiKey as string | undefined) ?? ctx.env.GOODPUT_SIM_API_KEY,
      slowdown: o.slowdown as number,
      meanOutputTokens: o.meanOutputTokens as number,
      engine: engineOptionsFromArgs(o),
      failures: failureConfigFromArgs(o),
      ...(typeof o.reasoningTokens === 'string'
        ? {
            reasoning: {
              length: parseReasoningLength(o.reasoningTokens),
              field: parseReasoningField((o.reasoningField as string | undefined) ?? 'reasoning_content'),
            },
          }
        : {}),
    });
    const c = sim.config;
    ctx.stderr.write(
      `goodput sim: ${sim.url} serving ${sim.model} on ${profile.gpu.name} x${profile.tensorParallel} ` +
        `(${c.numGpuBlocks} KV blocks of ${c.blockSize}, max-num-seqs ${c.maxNumSeqs}, ` +
        `max-num-batched-tokens ${c.maxNumBatchedTokens}, chunked prefill ${c.enableChunkedPrefill ? 'on' : 'off'}, ` +
        `prefix caching ${c.enablePrefixCaching ? 'on' : 'off'}${specNote(c)})\n`,
    );
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await sim.close();
    ctx.stderr.write('goodput sim: stopped\n');
    return ExitCode.OK;
  },
};
