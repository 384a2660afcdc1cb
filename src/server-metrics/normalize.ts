/**
 * Normalisation: one engine's Prometheus names → goodput's server vocabulary
 * (ServerSeriesName). Each engine has a table of rules; a rule lists candidate metric
 * names, newest first (vLLM renamed `gpu_cache_usage_perc` to `kv_cache_usage_perc`,
 * SGLang moved from `sglang:` to `sglang_`), and how label sets combine: counters and
 * queue depths are summed across label sets (several model_name / engine / tp_rank
 * series), ratios are averaged.
 *
 * Sources of the names (documented metric lists):
 * - vLLM: https://docs.vllm.ai/en/stable/usage/metrics/ (V1: kv_cache_usage_perc,
 *   prefix_cache_queries/hits, cache_config_info) and v0.5–0.8 pages (gpu_cache_usage_perc,
 *   gpu_prefix_cache_*).
 * - SGLang: https://docs.sglang.io/references/production_metrics.html (num_running_reqs,
 *   num_queue_reqs, token_usage, cached_tokens_total, …); `sglang_` prefix from v0.5.4.
 * - llama.cpp: tools/server/README.md "GET /metrics" (requests_processing,
 *   requests_deferred, tokens_predicted_total; kv_cache_usage_ratio in older builds).
 * - TGI: https://huggingface.co/docs/text-generation-inference/reference/metrics
 *   (tgi_queue_size, tgi_batch_current_size, tgi_request_generated_tokens, …).
 *
 * @module
 */

import type { ServerSample, ServerSeriesName } from '../types.js';
import type { PromExposition, PromSample } from './parse.js';

export type ServerEngine = ServerSample['engine'];

type Aggregation = 'sum' | 'mean' | 'max';

interface SeriesRule {
  series: ServerSeriesName;
  /** Candidate sample names, first present wins. */
  names: string[];
  agg: Aggregation;
}

