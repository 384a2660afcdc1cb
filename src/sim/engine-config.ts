/**
 * Engine flags (vLLM's names) and the KV-cache capacity derived from the profile:
 * blocks = (GPU memory × utilisation − weights − runtime reserve) × TP / (KV bytes per token × block size).
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import { DEFAULT_MAX_LORA_RANK, DEFAULT_MAX_LORAS } from './lora.js';
import { kvBytesPerToken, type SimProfile } from './profiles.js';
import { parseSpeculativeConfig, type SpeculativeConfig } from './spec-decode.js';

/** Engine flags as given (all optional; defaults follow vLLM's V1 engine). */
export interface EngineOptions {
  /** --block-size (16). */
  blockSize?: number;
  /** --gpu-memory-utilization (0.9). */
  gpuMemoryUtilization?: number;
  /** --max-num-seqs (256). */
  maxNumSeqs?: number;
  /** --max-num-batched-tokens (8192 with chunked prefill; max-model-len without). */
  maxNumBatchedTokens?: number;
  /** --enable-chunked-prefill (on). */
  enableChunkedPrefill?: boolean;
  /** --enable-prefix-caching (on). */
  enablePrefixCaching?: boolean;
  /** --max-model-len (the model's context, capped by what the KV cache can hold). */
  maxModelLen?: number;
  /** --num-gpu-blocks-override: a fixed KV capacity, for experiments and tests. */
  numGpuBlocksOverride?: number;
  /** Abort a request when its client disconnects (on; --no-abort-on-disconnect keeps it running). */
  abortOnDisconnect?: boolean;
  /**
   * --speculative-config: vLLM's JSON (a string or its object), e.g.
   * `{"method":"ngram","num_speculative_tokens":3}`, plus the simulation-only
   * `acceptance_probability` (spec-decode.ts). Absent: no speculative decoding.
   */
  speculativeConfig?: string | Record<string, unknown>;
  /**
   * --scheduling-policy: 'fcfs' (default) or 'priority' (vLLM V1's: waiting requests by their
   * `priority`, lower first, then arrival; the lowest-priority running request preempted first).
   */
  schedulingPolicy?: 'fcfs' | 'priority';
  /**
   * --lora-modules: names of the LoRA adapters served beside the base model (vLLM's
   * `--enable-lora --lora-modules name=path …`; the simulator needs no path). See lora.ts.
   */
  loraModules?: readonly string[];
  /** --max-loras: distinct adapters in a batch (1, as vLLM). */
  maxLoras?: number;
  /** --max-lora-rank: the adapters' rank, for their cost (16, as vLLM). */
  maxLoraRank?: number;
}

/** Resolved engine configuration. */
export interface EngineConfig {
  blockSize: number;
  gpuMemoryUtilization: number;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  enableChunkedPrefill: boolean;
  enablePrefixCaching: boolean;
  maxModelLen: number;
  numGpuBlocks: number;
  abortOnDisconnect: boolean;
  /** Blocks kept free when admitting a new request (vLLM V0's 1 % watermark). */
  watermarkBlocks: number;
  /** Speculative decoding, when configured. */
  speculative?: SpeculativeConfig;
  schedulingPolicy: 'fcfs' | 'priority';
  /** LoRA adapters served beside the base model (none: empty). */
  loraModules: string[];
  maxLoras: number;
  maxLoraRank: number;
}

const GIB = 1024 ** 3;
/** Per-GPU memory the runtime keeps for itself (CUDA context, graphs, allocator slack). */
const RUNTIME_RESERVE_BYTES = 1.5 * GIB;

/** KV blocks that fit on the profile's GPUs after weights and activations. */
export function kvCapacityBlocks(
  profile: SimProfile,
  utilisation: number,
  blockSize: number,
  batchedTokens: number,
): number {
  const { gpu, model, tensorParallel: tp } = profile;
  // Peak activations of one forward pass: a few hidden-sized buffers per batched token.
  const activationBytes = (batchedTokens * model.hidden * model.dtypeBytes * 8) / tp;
  const perGpu =
    gpu.memoryBytes * utilisation -
    (model.params * model.dtypeBytes) / tp -
    RUNTIME_RESERVE_BYTES -
    activationBytes;
  return Math.max(0, Math.floor((perGpu * tp) / (kvBytesPerToken(model) * blockSize)));
}

