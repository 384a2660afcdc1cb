/** The inference server's metrics: one scrape (ServerSample) and a run's server block (ServerSummary). @module */

import type { GpuSummary } from './gpu.js';
import type { Ms } from './request.js';

/** Normalised server-side series (one vocabulary for every engine's dialect and the simulator). */
export type ServerSeriesName =
  | 'running'
  | 'waiting'
  | 'kvUsage'
  | 'preemptionsTotal'
  | 'promptTokensTotal'
  | 'generationTokensTotal'
  | 'prefixCacheQueriesTotal'
  | 'prefixCacheHitsTotal'
  | 'kvFragmentation'
  | 'wastedTokensTotal'
  | 'blockSize'
  | 'numBlocks'
  /** Server-side latency histograms, when exported: cumulative sum (seconds) and count. */
  | 'serverTtftSecondsSum'
  | 'serverTtftCount'
  | 'serverItlSecondsSum'
  | 'serverItlCount'
  /** vLLM speculative decoding counters: drafts, draft tokens proposed, draft tokens accepted. */
  | 'specDraftsTotal'
  | 'specDraftTokensTotal'
  | 'specAcceptedTokensTotal'
  /** GPU power the server publishes of itself (Triton's nv_gpu_power_usage), W, summed over its GPUs. */
  | 'gpuPowerW';

/** The engines whose metrics goodput reads (server-metrics/dialects.ts), and the simulator. */
export const SERVER_ENGINES = [
  'vllm',
  'sglang',
  'llamacpp',
  'tgi',
  'trtllm',
  'triton',
  'dynamo',
  'goodput-sim',
  'unknown',
] as const;

/** One scrape of the server's metrics, normalised. */
export interface ServerSample {
  tMs: Ms;
  engine: (typeof SERVER_ENGINES)[number];
  values: Partial<Record<ServerSeriesName, number>>;
  /**
   * vLLM's `spec_decode_num_accepted_tokens_per_pos` counter by its `position` label (index 0 =
   * position "0"), summed across label sets (engines); absent without speculative decoding.
   */
  specAcceptedByPosition?: number[];
  /**
   * Which replica this scrape is of, when the run scraped several (`--metrics-url` given more
   * than once, or a Prometheus server's series by instance); absent with one endpoint.
   */
  replica?: string;
}

export interface SeriesStats {
  min: number;
  mean: number;
  max: number;
  last: number;
}

export interface ServerSummary {
  engine: ServerSample['engine'];
  metricsUrl: string;
  samples: number;
  series: Partial<Record<ServerSeriesName, SeriesStats>>;
  preemptions?: number;
  prefixCacheHitRate?: number;
  kvFragmentation?: number;
  generatedTokens?: number;
  wastedTokens?: number;
  /** Preemptions per second over the scrape window (first to last sample). */
  preemptionsPerS?: number;
  /** Where kvFragmentation came from: the server's own gauge, or derived (see server-metrics/fragmentation.ts). */
  fragmentationSource?: 'server' | 'derived';
  /** Mean TTFT and ITL from the server's own histograms (deltas over the run), when exported. */
  serverTtftMeanMs?: number;
  serverItlMeanMs?: number;
  /** Speculative decoding over the run (counter deltas): accepted ÷ draft tokens. */
  specAcceptanceRate?: number;
  /** Tokens per verification step, vLLM's definition: 1 + accepted tokens ÷ drafts. */
  specMeanAcceptedLength?: number;
  /**
   * Per draft position k (vLLM's `position` label, from 0): Δaccepted at k ÷ Δdrafts, the share
   * of drafts whose first k+1 tokens were accepted. Sums to specMeanAcceptedLength − 1.
   */
  specAcceptanceRateByPosition?: number[];
  /** Scrapes that failed (timeout, refused, not Prometheus text): counted, never fatal. */
  scrapeFailures?: number;
  /** GPU telemetry from a DCGM exporter (`--gpu-metrics-url`), when it was scraped. */
  gpu?: GpuSummary;
  /**
   * Several replicas (server-metrics/replicas.ts): each one's own figures, in the order given.
   * The block's own figures are then their totals: counters summed, queue depths summed per
   * scrape round, ratios (KV usage, fragmentation) the mean across replicas per round.
   */
  replicas?: ReplicaServerSummary[];
  /** Several replicas: for the ratios averaged across them, the highest any one replica reached, and which. */
  replicaMax?: Partial<Record<ServerSeriesName, { value: number; replica: string }>>;
}

/** One replica's figures in a server block of several (`ServerSummary.replicas`). */
export interface ReplicaServerSummary extends Omit<ServerSummary, 'replicas' | 'replicaMax' | 'gpu'> {
  /** Its name: given as NAME=URL, else the endpoint's host:port (or a Prometheus instance label). */
  replica: string;
  /** Requests it served during the run: the increase of its TTFT histogram's count (one per request), when exported. */
  requests?: number;
}
