/**
 * Server metrics: the engine's own view beside the client's. A Prometheus text parser
 * (pure), normalisation of vLLM, SGLang, llama.cpp, TGI and the simulator into one
 * vocabulary, a failure-tolerant scraper, and the run's ServerSummary; NVIDIA DCGM exporter
 * GPU telemetry read by the same scraper into the server block's `gpu`.
 *
 * @module
 */

export { chooseMetricsUrl, type MetricsChoice, type MetricsSources } from './choose.js';
export { DCGM_FIELDS, gpuAggregate, gpuKey, normalizeDcgm } from './dcgm.js';
export { scrapeGpuOnce } from './dcgm-scrape.js';
export {
  type ClientSpan,
  clientHeldTokens,
  derivedFragmentation,
  emptyHeld,
  foldSpan,
  type HeldAtSample,
  spanOf,
} from './fragmentation.js';
export {
  type GpuMetricsRecorder,
  type GpuMetricsRecorderOptions,
  startGpuMetricsRecorder,
} from './gpu-recorder.js';
export {
  type GpuAggregates,
  mergeGpuAggregates,
  type SummarizeGpuOptions,
  summarizeGpu,
  withGpu,
} from './gpu-summary.js';
export { detectEngine, type NormalizedScrape, normalizeExposition, type ServerEngine } from './normalize.js';
export {
  PARSE_SLICE_CHARS,
  type PromExposition,
  type PromMetricType,
  type PromSample,
  parsePrometheusText,
  parsePrometheusTextYielding,
  parseSampleLine,
  parseValue,
} from './parse.js';
export {
  checkPrometheusSource,
  MAX_PROMETHEUS_BYTES,
  matrixToSamples,
  type PrometheusSource,
  parseSelector,
  prometheusApi,
} from './prometheus.js';
export { type PrometheusReader, startPrometheusReader } from './prometheus-reader.js';
export {
  type ServerMetricsRecorder,
  type ServerMetricsRecorderOptions,
  startServerMetricsRecorder,
} from './recorder.js';
export { type ReplicaScraper, type ReplicaTarget, startReplicaScraper } from './replica-scraper.js';
export {
  combineRounds,
  hasReplicas,
  nameReplicas,
  type ReplicaEndpoint,
  RoundCombiner,
  samplesByReplica,
  summarizeSamples,
} from './replicas.js';
export {
  fetchExposition,
  probeMetricsUrl,
  type ScrapeLoopOptions,
  type Scraper,
  type ScraperOptions,
  scrapeOnce,
  serverRootUrl,
  startScrapeLoop,
  startScraper,
} from './scraper.js';
export {
  type DescribeServerOptions,
  describeServer,
  flattenSettings,
  redactDescription,
} from './self-description.js';
export { normalizeLlamaCppSlots } from './slots.js';
export {
  type ClientView,
  ClientViewBuilder,
  clientViewOf,
  counterDelta,
  measuredServerGeneratedTokens,
  type SummarizeServerOptions,
  seriesStats,
  specDecodeFigures,
  summarizeServer,
} from './summarize.js';
