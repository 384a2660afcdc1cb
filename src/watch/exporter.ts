/**
 * The Prometheus exporter of `goodput watch` (prom-client, its own registry, served on
 * 127.0.0.1). Latency histograms in seconds with vLLM's bucket layouts plus a boundary at
 * every SLO / ADR threshold, so that `bucket{le="<threshold>"} / count` is the exact share of
 * requests within it; counters of requests by outcome and errors by code; SLO attainment of
 * the last window; the prober's own lag; rounds and rollbacks. Labels are target and model
 * only (plus outcome / code / validity, each a small closed set).
 *
 * Every counter and histogram series of a target exists from the first scrape, at zero
 * (`declareTarget`): every outcome, every error code, both round validities, so `rate()` and
 * `increase()` see the first error rather than a series appearing out of nowhere. Gauges of
 * a measurement (attainment, lag, last round, server figures, round metrics) stay absent
 * until a round measures them: there is no honest zero for them, and a 0 attainment would
 * fire an alert before the first round. A server figure the engine does not report (llama.cpp
 * and TGI have no preemption counter, TGI no KV usage) never gets a series: its absence says
 * "not reported", where a 0 would say "none happened". The preemption counter appears at the
 * first round whose server publishes one.
 *
 * @module
 */

import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { REQUEST_ERRORS } from '../errors.js';
import { classView, LAST_VALID_ROUND_SERIES, METRICS, ROUND_METRIC_SERIES } from '../metrics/index.js';
import type { RoundServerFigures, StoredLatency } from '../store/index.js';
import type { Outcome, RequestErrorCode, RunSummary } from '../types.js';

/** Each traffic class's catalogue metrics of the last valid round (`--class`), labelled by class. */
export const ROUND_CLASS_METRIC_SERIES = 'goodput_round_class_metric';

/** vLLM's time_to_first_token_seconds buckets. */
export const TTFT_BUCKETS = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0,
  80.0, 160.0, 640.0, 2560.0,
];
/** vLLM's time_per_output_token_seconds / inter_token_latency_seconds buckets. */
export const TPOT_BUCKETS = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
];
/** vLLM's e2e_request_latency_seconds buckets. */
export const E2EL_BUCKETS = [
  0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0,
  960.0, 1920.0, 7680.0,
];

const BASE_BUCKETS: Record<StoredLatency, number[]> = {
  ttft: TTFT_BUCKETS,
  tpot: TPOT_BUCKETS,
  itl: TPOT_BUCKETS,
  e2el: E2EL_BUCKETS,
};

/** A bucket layout with extra boundaries (ms, converted to seconds) merged in, sorted, unique. */
export function bucketsWithThresholds(base: readonly number[], thresholdsMs: readonly number[]): number[] {
  const all = new Set(base);
  for (const ms of thresholdsMs) if (ms > 0) all.add(ms / 1000);
  return [...all].sort((a, b) => a - b);
}

export interface ExporterOptions {
  /** Extra bucket boundaries per latency, in ms (SLOs and ADR thresholds). */
  thresholdsMs?: Partial<Record<StoredLatency, number[]>>;
}

/** Every request outcome (`Outcome` in types.ts), each a `goodput_requests_total` series from the start. */
const OUTCOMES = ['success', 'error', 'cancelled'] as const satisfies readonly Outcome[];

/** The metrics of one watch process. */
export class WatchExporter {
  readonly registry = new Registry();
  private readonly latency: Record<StoredLatency, Histogram<'target' | 'model'>>;
  private readonly requests: Counter<'target' | 'model' | 'outcome'>;
  private readonly errors: Counter<'target' | 'model' | 'code'>;
  private readonly rounds: Counter<'target' | 'model' | 'valid'>;
  private readonly rollbacks: Counter<'target' | 'model'>;
  private readonly attainment: Gauge<'target' | 'model'>;
  private readonly proberLag: Gauge<'target' | 'model'>;
  private readonly lastRound: Gauge<'target' | 'model'>;
  private readonly kvUsage: Gauge<'target' | 'model'>;
  private readonly waiting: Gauge<'target' | 'model'>;
  private readonly preemptions: Counter<'target' | 'model'>;
  private readonly gpuScrapeFailures: Counter<'target' | 'model'>;
  private readonly roundMetric: Gauge<'target' | 'model' | 'metric'>;
  private readonly roundClassMetric: Gauge<'target' | 'model' | 'class' | 'metric'>;
  private readonly lastValidRound: Gauge<'target' | 'model'>;
  private server?: Server;

