/**
 * The dialect tables: one engine's Prometheus names → goodput's server vocabulary
 * (ServerSeriesName). A rule lists candidate names, newest first (vLLM renamed
 * `gpu_cache_usage_perc` to `kv_cache_usage_perc`, SGLang moved from `sglang:` to `sglang_`),
 * optionally one label a sample must carry (Triton's TensorRT-LLM backend puts the kind of a
 * figure in a label), and how label sets combine: counters and queue depths are summed across
 * label sets (several model_name / engine / tp_rank series), ratios are averaged. A dialect may
 * also derive KV usage as used / capacity when the engine publishes no ratio.
 *
 * Sources of the names (documented metric lists; each fixture in fixtures/ is written from them):
 * - vLLM: https://docs.vllm.ai/en/stable/usage/metrics/ (V1: kv_cache_usage_perc,
 *   prefix_cache_queries/hits, inter_token_latency_seconds, cache_config_info) and the v0.5–0.8
 *   pages (gpu_cache_usage_perc, gpu_prefix_cache_*, time_per_output_token_seconds); since
 *   v0.11 `time_per_output_token_seconds` is deprecated for `inter_token_latency_seconds` and
 *   `request_time_per_output_token_seconds` is a per-request TPOT, not an ITL (not read).
 * - SGLang: https://docs.sglang.io/references/production_metrics.html (num_running_reqs,
 *   num_queue_reqs, token_usage, cached_tokens_total, …); `sglang_` prefix from v0.5.4.
 * - llama.cpp: tools/server/README.md "GET /metrics" (requests_processing,
 *   requests_deferred, tokens_predicted_total; kv_cache_usage_ratio in older builds).
 * - TGI: https://huggingface.co/docs/text-generation-inference/reference/metrics
 *   (tgi_queue_size, tgi_batch_current_size, tgi_request_generated_tokens, …).
 * - TensorRT-LLM (`trtllm-serve`, page at /prometheus/metrics): NVIDIA/TensorRT-LLM
 *   tensorrt_llm/metrics/collector.py (MetricsCollector: trtllm_num_requests_running/_waiting,
 *   trtllm_kv_cache_utilization, trtllm_prompt_tokens_total, trtllm_prompt_cached_tokens_total,
 *   trtllm_kv_cache_max_blocks, trtllm_kv_cache_tokens_per_block, …) and
 *   https://nvidia.github.io/TensorRT-LLM/examples/prometheus_metrics.html (the path);
 *   Dynamo 0.7 passed them through as `trtllm:` (docs.nvidia.com/dynamo, TensorRT-LLM
 *   Prometheus metrics), read too.
 * - Triton: triton-inference-server/server docs/user_guide/metrics.md (nv_inference_*,
 *   nv_inference_pending_request_count) and, for its TensorRT-LLM backend,
 *   triton-inference-server/tensorrtllm_backend inflight_batcher_llm custom_metrics_reporter
 *   (nv_trt_llm_request_metrics{request_type=…}, nv_trt_llm_kv_cache_block_metrics
 *   {kv_cache_block_type=…}, nv_llm_input_token_len / nv_llm_output_token_len histograms);
 *   its GPU power, nv_gpu_power_usage (W per GPU), is read as the server's own GPU power.
 * - NVIDIA Dynamo: ai-dynamo/dynamo lib/runtime/src/metrics/prometheus_names.rs and
 *   https://docs.nvidia.com/dynamo/latest/observability/metrics.html: the frontend's
 *   dynamo_frontend_* (inflight_requests, queued_requests, time_to_first_token_seconds,
 *   inter_token_latency_seconds, input/output_sequence_tokens, cached_tokens,
 *   model_kv_cache_block_size) and the workers' dynamo_component_kvstats_* (total_blocks,
 *   gpu_cache_usage_percent, a 0–1 ratio despite its name).
 *
 * @module
 */

import type { ServerSample, ServerSeriesName } from '../types.js';

export type ServerEngine = ServerSample['engine'];

export type Aggregation = 'sum' | 'mean' | 'max';

/** A sample name, with one label it must carry when the name alone says too little. */
export interface NameRef {
  name: string;
  label?: readonly [key: string, value: string];
}

export interface SeriesRule {
  series: ServerSeriesName;
  /** Candidate samples, first present wins. */
  names: ReadonlyArray<string | NameRef>;
  agg: Aggregation;
}

export interface Dialect {
  rules: readonly SeriesRule[];
  /** KV usage as Σused / Σcapacity, when no rule gave it (both present, capacity > 0). */
  kvUsageFrom?: { used: NameRef; capacity: NameRef };
}