function bad(message: string, hint: string): GoodputError {
  return new GoodputError('E_SIM', message, hint);
}

/** Fill defaults, derive the KV capacity, and validate the combination as vLLM does at start-up. */
export function resolveEngineConfig(profile: SimProfile, opts: EngineOptions = {}): EngineConfig {
  const blockSize = opts.blockSize ?? 16;
  const util = opts.gpuMemoryUtilization ?? 0.9;
  const chunked = opts.enableChunkedPrefill ?? true;
  if (!(blockSize > 0 && Number.isInteger(blockSize)))
    throw bad(`block size ${blockSize} is invalid`, 'use --block-size 16');
  if (!(util > 0 && util <= 1)) throw bad(`gpu memory utilisation ${util} is outside (0, 1]`, 'use e.g. 0.9');
  const provisionalLen = opts.maxModelLen ?? profile.model.maxContext;
  const batched = opts.maxNumBatchedTokens ?? (chunked ? 8192 : Math.max(provisionalLen, 2048));
  const numGpuBlocks =
    opts.numGpuBlocksOverride ?? kvCapacityBlocks(profile, util, blockSize, Math.min(batched, 65536));
  if (numGpuBlocks <= 0)
    throw bad(
      `no GPU memory left for the KV cache (${profile.gpu.name}, ${profile.model.name}, TP ${profile.tensorParallel}, utilisation ${util})`,
      'raise --gpu-memory-utilization, use a larger GPU or a higher tensor-parallel size',
    );
  const maxModelLen = opts.maxModelLen ?? Math.min(profile.model.maxContext, numGpuBlocks * blockSize);
  if (!chunked && batched < maxModelLen)
    throw bad(
      `max-num-batched-tokens (${batched}) is smaller than max-model-len (${maxModelLen}) with chunked prefill off`,
      'raise --max-num-batched-tokens, lower --max-model-len, or enable chunked prefill',
    );
  const config: EngineConfig = {
    blockSize,
    gpuMemoryUtilization: util,
    maxNumSeqs: opts.maxNumSeqs ?? 256,
    maxNumBatchedTokens: batched,
    enableChunkedPrefill: chunked,
    enablePrefixCaching: opts.enablePrefixCaching ?? true,
    maxModelLen,
    numGpuBlocks,
    abortOnDisconnect: opts.abortOnDisconnect ?? true,
    watermarkBlocks: Math.ceil(numGpuBlocks * 0.01),
    schedulingPolicy: opts.schedulingPolicy ?? 'fcfs',
    ...loraConfig(opts),
  };
  if (opts.speculativeConfig !== undefined)
    config.speculative = parseSpeculativeConfig(opts.speculativeConfig);
  return config;
}

/** The adapters and their slots, checked as vLLM checks them at start-up. */
function loraConfig(opts: EngineOptions): Pick<EngineConfig, 'loraModules' | 'maxLoras' | 'maxLoraRank'> {
  const loraModules = [...(opts.loraModules ?? [])];
  const seen = new Set<string>();
  for (const name of loraModules) {
    if (!/^[\w.:/@+-]{1,128}$/.test(name))
      throw bad(
        `LoRA adapter name '${name}' is not a model id (letters, digits and _ . : / @ + -)`,
        'e.g. --lora-modules sql-lora,chat-lora',
      );
    if (seen.has(name)) throw bad(`LoRA adapter ${name} is given twice`, 'give each adapter once');
    seen.add(name);
  }
  const maxLoras = opts.maxLoras ?? DEFAULT_MAX_LORAS;
  const maxLoraRank = opts.maxLoraRank ?? DEFAULT_MAX_LORA_RANK;
  if (!(Number.isInteger(maxLoras) && maxLoras >= 1))
    throw bad(`max-loras ${maxLoras} must be a whole number ≥ 1`, 'use e.g. --max-loras 2');
  if (!(Number.isInteger(maxLoraRank) && maxLoraRank >= 1 && maxLoraRank <= 512))
    throw bad(`max-lora-rank ${maxLoraRank} must be a whole number in 1..512`, 'use e.g. --max-lora-rank 16');
  return { loraModules, maxLoras, maxLoraRank };
}
