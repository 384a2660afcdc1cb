/**
 * A run's GPU telemetry (`--gpu-metrics-url`): the same scrape loop as the server's metrics
 * (scraper.ts: bounded in bytes and time, failures counted, never thrown) reading a DCGM
 * exporter, its samples streamed into `gpu-metrics.jsonl`, ending with the GpuSummary that
 * goes into the server block. An exporter that never answers costs notes, not the run.
 *
 * @module
 */

import { RESULT_FILES } from '../results/files.js';
import type { GpuSample, GpuSummary } from '../types.js';
import { scrapeGpuOnce } from './dcgm-scrape.js';
import { summarizeGpu } from './gpu-summary.js';
import { openSampleFile, type RecordingOptions } from './recorder.js';
import { type Scraper, startScrapeLoop } from './scraper.js';

export interface GpuMetricsRecorderOptions extends RecordingOptions {
  /** The exporter's metrics URL, e.g. http://gpu-node:9400/metrics; samples go to DIR/gpu-metrics.jsonl. */
  url: string;
  /** The URL as the summary and notes show it (credentials redacted); default `url`. */
  shownUrl?: string;
}

export interface GpuMetricsRecorder {
  readonly scraper: Scraper<GpuSample>;
  /**
   * Stops scraping (after a final scrape), closes the file and summarises; undefined when
   * no scrape succeeded (see `scraper.failures` / `lastError` for the note). Idempotent.
   */
  finish(): Promise<GpuSummary | undefined>;
  /** What to tell the user when scrapes failed (some or all); undefined when none did. */
  note(): string | undefined;
}

/** Starts scraping the exporter and recording samples. */
export function startGpuMetricsRecorder(opts: GpuMetricsRecorderOptions): GpuMetricsRecorder {
  const file = openSampleFile<GpuSample>(opts, RESULT_FILES.gpuMetrics, 'goodput.gpu-metrics');
  const scraper = startScrapeLoop<Pick<GpuSample, 'gpus'>>({
    url: opts.url,
    intervalMs: opts.intervalMs,
    clock: opts.clock,
    signal: opts.signal,
    read: (url, o) => scrapeGpuOnce(url, o),
    onSample: (s) => file.write(s),
  });
  let finished: Promise<GpuSummary | undefined> | undefined;
  const finish = async (): Promise<GpuSummary | undefined> => {
    await scraper.stop();
    await file.close();
    if (scraper.samples.length === 0) return undefined;
    return summarizeGpu(scraper.samples, {
      metricsUrl: opts.shownUrl ?? opts.url,
      scrapeFailures: scraper.failures,
    });
  };
  const shown = opts.shownUrl ?? opts.url;
  return {
    scraper,
    finish() {
      finished ??= finish();
      return finished;
    },
    note() {
      const { failures, lastError, samples } = scraper;
      if (failures === 0) return undefined;
      // The cause names the URL as fetched: show it as redacted.
      const cause = lastError === undefined ? '' : ` (${lastError.split(opts.url).join(shown)})`;
      return samples.length === 0
        ? `GPU metrics: no scrape of ${shown} succeeded${cause}: the summary has no GPU figures`
        : `GPU metrics: ${failures} scrape(s) of ${shown} failed${cause}`;
    },
  };
}
