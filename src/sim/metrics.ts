/**
 * Prometheus metrics of the simulated engine (prom-client, one registry per server), with
 * vLLM's names and `model_name` label, plus goodput's own series for what vLLM does not
 * expose:
 * - `goodput_sim:kv_fragmentation_perc`: 1 − tokens held / (allocated blocks × block size);
 * - `goodput_sim:abandoned_generation_tokens_total`: tokens generated for requests whose client had gone;
 * - `goodput_sim:computed_prefill_tokens_total`: prefill tokens computed, recomputation included;
 * - `goodput_sim:prefix_cache_evictions_total`, `goodput_sim:steps_total`, `goodput_sim:slowdown_factor`.
 * With LoRA adapters, vLLM's `vllm:lora_requests_info` (labels max_lora, running_lora_adapters,
 * waiting_lora_adapters: the adapters of the running and waiting requests, comma-separated).
 * With speculative decoding, vLLM's four `vllm:spec_decode_*` counters (SpecDecodingProm in
 * vllm/v1/spec_decode/metrics.py), exposed only then, as vLLM does.
 * Gauges and counters read the engine on each scrape; histograms observe engine events.
 *
 * @module
 */

import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import type { EngineConfig } from './engine-config.js';
import type { EngineRequest } from './request.js';
import type { Engine } from './scheduler.js';

// vLLM's bucket boundaries (vllm/v1/metrics/loggers.py).
const TTFT_BUCKETS = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640,
  2560,
];
const ITL_BUCKETS = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80,
];
const REQUEST_BUCKETS = [
  0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680,
];

/** Build the registry for an engine; returns it for `/metrics` (`registry.metrics()`). */
export function createSimMetrics(engine: Engine, modelName: string): PromClient.Registry {
  // Loaded on first use (~10 MB of RSS): a run against --url never starts a simulated engine.
  const prom = createRequire(import.meta.url)('prom-client') as typeof PromClient;
  const registry = new prom.Registry();
  const kit = metricKit(prom, registry, modelName);
  engineSeries(kit, engine);
  if (engine.config.speculative) specDecodeSeries(kit, engine);
  if (engine.config.loraModules.length > 0) loraSeries(kit, engine);
  kit.gauge(
    'goodput_sim:slowdown_factor',
    'Multiplier applied to every step time (1 = the roofline).',
    () => engine.slowdown,
  );
  latencyHistograms(kit, engine);
  return registry;
}

/** What the series of one registry share: prom-client, the registry, the model_name label, and two makers. */
interface MetricKit {
  prom: typeof PromClient;
  registers: PromClient.Registry[];
  modelName: string;
  labelNames: readonly ['model_name'];
  labels: { model_name: string };
  /** A gauge read from the engine on each scrape. */
  gauge(name: string, help: string, read: () => number): void;
  /** A counter read from the engine on each scrape. */
  counter(name: string, help: string, read: () => number): void;
}

function metricKit(prom: typeof PromClient, registry: PromClient.Registry, modelName: string): MetricKit {
  const { Counter, Gauge } = prom;
  const registers = [registry];
  const labelNames = ['model_name'] as const;
  const labels = { model_name: modelName };
  const gauge = (name: string, help: string, read: () => number): void => {
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.set(labels, read());
      },
    });
  };
  const counter = (name: string, help: string, read: () => number): void => {
    new Counter({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        this.inc(labels, read());
      },
    });
  };
  return { prom, registers, modelName, labelNames, labels, gauge, counter };
}

/** vLLM's scheduler, KV-cache, token and request series, and goodput's own. */
function engineSeries(kit: MetricKit, engine: Engine): void {
  const { gauge, counter, registers, modelName } = kit;
  const { Counter, Gauge } = kit.prom;
  const c = engine.counters;
  gauge(
    'vllm:num_requests_running',
    'Number of requests in model execution batches.',
    () => engine.numRunning,
  );
  gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', () => engine.numWaiting);
  gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', () => engine.kv.usage());
  counter(
    'vllm:num_preemptions_total',
    'Cumulative number of preemption from the engine.',
    () => c.preemptions,
  );
  counter('vllm:prompt_tokens_total', 'Number of prefill tokens processed.', () => c.promptTokens);
  counter('vllm:generation_tokens_total', 'Number of generation tokens processed.', () => c.generationTokens);
  counter(
    'vllm:prefix_cache_queries_total',
    'Prefix cache queries, in terms of number of queried tokens.',
    () => c.prefixCacheQueries,
  );
  counter(
    'vllm:prefix_cache_hits_total',
    'Prefix cache hits, in terms of number of cached tokens.',
    () => c.prefixCacheHits,
  );
  new Counter({
    name: 'vllm:request_success_total',
    help: 'Count of successfully processed requests.',
    labelNames: ['model_name', 'finished_reason'],
    registers,
    collect() {
      this.reset();
      for (const reason of ['stop', 'length', 'abort'] as const)
        this.inc({ model_name: modelName, finished_reason: reason }, c.finished[reason]);
    },
  });
  const { config } = engine;
  new Gauge({
    name: 'vllm:cache_config_info',
    help: 'Information of the LLMEngine CacheConfig',
    labelNames: [
      'block_size',
      'num_gpu_blocks',
      'gpu_memory_utilization',
      'enable_prefix_caching',
      'cache_dtype',
    ],
    registers,
  }).set(cacheConfigLabels(config), 1);
  gauge(
    'goodput_sim:kv_fragmentation_perc',
    'Unused slots in allocated KV blocks: 1 - tokens held / (allocated blocks x block size).',
    () => engine.kv.fragmentation(),
  );
  counter(
    'goodput_sim:abandoned_generation_tokens_total',
    'Tokens generated for requests whose client had gone.',
    () => c.abandonedTokens,
  );
  counter(
    'goodput_sim:computed_prefill_tokens_total',
    'Prefill tokens computed, recomputation after preemption included.',
    () => c.computedPrefillTokens,
  );
  counter(
    'goodput_sim:prefix_cache_evictions_total',
    'KV blocks evicted from the prefix cache.',
    () => engine.kv.evictions,
  );
  counter('goodput_sim:steps_total', 'Engine steps run.', () => c.steps);
}