  constructor(options: ExporterOptions = {}) {
    const registers = [this.registry];
    const histogram = (name: StoredLatency, help: string) =>
      new Histogram({
        name: `goodput_${name}_seconds`,
        help,
        labelNames: ['target', 'model'] as const,
        buckets: bucketsWithThresholds(BASE_BUCKETS[name], options.thresholdsMs?.[name] ?? []),
        registers,
      });
    this.latency = {
      ttft: histogram('ttft', 'Time to first token of probe requests (send to first content chunk), seconds'),
      tpot: histogram(
        'tpot',
        'Time per output token of probe requests ((E2EL - TTFT) / (tokens - 1)), seconds',
      ),
      itl: histogram('itl', 'Inter-token latency of probe requests (gap between content chunks), seconds'),
      e2el: histogram('e2el', 'End-to-end latency of probe requests (send to last byte), seconds'),
    };
    const labels = ['target', 'model'] as const;
    this.requests = new Counter({
      name: 'goodput_requests_total',
      help: 'Probe requests by outcome (success, error, cancelled)',
      labelNames: [...labels, 'outcome'] as const,
      registers,
    });
    this.errors = new Counter({
      name: 'goodput_request_errors_total',
      help: 'Failed probe requests by error code',
      labelNames: [...labels, 'code'] as const,
      registers,
    });
    this.rounds = new Counter({
      name: 'goodput_rounds_total',
      help: 'Probing rounds; valid="false" when the prober itself was the bottleneck',
      labelNames: [...labels, 'valid'] as const,
      registers,
    });
    this.rollbacks = new Counter({
      name: 'goodput_rollbacks_total',
      help: 'Rollbacks triggered by the rollback rule',
      labelNames: labels,
      registers,
    });
    this.attainment = new Gauge({
      name: 'goodput_slo_attainment_ratio',
      help: 'Share of the last window’s probe requests that met every SLO (failures count as misses)',
      labelNames: labels,
      registers,
    });
    this.proberLag = new Gauge({
      name: 'goodput_prober_lag_seconds',
      help: "The prober's own lag in the last round (worst of event-loop delay p99, dispatch lag, timer drift)",
      labelNames: labels,
      registers,
    });
    this.lastRound = new Gauge({
      name: 'goodput_last_round_timestamp_seconds',
      help: 'Unix time at which the last round ended',
      labelNames: labels,
      registers,
    });
    this.kvUsage = new Gauge({
      name: 'goodput_server_kv_cache_usage_ratio',
      help: "The server's KV-cache usage (0..1) at the end of the last round, when scraped",
      labelNames: labels,
      registers,
    });
    this.waiting = new Gauge({
      name: 'goodput_server_waiting_requests',
      help: "Requests waiting in the server's queue at the end of the last round, when scraped",
      labelNames: labels,
      registers,
    });
    this.preemptions = new Counter({
      name: 'goodput_server_preemptions_total',
      help: 'Preemptions counted by the server during probing rounds; absent when the engine publishes no preemption counter',
      labelNames: labels,
      registers,
    });
    this.gpuScrapeFailures = new Counter({
      name: 'goodput_gpu_scrape_failures_total',
      help: "Failed scrapes of the target's DCGM exporter (--gpu-metrics-url), counted at the end of each round",
      labelNames: labels,
      registers,
    });
    this.roundMetric = new Gauge({
      name: ROUND_METRIC_SERIES,
      help:
        'Every metric of the catalogue for the last valid round, by metric id (the value gate and the rollback rule read; ' +
        'in goodput units: ms for latencies, 0..1 for ratios, req/s, tok/s, counts)',
      labelNames: [...labels, 'metric'] as const,
      registers,
    });
    this.roundClassMetric = new Gauge({
      name: ROUND_CLASS_METRIC_SERIES,
      help:
        `Every metric of the catalogue for each traffic class (--class) of the last valid round, by class and metric id, as ${ROUND_METRIC_SERIES} ` +
        "holds the run's (the class's figures against its own SLO; the server's metrics are the run's only)",
      labelNames: [...labels, 'class', 'metric'] as const,
      registers,
    });
    this.lastValidRound = new Gauge({
      name: LAST_VALID_ROUND_SERIES,
      help: `Unix time at which the last valid round ended (the round ${ROUND_METRIC_SERIES} holds)`,
      labelNames: labels,
      registers,
    });
  }

