/**
 * What each serving engine calls its tuning knobs: one table per engine, like the metric
 * dialects of server-metrics/normalize.ts. For every kind of advice the diagnosis gives, the
 * engine's flags (short, for lists) and the advice in its own words; and the flags an engine
 * accepts under two spellings (`-np` / `--parallel`), so that an ADR rule written with one
 * holds a configuration written with the other.
 *
 * Sources (each engine's own reference):
 * - vLLM: `vllm serve --help` (engine args; underscores and dashes are the same flag);
 * - SGLang: docs.sglang.ai "Server Arguments";
 * - llama.cpp: tools/server/README.md and common/arg.cpp (`{"-np", "--parallel"}`, …);
 * - TGI: `text-generation-launcher --help` (docs "Text-generation-launcher arguments");
 * - TensorRT-LLM: `trtllm-serve --help` (docs "trtllm-serve"; options without a flag go in the
 *   YAML of `--extra_llm_api_options`, e.g. `enable_chunked_prefill`, `kv_cache_config`).
 * Triton and NVIDIA Dynamo get a name but no table: their knobs are the backend's they serve.
 *
 * @module
 */

import type { ServerSample } from '../types.js';

/** An engine as the server metrics name it (`unknown`: not detected). */
export type EngineId = ServerSample['engine'];

/** The engines with a table of their own; the embedded engine speaks vLLM's flags. */
export type KnownEngine = 'vllm' | 'sglang' | 'llamacpp' | 'tgi' | 'trtllm';

/** What a piece of advice is about: one per diagnosis finding that points at the engine. */
export type AdviceKind = 'queueing' | 'kv-pressure' | 'prefill-bound' | 'decode-bound' | 'scheduler-bound';

export interface Advice {
  /** The flags alone, for a list across engines: "-np/--parallel, -b/-ub". */
  flags: string;
  /** The advice in the engine's words. */
  text: string;
}

export interface EngineProfile {
  id: KnownEngine;
  /** How the engine is named in text: "llama.cpp". */
  label: string;
  advice: Record<AdviceKind, Advice>;
  /** Spellings of the same flag, long form first (`--parallel`, `-np`). */
  flagAliases: ReadonlyArray<readonly string[]>;
}

const VLLM: EngineProfile = {
  id: 'vllm',
  label: 'vLLM',
  advice: {
    queueing: {
      flags: '--max-num-seqs, --max-num-batched-tokens',
      text: 'admission: lower the load or add replicas; --max-num-seqs / --max-num-batched-tokens let more requests run at once when KV memory allows',
    },
    'kv-pressure': {
      flags: '--gpu-memory-utilization, --max-num-seqs, --block-size',
      text: '--gpu-memory-utilization (more KV blocks), --max-num-seqs (fewer sequences sharing the cache), --max-model-len, --kv-cache-dtype fp8, or tensor parallelism',
    },
    'prefill-bound': {
      flags: '--max-num-batched-tokens, --enable-chunked-prefill, --enable-prefix-caching',
      text: '--max-num-batched-tokens with chunked prefill (--enable-chunked-prefill) so long prefills do not stall others; --enable-prefix-caching for shared prefixes; shorter prompts',
    },
    'decode-bound': {
      flags: '--max-num-seqs, --speculative-config',
      text: 'a smaller batch (--max-num-seqs) lowers TPOT at the cost of throughput; speculative decoding (--speculative-config), fp8 weights/KV or tensor parallelism raise decode speed',
    },
    'scheduler-bound': {
      flags: '--max-num-seqs, --max-num-batched-tokens',
      text: 'let the engine batch more: raise --max-num-seqs and --max-num-batched-tokens',
    },
  },
  flagAliases: [
    ['--tensor-parallel-size', '-tp'],
    ['--pipeline-parallel-size', '-pp'],
    ['--data-parallel-size', '-dp'],
    ['--quantization', '-q'],
  ],
};

