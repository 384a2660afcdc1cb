/**
 * Which server metrics a run reads, chosen before its t0: one endpoint (the explicit
 * `--metrics-url`, else the target's `/metrics` when it answers), several replicas
 * (`--metrics-url` repeated), or a Prometheus server (`--metrics-prometheus`). The scrapes taken
 * here are the counters' baselines.
 *
 * @module
 */

import type { NormalizedScrape } from './normalize.js';
import { checkPrometheusSource, type PrometheusSource } from './prometheus.js';
import type { ReplicaTarget } from './replica-scraper.js';
import { nameReplicas } from './replicas.js';
import { serverRootUrl, tryScrape } from './scraper.js';

/** What the run's server-metrics recorder reads besides (or in place of) one URL. */
export interface MetricsSources {
  replicas?: ReplicaTarget[];
  prometheus?: PrometheusSource;
}

export interface MetricsChoice {
  url?: string;
  note?: string;
  baseline?: NormalizedScrape;
  /** Several replicas, or a Prometheus server: hand to startServerMetricsRecorder as they are. */
  sources?: MetricsSources;
}

/**
 * The metrics URL a run should scrape: the explicit one (scraped whatever it answers, so a
 * wrong URL shows as failures), else the target's `/metrics` when it answers with Prometheus
 * text (or, for trtllm-serve, its `/prometheus/metrics`), else none (with a note saying why). Call it before the run's t0: its scrape is the
 * counters' baseline (pass it to the recorder as `baseline`).
 */
export async function chooseMetricsUrl(
  opts: {
    enabled: boolean;
    url?: string;
    /** `--metrics-url` as given, when given more than once (NAME=URL names a replica). */
    replicas?: readonly string[];
    prometheus?: PrometheusSource;
    /** Shows a URL (credential-looking query values redacted). */
    shown?: (url: string) => string;
  },
  baseUrl: string,
  probeTimeoutMs = 1500,
): Promise<MetricsChoice> {
  if (!opts.enabled) return {};
  if (opts.prometheus) {
    const found = await checkPrometheusSource(opts.prometheus);
    const source = { ...opts.prometheus, clockMetric: found.clockMetric };
    const url = `${(opts.shown ?? String)(source.url)} ${source.selector}`;
    const several =
      found.instances.length > 1 ? `, ${found.instances.length} instances (one replica each)` : '';
    return {
      url,
      note: `server metrics: from Prometheus at ${url} (${found.engine}${several}), read after the run`,
      sources: { prometheus: source },
    };
  }
  if (opts.replicas && opts.replicas.length > 1)
    return chooseReplicas(opts.replicas, probeTimeoutMs, opts.shown);
  const url = opts.url ?? serverRootUrl(baseUrl, '/metrics');
  const baseline = await tryScrape(url, probeTimeoutMs);
  if (opts.url !== undefined) {
    return baseline
      ? { url, baseline }
      : { url, note: `server metrics: ${url} does not answer yet; scraping anyway` };
  }
  if (!baseline) {
    // trtllm-serve answers /metrics with JSON iteration stats; its Prometheus page is elsewhere.
    const trtllmUrl = serverRootUrl(baseUrl, TRTLLM_METRICS_PATH);
    const trtllm = await tryScrape(trtllmUrl, probeTimeoutMs);
    if (trtllm?.engine === 'trtllm') return { url: trtllmUrl, baseline: trtllm };
    return {
      note: `no Prometheus metrics at ${url}: server metrics off (set --metrics-url to scrape elsewhere)`,
    };
  }
  return { url, baseline };
}

/** Where trtllm-serve serves its Prometheus metrics (TensorRT-LLM examples/serve/prometheus_metrics.py). */
export const TRTLLM_METRICS_PATH = '/prometheus/metrics';

/** Several replicas: each probed at once (its baseline); one that does not answer yet is scraped anyway. */
async function chooseReplicas(
  given: readonly string[],
  probeTimeoutMs: number,
  shown: (url: string) => string = String,
): Promise<MetricsChoice> {
  const named = nameReplicas(given);
  const baselines = await Promise.all(named.map((r) => tryScrape(r.url, probeTimeoutMs)));
  const replicas: ReplicaTarget[] = named.map((r, i) => ({
    ...r,
    shownUrl: shown(r.url),
    ...(baselines[i] ? { baseline: baselines[i] } : {}),
  }));
  const silent = replicas.filter((r) => !r.baseline).map((r) => `${r.name} (${r.shownUrl})`);
  return {
    url: replicas.map((r) => r.shownUrl).join(', '),
    ...(silent.length > 0
      ? {
          note: `server metrics: ${silent.join(', ')} ${silent.length > 1 ? 'do' : 'does'} not answer yet; scraping anyway`,
        }
      : {}),
    sources: { replicas },
  };
}