  /**
   * Sets every catalogue metric of a valid round's summary (`goodput_round_metric{metric=…}`),
   * the series that `emit prometheus-rules` alerts on; a metric the round did not measure is
   * removed rather than left at an old value. `endedAt` (ms epoch, default now) is when the round ended.
   */
  setRoundMetrics(target: string, model: string, summary: RunSummary, endedAt = Date.now()): void {
    this.lastValidRound.set({ target, model }, endedAt / 1000);
    for (const def of METRICS) {
      const labels = { target, model, metric: def.id };
      const value = def.read(summary);
      if (value === undefined || !Number.isFinite(value)) this.roundMetric.remove(labels);
      else this.roundMetric.set(labels, value);
    }
    for (const cls of summary.classes ?? []) {
      const view = classView(summary, cls.name)!;
      for (const def of METRICS) {
        const labels = { target, model, class: cls.name, metric: def.id };
        const value = def.read(view);
        if (value === undefined || !Number.isFinite(value)) this.roundClassMetric.remove(labels);
        else this.roundClassMetric.set(labels, value);
      }
    }
  }

  /** Observes one latency of one request, in ms. */
  observeLatency(target: string, model: string, name: StoredLatency, ms: number): void {
    this.latency[name].observe({ target, model }, ms / 1000);
  }

  /** Counts one request by outcome (and error code when it failed). */
  countRequest(target: string, model: string, outcome: string, code?: RequestErrorCode): void {
    this.requests.inc({ target, model, outcome });
    if (code !== undefined && outcome === 'error') this.errors.inc({ target, model, code });
  }

  /** Records the end of a round. */
  endRound(
    target: string,
    model: string,
    r: {
      valid: boolean;
      attainment: number;
      proberLagMs: number;
      endedAt: number;
      server?: RoundServerFigures;
    },
  ): void {
    const labels = { target, model };
    this.rounds.inc({ ...labels, valid: String(r.valid) });
    if (r.valid && !Number.isNaN(r.attainment)) this.attainment.set(labels, r.attainment);
    this.proberLag.set(labels, r.proberLagMs / 1000);
    this.lastRound.set(labels, r.endedAt / 1000);
    if (r.server?.kvUsage !== undefined) this.kvUsage.set(labels, r.server.kvUsage);
    if (r.server?.waiting !== undefined) this.waiting.set(labels, r.server.waiting);
    // The series exists once the engine is seen to publish a preemption counter (0 included),
    // never for one that has none (llama.cpp, TGI, SGLang): a false zero would read as healthy.
    if (r.server?.preemptions !== undefined) this.preemptions.inc(labels, r.server.preemptions);
    const gpuFailures = r.server?.gpu?.scrapeFailures;
    if (gpuFailures !== undefined && gpuFailures > 0) this.gpuScrapeFailures.inc(labels, gpuFailures);
  }

  /**
   * Makes every counter and histogram series of a target exist (at zero) before its first
   * round — each outcome, each error code, both round validities — so dashboards, `rate()`
   * and `increase()` see the first error instead of a series that appears with it. With `gpu`
   * (the target has a DCGM exporter), its GPU scrape failures too.
   */
  declareTarget(target: string, model: string, opts: { gpu?: boolean } = {}): void {
    const labels = { target, model };
    this.rollbacks.inc(labels, 0);
    for (const outcome of OUTCOMES) this.requests.inc({ ...labels, outcome }, 0);
    for (const code of Object.keys(REQUEST_ERRORS)) this.errors.inc({ ...labels, code }, 0);
    for (const valid of ['true', 'false']) this.rounds.inc({ ...labels, valid }, 0);
    if (opts.gpu) this.gpuScrapeFailures.inc(labels, 0);
    for (const h of Object.values(this.latency)) h.zero(labels);
  }

  countRollback(target: string, model: string): void {
    this.rollbacks.inc({ target, model });
  }

  /** The exposition text (Prometheus text format 0.0.4). */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  /** Serves GET /metrics on host:port (0 = a free port; 127.0.0.1 unless told); resolves with the port. */
  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    const server = createServer((req, res) => {
      if (req.method === 'GET' && (req.url === '/metrics' || req.url?.startsWith('/metrics?'))) {
        this.metrics().then(
          (text) => {
            res.writeHead(200, { 'content-type': this.registry.contentType });
            res.end(text);
          },
          (e: Error) => {
            res.writeHead(500, { 'content-type': 'text/plain' });
            res.end(e.message);
          },
        );
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('goodput watch exporter: see /metrics\n');
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const addr = server.address();
    return typeof addr === 'object' && addr ? addr.port : port;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
