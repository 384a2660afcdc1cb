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
import { type Scraper, startScraper } from './scraper.js';
import { ClientViewBuilder, measuredServerGeneratedTokens, summarizeServer } from './summarize.js';

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
  /** The server's metrics URL; samples go to DIR/server-metrics.jsonl. */
  metricsUrl: string;
  /** The scrape taken just before t0 (chooseMetricsUrl): the first sample, the counters' baseline. */
  baseline?: NormalizedScrape;
}

export interface ServerMetricsRecorder {
  readonly scraper: Scraper;
  /** Feed every record (warmup included) as it completes: for wasted tokens and derived fragmentation. */
  observe(record: RequestRecord): void;
  /** Stops scraping (after a final scrape), closes the file and summarises. Idempotent. */
  finish(): Promise<ServerSummary>;
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
  const scraper = startScraper({
    url: opts.metricsUrl,
    intervalMs: opts.intervalMs,
    clock: opts.clock,
    signal: opts.signal,
    baseline: opts.baseline,
    onSample: (s) => file.write(s),
  });
  // Ended requests are folded into the samples they cover: memory follows the samples.
  const client = new ClientViewBuilder(scraper.samples);
  let finished: Promise<ServerSummary> | undefined;
  const finish = async (): Promise<ServerSummary> => {
    await scraper.stop();
    await file.close();
    return summarizeServer(scraper.samples, {
      metricsUrl: opts.metricsUrl,
      records: client.build(),
      scrapeFailures: scraper.failures,
    });
  };
  return {
    scraper,
    observe: (record) => client.add(record),
    finish() {
      finished ??= finish();
      return finished;
    },
    measuredGeneratedTokens: (summary) => measuredServerGeneratedTokens(summary, client.build()),
  };
}
