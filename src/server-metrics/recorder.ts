/**
 * A run's server-metrics recording: a scraper whose samples stream into
 * `server-metrics.jsonl` (header line with schemaVersion, then one ServerSample a line)
 * and that ends with the run's ServerSummary.
 *
 * @module
 */

import { join } from 'node:path';
import { RESULT_FILES } from '../results/files.js';
import { JsonlWriter } from '../results/jsonl.js';
import {
  type Clock,
  type RequestRecord,
  SCHEMA_VERSION,
  type ServerSample,
  type ServerSummary,
} from '../types.js';
import { type Scraper, startScraper } from './scraper.js';
import { summarizeServer } from './summarize.js';

export interface ServerMetricsRecorderOptions {
  metricsUrl: string;
  /** Result directory; samples go to DIR/server-metrics.jsonl. Omit to keep them in memory only. */
  dir?: string;
  runId: string;
  startedAt: string;
  clock: Clock;
  intervalMs?: number;
  signal?: AbortSignal;
}

export interface ServerMetricsRecorder {
  readonly scraper: Scraper;
  /** Stops scraping (after a final scrape), closes the file and summarises. */
  finish(records?: readonly RequestRecord[]): Promise<ServerSummary>;
}

/** Starts scraping `metricsUrl` and recording samples. */
export function startServerMetricsRecorder(opts: ServerMetricsRecorderOptions): ServerMetricsRecorder {
  const writer = opts.dir
    ? new JsonlWriter<ServerSample>(join(opts.dir, RESULT_FILES.serverMetrics), {
        schemaVersion: SCHEMA_VERSION,
        kind: 'goodput.server-metrics',
        runId: opts.runId,
        startedAt: opts.startedAt,
      })
    : undefined;
  const scraper = startScraper({
    url: opts.metricsUrl,
    intervalMs: opts.intervalMs,
    clock: opts.clock,
    signal: opts.signal,
    onSample: (s) => writer?.write(s),
  });
  return {
    scraper,
    async finish(records) {
      await scraper.stop();
      await writer?.close();
      return summarizeServer(scraper.samples, {
        metricsUrl: opts.metricsUrl,
        records,
        scrapeFailures: scraper.failures,
      });
    },
  };
}
