/**
 * The server-metrics sources of a run from its flags: `--metrics-url` once (one endpoint) or
 * several times (one replica each, NAME=URL naming one), or `--metrics-prometheus` with
 * `--metrics-selector` (a Prometheus server; GOODPUT_PROMETHEUS_AUTH its Authorization header).
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { BenchmarkConfig } from '../runner/config.js';
import { parseSelector } from '../server-metrics/index.js';
import type { BenchmarkFlags } from './options/index.js';

type Env = Record<string, string | undefined>;

const usage = (message: string, hint: string) => new GoodputError('E_USAGE', message, hint);

/** The environment variable whose value is sent as the Prometheus server's Authorization header. */
export const PROMETHEUS_AUTH_ENV = 'GOODPUT_PROMETHEUS_AUTH';

/** Sets `config.serverMetrics` (url, replicas, prometheus) and the secret to redact; refuses contradictions. */
export function applyMetricsSources(
  options: Pick<BenchmarkFlags, 'metricsUrl' | 'metricsPrometheus' | 'metricsSelector'>,
  env: Env,
  config: BenchmarkConfig,
  /** The config file's `metrics_url` (one or a list), used when no flag names a source. */
  fromFile?: readonly string[],
): void {
  const flagged = (options.metricsUrl ?? []).map((u) => u.trim()).filter((u) => u !== '');
  const urls = flagged.length > 0 ? flagged : (fromFile ?? []).map((u) => u.trim()).filter((u) => u !== '');
  const prometheus = options.metricsPrometheus?.trim() ?? '';
  const selector = options.metricsSelector;
  if (prometheus === '' && selector !== undefined)
    throw usage(
      '--metrics-selector needs --metrics-prometheus',
      'add --metrics-prometheus http://prometheus:9090, or drop --metrics-selector',
    );
  if (prometheus !== '') {
    if (flagged.length > 0)
      throw usage(
        '--metrics-prometheus and --metrics-url both name where the server metrics come from',
        'keep one: --metrics-url to scrape the engines, or --metrics-prometheus to read them from Prometheus',
      );
    if (!config.serverMetrics.enabled)
      throw usage('--metrics-prometheus with --no-server-metrics', 'drop one of them');
    if (!/^https?:\/\/[^/\s]/i.test(prometheus))
      throw usage(
        `--metrics-prometheus must be an http:// or https:// URL, got '${prometheus.replace(/\/\/[^@/]*@/, '//')}'`,
        'e.g. --metrics-prometheus http://prometheus:9090',
      );
    if (selector === undefined)
      throw usage(
        "--metrics-prometheus needs --metrics-selector: which of Prometheus's series are the engine's",
        `add e.g. --metrics-selector '{job="vllm"}'`,
      );
    const auth = env[PROMETHEUS_AUTH_ENV]?.trim();
    config.serverMetrics.prometheus = {
      url: prometheus,
      selector: parseSelector(selector),
      ...(auth ? { headers: { authorization: auth } } : {}),
    };
    if (auth) config.secrets = [...(config.secrets ?? []), auth];
    return;
  }
  if (urls.length === 0) return;
  // NAME=URL names a replica; the first URL is also the run's one URL when there is one.
  const bare = urls.map((u) => u.replace(/^[A-Za-z0-9_.:-]{1,64}=(?=https?:\/\/)/i, ''));
  config.serverMetrics.url = bare[0];
  if (urls.length > 1) {
    const bad = bare.find((u) => !/^https?:\/\/[^/\s]/i.test(u));
    if (bad !== undefined)
      throw usage(
        `--metrics-url must be an http:// or https:// URL, got '${bad.replace(/\/\/[^@/]*@/, '//')}'`,
        'e.g. --metrics-url http://10.0.0.1:8000/metrics --metrics-url http://10.0.0.2:8000/metrics (NAME=URL names a replica)',
      );
    config.serverMetrics.replicas = urls;
  }
}
