import { describe, expect, it } from 'vitest';
import { parseKeyValueList, resolveOtlpConfig } from './config.js';

describe('resolveOtlpConfig', () => {
  it('exports nothing when neither the flag nor the environment names an endpoint', () => {
    expect(resolveOtlpConfig({}, {})).toBeUndefined();
  });

  it.each([
    // [flags, env, metricsUrl, tracesUrl]
    [{ endpoint: 'http://c:4318' }, {}, 'http://c:4318/v1/metrics', undefined],
    [{ endpoint: 'http://c:4318/', spans: true }, {}, 'http://c:4318/v1/metrics', 'http://c:4318/v1/traces'],
    [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c/otlp' }, 'https://c/otlp/v1/metrics', undefined],
    // the signal variable is used as it is, and wins over the base
    [
      { spans: true },
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://m:9/ingest',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9/spans',
      },
      'http://m:9/ingest',
      'http://t:9/spans',
    ],
    // the flag wins over every variable
    [
      { endpoint: 'http://flag:4318' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318', OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://m:1/x' },
      'http://flag:4318/v1/metrics',
      undefined,
    ],
  ])('%j with %j → %s, %s', (flags, env, metricsUrl, tracesUrl) => {
    const c = resolveOtlpConfig(flags, env)!;
    expect(c.metricsUrl).toBe(metricsUrl);
    expect(c.tracesUrl).toBe(tracesUrl);
  });

  it('reads headers, resource, service name, timeout and interval from the standard variables', () => {
    const c = resolveOtlpConfig(
      { endpoint: 'http://c:4318' },
      {
        OTEL_EXPORTER_OTLP_HEADERS: 'api-key=s%3Dcr%2Ct,x-tenant = acme ,broken',
        OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,team=serving',
        OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
        OTEL_METRIC_EXPORT_INTERVAL: 'soon',
      },
    )!;
    expect(c.headers).toEqual({ 'api-key': 's=cr,t', 'x-tenant': 'acme' });
    expect(c.serviceName).toBe('from-attrs');
    expect(c.resourceAttributes).toEqual({ 'service.name': 'from-attrs', team: 'serving' });
    expect(c.timeoutMs).toBe(2500);
    expect(c.intervalMs).toBe(10_000);
    expect(resolveOtlpConfig({ endpoint: 'http://c:4318' }, { OTEL_SERVICE_NAME: 'svc' })!.serviceName).toBe(
      'svc',
    );
  });

  it.each([
    [{ endpoint: 'not a url' }, {}, /is not a URL/],
    [{ endpoint: 'grpc://c:4317' }, {}, /OTLP\/HTTP/],
    [{ spans: true }, {}, /--otlp-spans without an endpoint/],
  ])('%j is a usage error naming the fix', (flags, env, message) => {
    expect(() => resolveOtlpConfig(flags, env)).toThrow(message);
  });
});

describe('parseKeyValueList', () => {
  it('keeps a value that is not URL-encoded as given', () => {
    expect(parseKeyValueList('k=100%')).toEqual({ k: '100%' });
  });
});
