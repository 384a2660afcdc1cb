/**
 * A run's server-metrics recording: a scraper whose samples stream into
 * `server-metrics.jsonl` (header line with schemaVersion, then one ServerSample a line)
 * and that ends with the run's ServerSummary.
 *
 * @module
 */

import { join } from 'node:path';
import { type JsonlHeader, RESULT_FILES } from '../results/files.js';
import { JsonlWriter } from '../results/jsonl.js';
import {
  type Clock,
  type RequestRecord,
  SCHEMA_VERSION,
  type ServerSample,
  type ServerSummary,
} from '../types.js';
import type { NormalizedScrape } from './normalize.js';
import type { PrometheusSource } from './prometheus.js';
import { startPrometheusReader } from './prometheus-reader.js';
import { type ReplicaScraper, type ReplicaTarget, startReplicaScraper } from './replica-scraper.js';
import { summarizeSamples } from './replicas.js';
import { type Scraper, startScraper } from './scraper.js';
import { ClientViewBuilder, measuredServerGeneratedTokens } from './summarize.js';

/** What every recording of a run (the server's, the GPUs') takes: where it writes, on which clock. */
export interface RecordingOptions {
  /** Result directory; samples go to a JSONL file in it. Omit to keep them in memory only. */
  dir?: string;
  runId: string;
  startedAt: string;
  clock: Clock;
  intervalMs?: number;
  signal?: AbortSignal;
  /**
   * Called with the first error writing the samples file; finish() then does not throw it
   * again (the run decides). Without it, finish() throws E_IO.
   */
  onWriteError?: (error: Error) => void;
}

export interface ServerMetricsRecorderOptions extends RecordingOptions {
  /** The server's metrics URL (with several replicas, as shown: all of them); samples go to DIR/server-metrics.jsonl. */
  metricsUrl: string;
  /** The scrape taken just before t0 (chooseMetricsUrl): the first sample, the counters' baseline. */
  baseline?: NormalizedScrape;
  /**
   * Two or more replicas (`--metrics-url` given several times): scraped together in place of
   * `metricsUrl`, each sample naming its replica; the summary is their totals and each one's figures.
   */
  replicas?: readonly ReplicaTarget[];
  /** A Prometheus server to read the run window from, in place of scraping (`--metrics-prometheus`). */
  prometheus?: PrometheusSource;
}

export interface ServerMetricsRecorder {
  readonly scraper: Scraper;
  /** Feed every record (warmup included) as it completes: for wasted tokens and derived fragmentation. */
  observe(record: RequestRecord): void;
  /** Stops scraping (after a final scrape), closes the file and summarises. Idempotent. */
  finish(): Promise<ServerSummary>;
  /** What the run should be told of the recording once finished (a Prometheus read cut short), if anything. */
  note(): string | undefined;
  /** Generated tokens of the measured requests (warmup excluded), for the token goodput ratio. */
  measuredGeneratedTokens(summary: ServerSummary): number | undefined;
}

/** Where a recording's samples go: DIR/NAME, a header line then one sample a line; nowhere without a dir. */
export interface SampleFile<T> {
  write(sample: T): void;
  /** Closes the file; a write error is thrown unless `onWriteError` already took it. */
  close(): Promise<void>;
}

/** Opens a recording's JSONL file (server-metrics.jsonl, gpu-metrics.jsonl). */
export function openSampleFile<T>(
  opts: Pick<RecordingOptions, 'dir' | 'runId' | 'startedAt' | 'onWriteError'>,
  name: string,
  kind: JsonlHeader['kind'],
): SampleFile<T> {
  const writer = opts.dir
    ? new JsonlWriter<T>(
        join(opts.dir, name),
        { schemaVersion: SCHEMA_VERSION, kind, runId: opts.runId, startedAt: opts.startedAt },
        opts.onWriteError ? { onError: opts.onWriteError } : {},
      )
    : undefined;
  return {
    write: (sample) => writer?.write(sample),
    close: async () => {
      await writer?.close().catch((e: unknown) => {
        if (!(opts.onWriteError && writer.failure)) throw e;
      });
    },
  };
}

/** Starts scraping `metricsUrl` and recording samples. */
export function startServerMetricsRecorder(opts: ServerMetricsRecorderOptions): ServerMetricsRecorder {
  const file = openSampleFile<ServerSample>(opts, RESULT_FILES.serverMetrics, 'goodput.server-metrics');
  const common = { intervalMs: opts.intervalMs, clock: opts.clock, signal: opts.signal };
  const several = opts.replicas && opts.replicas.length > 1 ? opts.replicas : undefined;
  const write = (s: ServerSample) => file.write(s);
  const replicaScraper = opts.prometheus
    ? startPrometheusReader({ ...common, source: opts.prometheus, onSample: write })
    : several
      ? startReplicaScraper({ ...common, replicas: several, onSample: write })
      : undefined;
  const scraper =
    replicaScraper ??
    startScraper({
      ...common,
      url: opts.metricsUrl,
      baseline: opts.baseline,
      onSample: (s) => file.write(s),
    });
  // Ended requests are folded into the samples they cover: memory follows the samples.
  const client = new ClientViewBuilder(scraper.samples);
  let finished: Promise<ServerSummary> | undefined;
  const finish = async (): Promise<ServerSummary> => {
    await scraper.stop();
    await file.close();
    return summarizeSamples(replicaScraper?.replicaSamples ?? scraper.samples, {
      metricsUrl: opts.metricsUrl,
      records: client.build(),
      scrapeFailures: scraper.failures,
      ...(several && !opts.prometheus
        ? {
            urls: new Map(several.map((r) => [r.name, r.shownUrl ?? r.url])),
            failures: (replicaScraper as ReplicaScraper).failuresByReplica,
          }
        : {}),
    });
  };
  return {
    scraper,
    observe: (record) => client.add(record),
    note: () => (replicaScraper && 'note' in replicaScraper ? replicaScraper.note : undefined),
    finish() {
      finished ??= finish();
      return finished;
    },
    measuredGeneratedTokens: (summary) => measuredServerGeneratedTokens(summary, client.build()),
  };
}