/** vLLM's four spec_decode counters (only with speculative decoding, as vLLM). */
function specDecodeSeries(kit: MetricKit, engine: Engine): void {
  const { counter, registers, modelName } = kit;
  const { Counter } = kit.prom;
  const c = engine.counters;
  counter('vllm:spec_decode_num_drafts_total', 'Number of spec decoding drafts.', () => c.specDrafts);
  counter('vllm:spec_decode_num_draft_tokens_total', 'Number of draft tokens.', () => c.specDraftTokens);
  counter(
    'vllm:spec_decode_num_accepted_tokens_total',
    'Number of accepted tokens.',
    () => c.specAcceptedTokens,
  );
  new Counter({
    name: 'vllm:spec_decode_num_accepted_tokens_per_pos_total',
    help: 'Accepted tokens per draft position.',
    labelNames: ['model_name', 'position'],
    registers,
    collect() {
      this.reset();
      c.specAcceptedByPosition.forEach((n, position) => {
        this.inc({ model_name: modelName, position: String(position) }, n);
      });
    },
  });
}

/** vLLM's `vllm:lora_requests_info`: the adapters of the running and waiting requests (only with adapters, as vLLM). */
function loraSeries(kit: MetricKit, engine: Engine): void {
  const { Gauge } = kit.prom;
  const { registers } = kit;
  const { config } = engine;
  new Gauge({
    name: 'vllm:lora_requests_info',
    help: 'Running stats on lora requests.',
    labelNames: ['max_lora', 'waiting_lora_adapters', 'running_lora_adapters'],
    registers,
    // vLLM sets the series of the current label values to the time; readers take the newest.
    collect() {
      this.reset();
      const { running, waiting } = engine.loraUsage();
      const now = Date.now() / 1000;
      this.set(
        {
          max_lora: String(config.maxLoras),
          waiting_lora_adapters: waiting.join(','),
          running_lora_adapters: running.join(','),
        },
        now,
      );
    },
  });
}

/** vLLM's latency histograms, observed on engine events. */
function latencyHistograms(kit: MetricKit, engine: Engine): void {
  const { labelNames, labels, registers } = kit;
  const { Histogram } = kit.prom;
  const hist = (name: string, help: string, buckets: number[]) =>
    new Histogram({ name, help, labelNames, buckets, registers }).labels(labels);
  const ttft = hist(
    'vllm:time_to_first_token_seconds',
    'Histogram of time to first token in seconds.',
    TTFT_BUCKETS,
  );
  const itl = hist(
    'vllm:inter_token_latency_seconds',
    'Histogram of inter-token latency in seconds.',
    ITL_BUCKETS,
  );
  const e2e = hist(
    'vllm:e2e_request_latency_seconds',
    'Histogram of e2e request latency in seconds.',
    REQUEST_BUCKETS,
  );
  const queue = hist(
    'vllm:request_queue_time_seconds',
    'Histogram of time spent in WAITING phase for request.',
    REQUEST_BUCKETS,
  );
  engine.listeners.push({
    onToken(req: EngineRequest, tMs: number, gapMs: number | undefined) {
      if (gapMs !== undefined) itl.observe(gapMs / 1e3);
      else ttft.observe((tMs - req.arrivalMs) / 1e3);
    },
    onFinish(req: EngineRequest, tMs: number) {
      if (req.finishedAs === 'abort') return;
      e2e.observe((tMs - req.arrivalMs) / 1e3);
      if (req.firstScheduledMs !== undefined) queue.observe((req.firstScheduledMs - req.arrivalMs) / 1e3);
    },
  });
}

/** The labels of `vllm:cache_config_info` as the engine publishes them (the virtual engine's self-description too). */
export function cacheConfigLabels(
  config: Pick<EngineConfig, 'blockSize' | 'numGpuBlocks' | 'gpuMemoryUtilization' | 'enablePrefixCaching'>,
): Record<string, string> {
  return {
    block_size: String(config.blockSize),
    num_gpu_blocks: String(config.numGpuBlocks),
    gpu_memory_utilization: String(config.gpuMemoryUtilization),
    enable_prefix_caching: String(config.enablePrefixCaching),
    cache_dtype: 'auto',
  };
}
