/**
 * OpenTelemetry export of a run's (or a watch's) requests, in the GenAI semantic conventions
 * (open-telemetry/semantic-conventions docs/gen-ai/gen-ai-metrics.md and gen-ai-spans.md at
 * 7b0c0fe, since moved to open-telemetry/semantic-conventions-genai):
 * - `gen_ai.client.operation.duration` (histogram, `s`): every measured request, a failed or
 *   cancelled one with `error.type` (its goodput error code); requests the run itself
 *   interrupted are left out, as the summary leaves them out of attainment;
 * - `gen_ai.client.token.usage` (histogram, `{token}`, `gen_ai.token.type` input|output): each
 *   successful request's prompt and output tokens, as the summary counts them
 *   (`total_input_tokens`, `total_output_tokens`);
 * - `gen_ai.client.operation.time_to_first_chunk` (`s`): each successful streamed request's TTFT;
 * - `gen_ai.client.operation.time_per_output_chunk` (`s`): each gap between two chunks (ITL);
 * with `gen_ai.operation.name`, `gen_ai.provider.name` (`openai`: the API goodput speaks),
 * `gen_ai.request.model`, `server.address` and `server.port`; and with `--otlp-spans` one
 * CLIENT span per request named `{operation} {model}`, timed by the request's send and end.
 *
 * The export does not perturb the measurement: it is a sink, fed each record after it was
 * measured; the SDK aggregates into histograms of a bounded number of series, and spans wait in
 * the batch processor's bounded queue (a full queue drops them, counted); exports go over
 * OTLP/HTTP protobuf in the background, each bounded by the timeout, and the last flush at the
 * end of a run is bounded too. A collector that fails, refuses or stalls never fails or holds
 * the run: `close()` says what was not delivered. Header values are sent, never printed.
 *
 * @module
 */