const SGLANG: EngineProfile = {
  id: 'sglang',
  label: 'SGLang',
  advice: {
    queueing: {
      flags: '--max-running-requests, --mem-fraction-static',
      text: 'admission: lower the load or add replicas; --max-running-requests (and KV room from --mem-fraction-static) let more requests run at once',
    },
    'kv-pressure': {
      flags: '--mem-fraction-static, --max-running-requests',
      text: '--mem-fraction-static (more KV memory), --max-running-requests (fewer requests sharing the cache), --context-length, --kv-cache-dtype, or tensor parallelism (--tp-size)',
    },
    'prefill-bound': {
      flags: '--chunked-prefill-size, --schedule-policy',
      text: '--chunked-prefill-size (smaller chunks let decodes run between the pieces of a long prefill); the radix prefix cache (on unless --disable-radix-cache) with --schedule-policy lpm for shared prefixes; shorter prompts',
    },
    'decode-bound': {
      flags: '--max-running-requests, --speculative-algorithm',
      text: 'fewer running requests (--max-running-requests) lower TPOT at the cost of throughput; speculative decoding (--speculative-algorithm), fp8 or tensor parallelism raise decode speed',
    },
    'scheduler-bound': {
      flags: '--max-running-requests, --chunked-prefill-size, --schedule-policy',
      text: 'let the engine batch more: raise --max-running-requests and --chunked-prefill-size; --schedule-policy decides who runs next',
    },
  },
  flagAliases: [
    ['--tensor-parallel-size', '--tp-size'],
    ['--data-parallel-size', '--dp-size'],
    ['--pipeline-parallel-size', '--pp-size'],
  ],
};

const LLAMACPP: EngineProfile = {
  id: 'llamacpp',
  label: 'llama.cpp',
  advice: {
    queueing: {
      flags: '-np/--parallel, -c/--ctx-size, --threads-http',
      text: 'admission: lower the load or add replicas; more slots (-np/--parallel, and -c/--ctx-size with them: each slot gets ctx-size ÷ parallel) let more requests run at once; --threads-http when requests wait for an HTTP thread',
    },
    'kv-pressure': {
      flags: '-c/--ctx-size, -np/--parallel, -ctk/-ctv',
      text: '-c/--ctx-size (the KV cache the slots share), fewer slots (-np/--parallel), a quantised KV cache (-ctk/--cache-type-k, -ctv/--cache-type-v q8_0)',
    },
    'prefill-bound': {
      flags: '-b/--batch-size, -ub/--ubatch-size, --cache-reuse',
      text: '-b/--batch-size and -ub/--ubatch-size (prompt tokens per step: a larger physical batch prefills faster on a GPU); --cache-reuse N reuses cached chunks of a prompt; shorter prompts',
    },
    'decode-bound': {
      flags: '-np/--parallel, -md/--model-draft, -ngl',
      text: 'fewer slots (-np/--parallel) lower TPOT at the cost of throughput; a draft model (-md/--model-draft), a smaller quantisation or more layers on the GPU (-ngl) raise decode speed',
    },
    'scheduler-bound': {
      flags: '-np/--parallel, -b/-ub, --threads-http',
      text: 'let the server batch more: raise -np/--parallel (with -c/--ctx-size) and -b/-ub; --threads-http if requests wait for an HTTP thread',
    },
  },
  flagAliases: [
    ['--parallel', '-np'],
    ['--batch-size', '-b'],
    ['--ubatch-size', '-ub'],
    ['--ctx-size', '-c'],
    ['--threads', '-t'],
    ['--n-gpu-layers', '--gpu-layers', '-ngl'],
    ['--flash-attn', '-fa'],
    ['--cache-type-k', '-ctk'],
    ['--cache-type-v', '-ctv'],
    ['--cont-batching', '-cb'],
    ['--no-cont-batching', '-nocb'],
    ['--model', '-m'],
    ['--model-draft', '-md'],
    ['--n-predict', '-n'],
    ['--kv-unified', '-kvu'],
  ],
};

const TGI: EngineProfile = {
  id: 'tgi',
  label: 'TGI',
  advice: {
    queueing: {
      flags: '--max-concurrent-requests, --max-batch-total-tokens, --max-waiting-tokens',
      text: 'admission: lower the load or add replicas; --max-batch-total-tokens lets more requests run at once when memory allows, --max-waiting-tokens how soon waiting ones join the batch; --max-concurrent-requests caps what is accepted',
    },
    'kv-pressure': {
      flags: '--max-batch-total-tokens, --cuda-memory-fraction',
      text: '--max-batch-total-tokens (the KV budget; inferred from free memory when unset), --cuda-memory-fraction, --max-total-tokens per request, or sharding (--num-shard)',
    },
    'prefill-bound': {
      flags: '--max-batch-prefill-tokens',
      text: '--max-batch-prefill-tokens (prompt tokens per prefill batch) so long prefills do not stall others; prefix caching for shared prefixes; shorter prompts',
    },
    'decode-bound': {
      flags: '--max-batch-size, --max-batch-total-tokens, --speculate',
      text: 'a smaller batch (--max-batch-size, --max-batch-total-tokens) lowers TPOT at the cost of throughput; speculative decoding (--speculate) or quantisation (--quantize) raise decode speed',
    },
    'scheduler-bound': {
      flags: '--max-batch-total-tokens, --max-batch-prefill-tokens, --max-waiting-tokens',
      text: 'let the router batch more: raise --max-batch-total-tokens and --max-batch-prefill-tokens, lower --max-waiting-tokens',
    },
  },
  flagAliases: [
    ['--model-id', '-m'],
    ['--port', '-p'],
  ],
};