/** Counters appear as `x_total` (Prometheus client libraries) or bare `x` (some exporters). */
export function counter(base: string): string[] {
  return [`${base}_total`, base];
}

const VLLM_RULES: SeriesRule[] = [
  { series: 'running', names: ['vllm:num_requests_running'], agg: 'sum' },
  { series: 'waiting', names: ['vllm:num_requests_waiting'], agg: 'sum' },
  { series: 'kvUsage', names: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'], agg: 'mean' },
  { series: 'preemptionsTotal', names: counter('vllm:num_preemptions'), agg: 'sum' },
  { series: 'promptTokensTotal', names: counter('vllm:prompt_tokens'), agg: 'sum' },
  { series: 'generationTokensTotal', names: counter('vllm:generation_tokens'), agg: 'sum' },
  {
    series: 'prefixCacheQueriesTotal',
    names: [...counter('vllm:prefix_cache_queries'), ...counter('vllm:gpu_prefix_cache_queries')],
    agg: 'sum',
  },
  {
    series: 'prefixCacheHitsTotal',
    names: [...counter('vllm:prefix_cache_hits'), ...counter('vllm:gpu_prefix_cache_hits')],
    agg: 'sum',
  },
  { series: 'serverTtftSecondsSum', names: ['vllm:time_to_first_token_seconds_sum'], agg: 'sum' },
  { series: 'serverTtftCount', names: ['vllm:time_to_first_token_seconds_count'], agg: 'sum' },
  {
    series: 'serverItlSecondsSum',
    names: ['vllm:inter_token_latency_seconds_sum', 'vllm:time_per_output_token_seconds_sum'],
    agg: 'sum',
  },
  {
    series: 'serverItlCount',
    names: ['vllm:inter_token_latency_seconds_count', 'vllm:time_per_output_token_seconds_count'],
    agg: 'sum',
  },
  // Speculative decoding (vllm/v1/spec_decode/metrics.py, SpecDecodingProm).
  { series: 'specDraftsTotal', names: counter('vllm:spec_decode_num_drafts'), agg: 'sum' },
  { series: 'specDraftTokensTotal', names: counter('vllm:spec_decode_num_draft_tokens'), agg: 'sum' },
  { series: 'specAcceptedTokensTotal', names: counter('vllm:spec_decode_num_accepted_tokens'), agg: 'sum' },
];

/**
 * The simulator speaks vLLM and adds what vLLM cannot say (src/sim/metrics.ts):
 * `goodput_sim:kv_fragmentation_perc` and `goodput_sim:abandoned_generation_tokens_total`.
 */
const SIM_RULES: SeriesRule[] = [
  ...VLLM_RULES,
  { series: 'kvFragmentation', names: ['goodput_sim:kv_fragmentation_perc'], agg: 'mean' },
  { series: 'wastedTokensTotal', names: counter('goodput_sim:abandoned_generation_tokens'), agg: 'sum' },
];

function sglang(p: string): Dialect {
  return {
    rules: [
      { series: 'running', names: [`${p}num_running_reqs`], agg: 'sum' },
      { series: 'waiting', names: [`${p}num_queue_reqs`], agg: 'sum' },
      { series: 'kvUsage', names: [`${p}token_usage`], agg: 'mean' },
      { series: 'promptTokensTotal', names: counter(`${p}prompt_tokens`), agg: 'sum' },
      { series: 'generationTokensTotal', names: counter(`${p}generation_tokens`), agg: 'sum' },
      // SGLang counts prefix-cache reuse in tokens: hits = cached prompt tokens, queries = prompt tokens.
      { series: 'prefixCacheQueriesTotal', names: counter(`${p}prompt_tokens`), agg: 'sum' },
      { series: 'prefixCacheHitsTotal', names: counter(`${p}cached_tokens`), agg: 'sum' },
      { series: 'serverTtftSecondsSum', names: [`${p}time_to_first_token_seconds_sum`], agg: 'sum' },
      { series: 'serverTtftCount', names: [`${p}time_to_first_token_seconds_count`], agg: 'sum' },
      { series: 'serverItlSecondsSum', names: [`${p}inter_token_latency_seconds_sum`], agg: 'sum' },
      { series: 'serverItlCount', names: [`${p}inter_token_latency_seconds_count`], agg: 'sum' },
    ],
    // Older SGLang: used / max tokens.
    kvUsageFrom: { used: { name: `${p}num_used_tokens` }, capacity: { name: `${p}max_total_num_tokens` } },
  };
}

const LLAMACPP_RULES: SeriesRule[] = [
  { series: 'running', names: ['llamacpp:requests_processing'], agg: 'sum' },
  { series: 'waiting', names: ['llamacpp:requests_deferred'], agg: 'sum' },
  { series: 'kvUsage', names: ['llamacpp:kv_cache_usage_ratio'], agg: 'mean' },
  { series: 'promptTokensTotal', names: counter('llamacpp:prompt_tokens'), agg: 'sum' },
  { series: 'generationTokensTotal', names: counter('llamacpp:tokens_predicted'), agg: 'sum' },
];

const TGI_RULES: SeriesRule[] = [
  { series: 'running', names: ['tgi_batch_current_size'], agg: 'sum' },
  { series: 'waiting', names: ['tgi_queue_size'], agg: 'sum' },
  // TGI has no token counters; the per-request histograms' sums are cumulative token totals.
  { series: 'promptTokensTotal', names: ['tgi_request_input_length_sum'], agg: 'sum' },
  { series: 'generationTokensTotal', names: ['tgi_request_generated_tokens_sum'], agg: 'sum' },
  { series: 'serverItlSecondsSum', names: ['tgi_request_mean_time_per_token_duration_sum'], agg: 'sum' },
  { series: 'serverItlCount', names: ['tgi_request_mean_time_per_token_duration_count'], agg: 'sum' },
];

/** trtllm-serve (`trtllm_`), or its metrics passed through by Dynamo 0.7 (`trtllm:`). */
function trtllm(p: string): Dialect {
  return {
    rules: [
      { series: 'running', names: [`${p}num_requests_running`], agg: 'sum' },
      { series: 'waiting', names: [`${p}num_requests_waiting`], agg: 'sum' },
      { series: 'kvUsage', names: [`${p}kv_cache_utilization`], agg: 'mean' },
      { series: 'promptTokensTotal', names: counter(`${p}prompt_tokens`), agg: 'sum' },
      { series: 'generationTokensTotal', names: counter(`${p}generation_tokens`), agg: 'sum' },
      // Prefix reuse in tokens, as SGLang: hits = prompt tokens served from the KV cache.
      { series: 'prefixCacheQueriesTotal', names: counter(`${p}prompt_tokens`), agg: 'sum' },
      { series: 'prefixCacheHitsTotal', names: counter(`${p}prompt_cached_tokens`), agg: 'sum' },
      { series: 'serverTtftSecondsSum', names: [`${p}time_to_first_token_seconds_sum`], agg: 'sum' },
      { series: 'serverTtftCount', names: [`${p}time_to_first_token_seconds_count`], agg: 'sum' },
      // TensorRT-LLM's per-request mean time per output token: the nearest it has to an ITL.
      { series: 'serverItlSecondsSum', names: [`${p}time_per_output_token_seconds_sum`], agg: 'sum' },
      { series: 'serverItlCount', names: [`${p}time_per_output_token_seconds_count`], agg: 'sum' },
      { series: 'blockSize', names: [`${p}kv_cache_tokens_per_block`], agg: 'max' },
      { series: 'numBlocks', names: [`${p}kv_cache_max_blocks`], agg: 'sum' },
      { series: 'specDraftTokensTotal', names: counter(`${p}spec_decode_num_draft_tokens`), agg: 'sum' },
      {
        series: 'specAcceptedTokensTotal',
        names: counter(`${p}spec_decode_num_accepted_tokens`),
        agg: 'sum',
      },
    ],
    kvUsageFrom: {
      used: { name: `${p}kv_cache_used_blocks` },
      capacity: { name: `${p}kv_cache_max_blocks` },
    },
  };
}

const TRT_REQUESTS = 'nv_trt_llm_request_metrics';
const TRT_BLOCKS = 'nv_trt_llm_kv_cache_block_metrics';
const requestType = (value: string): NameRef => ({ name: TRT_REQUESTS, label: ['request_type', value] });
const blockType = (value: string): NameRef => ({ name: TRT_BLOCKS, label: ['kv_cache_block_type', value] });

/**
 * Triton Inference Server: its own `nv_inference_*` counters are request-shaped (no tokens, no
 * KV); an LLM served by the TensorRT-LLM backend adds the `nv_trt_llm_*` gauges (the kind in a
 * label) and token-length histograms, which carry what goodput reads.
 */
const TRITON: Dialect = {
  rules: [
    { series: 'running', names: [requestType('scheduled')], agg: 'sum' },
    { series: 'waiting', names: [requestType('waiting'), 'nv_inference_pending_request_count'], agg: 'sum' },
    { series: 'kvUsage', names: [blockType('fraction')], agg: 'mean' },
    {
      series: 'promptTokensTotal',
      names: [{ name: 'nv_llm_input_token_len_sum', label: ['response_metric_type', 'total_input_tokens'] }],
      agg: 'sum',
    },
    {
      series: 'generationTokensTotal',
      names: [
        { name: 'nv_llm_output_token_len_sum', label: ['response_metric_type', 'total_output_tokens'] },
      ],
      agg: 'sum',
    },
    { series: 'blockSize', names: [blockType('tokens_per')], agg: 'max' },
    { series: 'numBlocks', names: [blockType('max')], agg: 'sum' },
    // Triton reads its GPUs through DCGM and publishes their power (per GPU): an energy source.
    { series: 'gpuPowerW', names: ['nv_gpu_power_usage'], agg: 'sum' },
  ],
  kvUsageFrom: { used: blockType('used'), capacity: blockType('max') },
};

/**
 * NVIDIA Dynamo: the HTTP frontend's page (requests, tokens and latencies as the frontend saw
 * them) and the workers' KV statistics. A worker's page that passes its engine's own names
 * through (vllm:, sglang:, trtllm_) is read in that engine's dialect instead (detectEngine).
 */
const DYNAMO_RULES: SeriesRule[] = [
  { series: 'running', names: ['dynamo_frontend_inflight_requests'], agg: 'sum' },
  { series: 'waiting', names: ['dynamo_frontend_queued_requests'], agg: 'sum' },
  { series: 'kvUsage', names: ['dynamo_component_kvstats_gpu_cache_usage_percent'], agg: 'mean' },
  { series: 'promptTokensTotal', names: ['dynamo_frontend_input_sequence_tokens_sum'], agg: 'sum' },
  {
    series: 'generationTokensTotal',
    names: [...counter('dynamo_frontend_output_tokens'), 'dynamo_frontend_output_sequence_tokens_sum'],
    agg: 'sum',
  },
  { series: 'prefixCacheQueriesTotal', names: ['dynamo_frontend_input_sequence_tokens_sum'], agg: 'sum' },
  { series: 'prefixCacheHitsTotal', names: ['dynamo_frontend_cached_tokens_sum'], agg: 'sum' },
  { series: 'serverTtftSecondsSum', names: ['dynamo_frontend_time_to_first_token_seconds_sum'], agg: 'sum' },
  { series: 'serverTtftCount', names: ['dynamo_frontend_time_to_first_token_seconds_count'], agg: 'sum' },
  { series: 'serverItlSecondsSum', names: ['dynamo_frontend_inter_token_latency_seconds_sum'], agg: 'sum' },
  { series: 'serverItlCount', names: ['dynamo_frontend_inter_token_latency_seconds_count'], agg: 'sum' },
  { series: 'blockSize', names: ['dynamo_frontend_model_kv_cache_block_size'], agg: 'max' },
  { series: 'numBlocks', names: ['dynamo_component_kvstats_total_blocks'], agg: 'sum' },
];

/** The dialect of an engine; `prefix` tells which spelling the page used (SGLang, TensorRT-LLM). */
export function dialectOf(engine: ServerEngine, hasName: (prefix: string) => boolean): Dialect {
  switch (engine) {
    case 'vllm':
      return { rules: VLLM_RULES };
    case 'goodput-sim':
      return { rules: SIM_RULES };
    case 'sglang':
      return sglang(hasName('sglang:') ? 'sglang:' : 'sglang_');
    case 'llamacpp':
      return { rules: LLAMACPP_RULES };
    case 'tgi':
      return { rules: TGI_RULES };
    case 'trtllm':
      return trtllm(hasName('trtllm_') ? 'trtllm_' : 'trtllm:');
    case 'triton':
      return TRITON;
    case 'dynamo':
      return { rules: DYNAMO_RULES };
    default:
      return { rules: [] };
  }
}

/** The engine a metric name belongs to, by its prefix; undefined for names of no engine. */
export function engineOfName(name: string): ServerEngine | undefined {
  if (name.startsWith('goodput')) return 'goodput-sim';
  if (name.startsWith('vllm:')) return 'vllm';
  if (name.startsWith('sglang:') || name.startsWith('sglang_')) return 'sglang';
  if (name.startsWith('llamacpp:')) return 'llamacpp';
  if (name.startsWith('tgi_')) return 'tgi';
  if (name.startsWith('trtllm_') || name.startsWith('trtllm:')) return 'trtllm';
  if (name.startsWith('nv_inference_') || name.startsWith('nv_trt_llm_')) return 'triton';
  if (name.startsWith('dynamo_')) return 'dynamo';
  return undefined;
}