import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, HrTime } from '@opentelemetry/api';
import type * as OtelCore from '@opentelemetry/core';
import type * as OtelMetricExporter from '@opentelemetry/exporter-metrics-otlp-proto';
import type { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import type * as OtelTraceExporter from '@opentelemetry/exporter-trace-otlp-proto';
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type * as OtelResources from '@opentelemetry/resources';
import type * as OtelMetrics from '@opentelemetry/sdk-metrics';
import type { MeterProvider, PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type * as OtelTrace from '@opentelemetry/sdk-trace-base';
import type { BasicTracerProvider, ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type * as OtelSemconv from '@opentelemetry/semantic-conventions';
import { metricsOf, tokenCount } from '../metrics/index.js';
import type { ApiKind, RequestRecord } from '../types.js';
import { makeRedactor } from '../util/index.js';
import type { OtlpConfig } from './config.js';

/** The GenAI metric names (semantic conventions, development status), one place. */
export const GEN_AI_METRICS = {
  duration: 'gen_ai.client.operation.duration',
  tokens: 'gen_ai.client.token.usage',
  timeToFirstChunk: 'gen_ai.client.operation.time_to_first_chunk',
  timePerOutputChunk: 'gen_ai.client.operation.time_per_output_chunk',
} as const;

/** The OpenTelemetry SDK's packages (CommonJS, as an ESM import of them loads them too). */
interface OtelSdk {
  api: typeof OtelApi;
  core: typeof OtelCore;
  metricExporter: typeof OtelMetricExporter;
  traceExporter: typeof OtelTraceExporter;
  resources: typeof OtelResources;
  metrics: typeof OtelMetrics;
  trace: typeof OtelTrace;
  semconv: typeof OtelSemconv;
}
let loadedSdk: OtelSdk | undefined;

/**
 * Loads the SDK on first use (~20 MB of RSS): a run without --otlp-endpoint never does.
 * Synchronous, so `new OtlpExport()` stays synchronous for its callers.
 */
function sdk(): OtelSdk {
  if (loadedSdk) return loadedSdk;
  const require = createRequire(import.meta.url);
  loadedSdk = {
    api: require('@opentelemetry/api') as typeof OtelApi,
    core: require('@opentelemetry/core') as typeof OtelCore,
    metricExporter: require('@opentelemetry/exporter-metrics-otlp-proto') as typeof OtelMetricExporter,
    traceExporter: require('@opentelemetry/exporter-trace-otlp-proto') as typeof OtelTraceExporter,
    resources: require('@opentelemetry/resources') as typeof OtelResources,
    metrics: require('@opentelemetry/sdk-metrics') as typeof OtelMetrics,
    trace: require('@opentelemetry/sdk-trace-base') as typeof OtelTrace,
    semconv: require('@opentelemetry/semantic-conventions') as typeof OtelSemconv,
  };
  return loadedSdk;
}

/** The conventions' explicit bucket boundaries: seconds for the durations, tokens for usage. */
const SECONDS_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

/** Spans waiting for export at most (the batch processor drops beyond, counted). */
const MAX_QUEUED_SPANS = 4096;
const SPAN_BATCH = 512;

/** `gen_ai.operation.name` of each API goodput speaks. */
const OPERATION: Record<ApiKind, string> = {
  chat: 'chat',
  completions: 'text_completion',
  responses: 'chat',
  embeddings: 'embeddings',
};

/** Where the records of one target come from, for their attributes and span times. */
export interface OtlpSource {
  model: string;
  api: ApiKind;
  /** The target's base URL: only its host and port are exported. */
  baseUrl: string;
  /** Epoch milliseconds of the run clock's 0 (records' times are on that clock). */
  epochMsAtZero: () => number;
}

/** What an export delivered and what it did not, for the closing note. */
export interface OtlpOutcome {
  metricExports: number;
  failedMetricExports: number;
  spans: number;
  exportedSpans: number;
  /** Spans not delivered: failed exports, a full queue, or still queued when the last flush timed out. */
  droppedSpans: number;
  /** The last export error (secrets removed). */
  lastError?: string;
  /** The last flush did not finish within the timeout. */
  flushTimedOut: boolean;
}

/** Counts the metric exports that failed; the SDK otherwise only logs them to a silent logger. */
class CountingMetricExporter implements PushMetricExporter {
  ok = 0;
  failed = 0;
  lastError: string | undefined;
  readonly selectAggregationTemporality: PushMetricExporter['selectAggregationTemporality'];
  constructor(private readonly inner: OTLPMetricExporter) {
    this.selectAggregationTemporality = inner.selectAggregationTemporality.bind(inner);
  }
  export(metrics: ResourceMetrics, done: Parameters<PushMetricExporter['export']>[1]): void {
    this.inner.export(metrics, (result) => {
      if (result.code === sdk().core.ExportResultCode.SUCCESS) this.ok++;
      else {
        this.failed++;
        this.lastError = result.error?.message ?? 'export failed';
      }
      done(result);
    });
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

class CountingSpanExporter implements SpanExporter {
  ok = 0;
  failed = 0;
  lastError: string | undefined;
  constructor(private readonly inner: OTLPTraceExporter) {}
  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.inner.export(spans, (result) => {
      if (result.code === sdk().core.ExportResultCode.SUCCESS) this.ok += spans.length;
      else {
        this.failed += spans.length;
        this.lastError = result.error?.message ?? 'export failed';
      }
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
}

function hrTime(epochMs: number): HrTime {
  const s = Math.floor(epochMs / 1000);
  return [s, Math.round((epochMs - s * 1000) * 1e6)];
}

function serverAttributes(baseUrl: string): Attributes {
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return {};
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
    const { ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } = sdk().semconv;
    return { [ATTR_SERVER_ADDRESS]: u.hostname.replace(/^\[|\]$/g, ''), [ATTR_SERVER_PORT]: port };
  } catch {
    return {};
  }
}

/** Resolves within `ms` whatever `p` does. True when `p` settled in time. */
function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    p.then(
      () => resolve(true),
      () => resolve(true),
    ).finally(() => clearTimeout(t));
  });
}

/** One OTLP export: a sink per target, `close()` at the end. See the module comment. */
export class OtlpExport {
  private readonly meters: MeterProvider;
  private readonly tracer?: BasicTracerProvider;
  private readonly metricOut: CountingMetricExporter;
  private readonly spanOut?: CountingSpanExporter;
  private readonly instruments;
  private spans = 0;
  private closed?: Promise<OtlpOutcome>;

  constructor(
    private readonly config: OtlpConfig,
    version: string,
  ) {
    const { metricExporter, traceExporter, resources, metrics, trace, semconv } = sdk();
    const { OTLPMetricExporter } = metricExporter;
    const { OTLPTraceExporter } = traceExporter;
    const { resourceFromAttributes } = resources;
    const { MeterProvider, PeriodicExportingMetricReader } = metrics;
    const { BasicTracerProvider, BatchSpanProcessor } = trace;
    const { ATTR_SERVICE_NAME } = semconv;
    const resource = resourceFromAttributes({
      ...config.resourceAttributes,
      [ATTR_SERVICE_NAME]: config.serviceName,
      'service.version': version,
    });
    const options = { headers: config.headers, timeoutMillis: config.timeoutMs };
    this.metricOut = new CountingMetricExporter(
      new OTLPMetricExporter({ url: config.metricsUrl, ...options }),
    );
    this.meters = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: this.metricOut,
          exportIntervalMillis: config.intervalMs,
          exportTimeoutMillis: Math.min(config.timeoutMs, config.intervalMs),
        }),
      ],
    });
    const meter = this.meters.getMeter('goodput', version);
    const seconds = (name: string, description: string) =>
      meter.createHistogram(name, {
        unit: 's',
        description,
        advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
      });
    this.instruments = {
      duration: seconds(GEN_AI_METRICS.duration, 'GenAI operation duration.'),
      timeToFirstChunk: seconds(GEN_AI_METRICS.timeToFirstChunk, 'Time to receive the first chunk.'),
      timePerOutputChunk: seconds(GEN_AI_METRICS.timePerOutputChunk, 'Time per output chunk.'),
      tokens: meter.createHistogram(GEN_AI_METRICS.tokens, {
        unit: '{token}',
        description: 'Number of input and output tokens used.',
        advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
      }),
    };
    if (config.spans && config.tracesUrl) {
      this.spanOut = new CountingSpanExporter(new OTLPTraceExporter({ url: config.tracesUrl, ...options }));
      this.tracer = new BasicTracerProvider({
        resource,
        spanProcessors: [
          new BatchSpanProcessor(this.spanOut, {
            maxQueueSize: MAX_QUEUED_SPANS,
            maxExportBatchSize: SPAN_BATCH,
            scheduledDelayMillis: Math.min(5_000, config.intervalMs),
            exportTimeoutMillis: config.timeoutMs,
          }),
        ],
      });
    }
  }

  /** The sink of one target's records (warmup records are skipped). Never throws. */
  sinkFor(source: OtlpSource): (record: RequestRecord) => void {
    const operation = OPERATION[source.api];
    const common: Attributes = {
      'gen_ai.operation.name': operation,
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': source.model,
      ...serverAttributes(source.baseUrl),
    };
    const input = { ...common, 'gen_ai.token.type': 'input' };
    const output = { ...common, 'gen_ai.token.type': 'output' };
    const tracer = this.tracer?.getTracer('goodput');
    const spanName = `${operation} ${source.model}`;
    const { duration, tokens, timeToFirstChunk, timePerOutputChunk } = this.instruments;
    const { ATTR_ERROR_TYPE } = sdk().semconv;
    return (record) => {
      if (record.warmup || this.closed) return;
      if (record.outcome === 'cancelled' && record.error?.code === 'INTERRUPTED') return;
      try {
        const m = metricsOf(record);
        const failed = record.outcome !== 'success';
        const attrs = failed ? { ...common, [ATTR_ERROR_TYPE]: record.error?.code ?? 'UNKNOWN' } : common;
        duration.record(m.e2elMs / 1000, attrs);
        if (!failed) {
          tokens.record(tokenCount(record.promptTokens), input);
          tokens.record(tokenCount(record.outputTokens), output);
          if (m.ttftMs !== undefined) timeToFirstChunk.record(m.ttftMs / 1000, common);
          for (const gap of m.itlMs) timePerOutputChunk.record(gap / 1000, common);
        }
        if (tracer) {
          const zero = source.epochMsAtZero();
          const span = tracer.startSpan(spanName, {
            kind: sdk().api.SpanKind.CLIENT,
            startTime: hrTime(zero + record.sentMs),
            attributes: {
              ...attrs,
              'gen_ai.request.max_tokens': record.maxTokens,
              'gen_ai.usage.input_tokens': tokenCount(record.promptTokens),
              'gen_ai.usage.output_tokens': tokenCount(record.outputTokens),
              ...(record.finishReason ? { 'gen_ai.response.finish_reasons': [record.finishReason] } : {}),
              ...(m.ttftMs !== undefined ? { 'goodput.ttft_ms': m.ttftMs } : {}),
            },
          });
          if (failed)
            span.setStatus({
              code: sdk().api.SpanStatusCode.ERROR,
              message: record.error?.code ?? 'UNKNOWN',
            });
          span.end(hrTime(zero + record.endMs));
          this.spans++;
        }
      } catch {
        // an export must never break a run: a record it cannot take is left out
      }
    };
  }

  /** Flushes and stops, bounded by the timeout; says what was delivered. Idempotent. */
  close(): Promise<OtlpOutcome> {
    this.closed ??= (async () => {
      const shutdown = Promise.allSettled([this.meters.shutdown(), this.tracer?.shutdown()]);
      const inTime = await within(shutdown, this.config.timeoutMs + 500);
      const spanOut = this.spanOut;
      const exportedSpans = spanOut?.ok ?? 0;
      const lastError = spanOut?.lastError ?? this.metricOut.lastError;
      const secrets = makeRedactor(Object.values(this.config.headers));
      return {
        metricExports: this.metricOut.ok + this.metricOut.failed,
        failedMetricExports: this.metricOut.failed,
        spans: this.spans,
        exportedSpans,
        droppedSpans: this.spans - exportedSpans,
        ...(lastError !== undefined ? { lastError: secrets(lastError).slice(0, 200) } : {}),
        flushTimedOut: !inTime,
      };
    })();
    return this.closed;
  }
}

/** The closing note: undefined when everything was delivered. */
export function describeOtlpOutcome(o: OtlpOutcome, endpoint: string): string | undefined {
  const problems: string[] = [];
  if (o.failedMetricExports > 0)
    problems.push(
      `${o.failedMetricExports} of ${o.metricExports} metric exports failed (their data points were dropped)`,
    );
  if (o.droppedSpans > 0) problems.push(`${o.droppedSpans} of ${o.spans} spans not delivered`);
  if (o.flushTimedOut) problems.push('the last flush did not finish in time');
  if (problems.length === 0) return undefined;
  return `OTLP export to ${endpoint}: ${problems.join('; ')}${o.lastError ? ` (${o.lastError})` : ''}; the run's own results are complete`;
}
