/**
 * Server metrics: the engine's own view beside the client's. A Prometheus text parser
 * (pure), normalisation of vLLM, SGLang, llama.cpp, TGI and the simulator into one
 * vocabulary, a failure-tolerant scraper, and the run's ServerSummary; NVIDIA DCGM exporter
 * GPU telemetry read by the same scraper into the server block's `gpu`.
 *
 * @module
 */

export { DCGM_FIELDS, gpuAggregate, gpuKey, normalizeDcgm, scrapeGpuOnce } from './dcgm.js';
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
  type ServerMetricsRecorder,
  type ServerMetricsRecorderOptions,
  startServerMetricsRecorder,
} from './recorder.js';
export {
  chooseMetricsUrl,
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
export { type DescribeServerOptions, describeServer, flattenSettings } from './self-description.js';
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