const TRTLLM: EngineProfile = {
  id: 'trtllm',
  label: 'TensorRT-LLM',
  advice: {
    queueing: {
      flags: '--max_batch_size, --max_num_tokens',
      text: 'admission: lower the load or add replicas; --max_batch_size / --max_num_tokens let more requests run at once when KV memory allows',
    },
    'kv-pressure': {
      flags: '--kv_cache_free_gpu_memory_fraction, --max_batch_size, --max_seq_len',
      text: '--kv_cache_free_gpu_memory_fraction (more KV blocks), --max_batch_size (fewer sequences sharing the cache), --max_seq_len, an fp8 KV cache (kv_cache_config dtype), or tensor parallelism (--tp_size)',
    },
    'prefill-bound': {
      flags: '--max_num_tokens, enable_chunked_prefill',
      text: '--max_num_tokens with chunked prefill (enable_chunked_prefill in --extra_llm_api_options) so long prefills do not stall others; KV block reuse (kv_cache_config enable_block_reuse) for shared prefixes; shorter prompts',
    },
    'decode-bound': {
      flags: '--max_batch_size, speculative_config',
      text: 'a smaller batch (--max_batch_size) lowers TPOT at the cost of throughput; speculative decoding (speculative_config) or quantisation raise decode speed',
    },
    'scheduler-bound': {
      flags: '--max_batch_size, --max_num_tokens',
      text: 'let the engine batch more: raise --max_batch_size and --max_num_tokens',
    },
  },
  flagAliases: [],
};

/** Engines with a name but no table of their own (their knobs are their backend's). */
const LABELS: Partial<Record<EngineId, string>> = { triton: 'Triton', dynamo: 'NVIDIA Dynamo' };

/** Every engine's table, by id. */
export const ENGINE_PROFILES: Readonly<Record<KnownEngine, EngineProfile>> = {
  vllm: VLLM,
  sglang: SGLANG,
  llamacpp: LLAMACPP,
  tgi: TGI,
  trtllm: TRTLLM,
};

/** The table an engine's flags come from: the embedded engine speaks vLLM's; unknown has none. */
export function engineProfile(engine: EngineId | undefined): EngineProfile | undefined {
  if (engine === 'goodput-sim') return VLLM;
  return engine === undefined
    ? undefined
    : (ENGINE_PROFILES as Partial<Record<EngineId, EngineProfile>>)[engine];
}

/** "llama.cpp", "the embedded engine", "the server" (not detected). */
export function engineLabel(engine: EngineId | undefined): string {
  if (engine === 'goodput-sim') return 'the embedded engine';
  return engineProfile(engine)?.label ?? (engine && LABELS[engine]) ?? 'the server';
}

/** What each kind of advice is about, for an engine that was not detected. */
const GENERIC: Record<AdviceKind, string> = {
  queueing: 'admission: lower the load or add replicas, or let more requests run at once',
  'kv-pressure': 'more memory for the KV cache, or fewer sequences sharing it',
  'prefill-bound':
    'a prefill token budget with chunked prefill, prefix caching for shared prefixes, shorter prompts',
  'decode-bound':
    'a smaller batch lowers TPOT at the cost of throughput; speculative decoding or quantisation raise decode speed',
  'scheduler-bound': 'let the engine batch more',
};

/**
 * The advice of one kind for the engine that served the run, named as that engine names its
 * flags ("llama.cpp: …"); for an engine not detected, what to change and each engine's flags.
 */
export function engineAdvice(kind: AdviceKind, engine: EngineId | undefined): string {
  const profile = engineProfile(engine);
  if (profile)
    return engine === 'goodput-sim'
      ? profile.advice[kind].text
      : `${profile.label}: ${profile.advice[kind].text}`;
  const flags = Object.values(ENGINE_PROFILES)
    .map((p) => `${p.label} ${p.advice[kind].flags}`)
    .join('; ');
  return `${GENERIC[kind]} (${flags})`;
}