/** Counters appear as `x_total` (Prometheus client libraries) or bare `x` (some exporters). */
function counter(base: string): string[] {
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

function sglangRules(p: string): SeriesRule[] {
  return [
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
  ];
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

/** Which engine exposed these samples, from the metric names. */
export function detectEngine(samples: readonly PromSample[]): ServerEngine {
  let engine: ServerEngine = 'unknown';
  for (const s of samples) {
    const name = s.name;
    if (name.startsWith('goodput')) return 'goodput-sim';
    if (engine !== 'unknown') continue;
    if (name.startsWith('vllm:')) engine = 'vllm';
    else if (name.startsWith('sglang:') || name.startsWith('sglang_')) engine = 'sglang';
    else if (name.startsWith('llamacpp:')) engine = 'llamacpp';
    else if (name.startsWith('tgi_')) engine = 'tgi';
  }
  return engine;
}

function rulesFor(engine: ServerEngine, samples: readonly PromSample[]): SeriesRule[] {
  switch (engine) {
    case 'vllm':
      return VLLM_RULES;
    case 'goodput-sim':
      return SIM_RULES;
    case 'sglang':
      return sglangRules(samples.some((s) => s.name.startsWith('sglang:')) ? 'sglang:' : 'sglang_');
    case 'llamacpp':
      return LLAMACPP_RULES;
    case 'tgi':
      return TGI_RULES;
    default:
      return [];
  }
}

/** Groups sample values by name (every label set), skipping NaN. */
function valuesByName(samples: readonly PromSample[]): Map<string, number[]> {
  const byName = new Map<string, number[]>();
  for (const s of samples) {
    if (Number.isNaN(s.value)) continue;
    let list = byName.get(s.name);
    if (!list) {
      list = [];
      byName.set(s.name, list);
    }
    list.push(s.value);
  }
  return byName;
}

function aggregate(values: number[], agg: Aggregation): number {
  let acc = agg === 'max' ? Number.NEGATIVE_INFINITY : 0;
  for (const v of values) acc = agg === 'max' ? Math.max(acc, v) : acc + v;
  return agg === 'mean' ? acc / values.length : acc;
}

/** vLLM's cache_config_info carries the KV layout in labels: block_size and num_gpu_blocks. */
function cacheLayout(samples: readonly PromSample[]): { blockSize?: number; numBlocks?: number } {
  let blockSize: number | undefined;
  let numBlocks: number | undefined;
  for (const s of samples) {
    if (s.name !== 'vllm:cache_config_info' && s.name !== 'vllm:cache_config') continue;
    const bs = Number(s.labels.block_size);
    const nb = Number(s.labels.num_gpu_blocks);
    if (s.labels.block_size !== undefined && Number.isFinite(bs) && bs > 0) {
      blockSize = Math.max(blockSize ?? 0, bs);
    }
    // Data-parallel engines each report their own pool: the blocks add up.
    if (s.labels.num_gpu_blocks !== undefined && Number.isFinite(nb) && nb > 0) {
      numBlocks = (numBlocks ?? 0) + nb;
    }
  }
  return { blockSize, numBlocks };
}

/** Draft positions kept at most: vLLM drafts a handful; a hostile `position` label must not size an array. */
const MAX_DRAFT_POSITIONS = 64;

/**
 * vLLM's accepted tokens per draft position (vllm/v1/spec_decode/metrics.py: counter
 * `vllm:spec_decode_num_accepted_tokens_per_pos`, labels of the engine plus `position`, from 0):
 * summed across engines by position; a position missing below the highest seen counts 0.
 */
function acceptedByPosition(samples: readonly PromSample[]): number[] | undefined {
  for (const name of counter('vllm:spec_decode_num_accepted_tokens_per_pos')) {
    const byPos: number[] = [];
    let found = false;
    for (const s of samples) {
      if (s.name !== name || Number.isNaN(s.value)) continue;
      const label = s.labels.position;
      const pos = Number(label);
      if (label === undefined || label === '' || !Number.isInteger(pos) || pos < 0) continue;
      if (pos >= MAX_DRAFT_POSITIONS) continue;
      found = true;
      byPos[pos] = (byPos[pos] ?? 0) + s.value;
    }
    if (found) return Array.from(byPos, (v) => v ?? 0);
  }
  return undefined;
}

/** One scrape normalised: a ServerSample without its time. */
export type NormalizedScrape = Omit<ServerSample, 'tMs'>;

/**
 * Normalises one parsed scrape into goodput's vocabulary.
 *
 * @param engine force an engine instead of detecting it from the names
 */
export function normalizeExposition(
  exposition: Pick<PromExposition, 'samples'>,
  engine: ServerEngine = detectEngine(exposition.samples),
): NormalizedScrape {
  const samples = exposition.samples;
  const byName = valuesByName(samples);
  const values: ServerSample['values'] = {};
  for (const rule of rulesFor(engine, samples)) {
    if (values[rule.series] !== undefined) continue;
    for (const name of rule.names) {
      const list = byName.get(name);
      if (list && list.length > 0) {
        values[rule.series] = aggregate(list, rule.agg);
        break;
      }
    }
  }
  if (engine === 'sglang' && values.kvUsage === undefined) {
    // Older SGLang: used / max tokens.
    const p = samples.some((s) => s.name.startsWith('sglang:')) ? 'sglang:' : 'sglang_';
    const used = byName.get(`${p}num_used_tokens`);
    const max = byName.get(`${p}max_total_num_tokens`);
    if (used && max) {
      const capacity = aggregate(max, 'sum');
      if (capacity > 0) values.kvUsage = aggregate(used, 'sum') / capacity;
    }
  }
  if (engine === 'vllm' || engine === 'goodput-sim') {
    const { blockSize, numBlocks } = cacheLayout(samples);
    if (blockSize !== undefined) values.blockSize = blockSize;
    if (numBlocks !== undefined) values.numBlocks = numBlocks;
    const perPos = acceptedByPosition(samples);
    if (perPos) return { engine, values, specAcceptedByPosition: perPos };
  }
  return { engine, values };
}
