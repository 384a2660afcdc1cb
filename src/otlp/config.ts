/**
 * Where and how OpenTelemetry export goes: `--otlp-endpoint` and `--otlp-spans`, with the
 * standard variables (https://opentelemetry.io/docs/specs/otel/protocol/exporter/ and
 * .../configuration/sdk-environment-variables/): `OTEL_EXPORTER_OTLP_ENDPOINT` (a base: the signal
 * paths `/v1/metrics` and `/v1/traces` are appended), `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` and
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as they are), `OTEL_EXPORTER_OTLP_HEADERS`
 * (`k=v,k2=v2`, URL-encoded values: secrets, never printed nor written), `OTEL_EXPORTER_OTLP_TIMEOUT`,
 * `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. The flag wins
 * over the variables. Pure.
 *
 * @module
 */

import { GoodputError } from '../errors.js';

export interface OtlpConfig {
  /** OTLP/HTTP protobuf metrics URL (…/v1/metrics). */
  metricsUrl: string;
  /** OTLP/HTTP protobuf traces URL (…/v1/traces); only with spans. */
  tracesUrl?: string;
  /** One span per request (`--otlp-spans`). */
  spans: boolean;
  /** Headers of every export (OTEL_EXPORTER_OTLP_HEADERS): in memory only. */
  headers: Record<string, string>;
  /** Per export, and the most the last flush may hold the end of a run. */
  timeoutMs: number;
  /** Time between two metric exports while a run or watch goes on. */
  intervalMs: number;
  /** The resource: service.name and OTEL_RESOURCE_ATTRIBUTES. */
  serviceName: string;
  resourceAttributes: Record<string, string>;
}

/** The spec's default export timeout is 10 s; the end of a run waits no longer. */
const DEFAULT_TIMEOUT_MS = 10_000;
/** A run of a few minutes should show up while it goes on (the spec's default is 60 s). */
const DEFAULT_INTERVAL_MS = 10_000;

/** `k=v,k2=v2` (W3C baggage-like, values URL-encoded) → record; a malformed item is skipped. */
export function parseKeyValueList(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of (text ?? '').split(',')) {
    const eq = item.indexOf('=');
    if (eq <= 0) continue;
    const key = item.slice(0, eq).trim();
    let value = item.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // keep it as given
    }
    if (key) out[key] = value;
  }
  return out;
}

function checkUrl(url: string, from: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GoodputError(
      'E_USAGE',
      `${from} is not a URL`,
      `give the collector's OTLP/HTTP address, e.g. ${from} http://127.0.0.1:4318`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new GoodputError(
      'E_USAGE',
      `${from} must be http:// or https:// (OTLP/HTTP), not ${parsed.protocol}`,
      'goodput exports OTLP over HTTP (protobuf): give the collector port 4318, not the gRPC port 4317',
    );
  }
  return url;
}

function positiveMs(value: string | undefined, fallback: number): number {
  const n = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 600_000) : fallback;
}

/**
 * The export config from the flags and the environment, or undefined when neither names an
 * endpoint (no export).
 *
 * @example
 * resolveOtlpConfig({ endpoint: 'http://127.0.0.1:4318' }, {}).metricsUrl; // 'http://127.0.0.1:4318/v1/metrics'
 */
export function resolveOtlpConfig(
  flags: { endpoint?: string; spans?: boolean },
  env: Record<string, string | undefined>,
): OtlpConfig | undefined {
  const base = flags.endpoint ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const from = flags.endpoint !== undefined ? '--otlp-endpoint' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const signal = (path: string) => `${checkUrl(base!, from).replace(/\/+$/, '')}${path}`;
  const metricsUrl =
    flags.endpoint === undefined && env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT
      ? checkUrl(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT')
      : base !== undefined
        ? signal('/v1/metrics')
        : undefined;
  if (metricsUrl === undefined) {
    if (flags.spans) {
      throw new GoodputError(
        'E_USAGE',
        '--otlp-spans without an endpoint',
        'add --otlp-endpoint http://COLLECTOR:4318 (or set OTEL_EXPORTER_OTLP_ENDPOINT)',
      );
    }
    return undefined;
  }
  const spans = flags.spans === true;
  const tracesUrl = !spans
    ? undefined
    : flags.endpoint === undefined && env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
      ? checkUrl(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
      : base !== undefined
        ? signal('/v1/traces')
        : metricsUrl.replace(/\/v1\/metrics\/?$/, '/v1/traces');
  const resourceAttributes = parseKeyValueList(env.OTEL_RESOURCE_ATTRIBUTES);
  return {
    metricsUrl,
    ...(tracesUrl !== undefined ? { tracesUrl } : {}),
    spans,
    headers: parseKeyValueList(env.OTEL_EXPORTER_OTLP_HEADERS),
    timeoutMs: positiveMs(env.OTEL_EXPORTER_OTLP_TIMEOUT, DEFAULT_TIMEOUT_MS),
    intervalMs: positiveMs(env.OTEL_METRIC_EXPORT_INTERVAL, DEFAULT_INTERVAL_MS),
    serviceName: env.OTEL_SERVICE_NAME || resourceAttributes['service.name'] || 'goodput',
    resourceAttributes,
  };
}
