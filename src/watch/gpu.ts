/**
 * GPU telemetry of `goodput watch` (`--gpu-metrics-url`, or a target's `gpu_metrics_url`).
 * A round lasts a second or two, a DCGM exporter refreshes every few seconds: a scrape per
 * round would mostly re-read one stale value. So each distinct exporter URL gets one scrape
 * loop for the watcher's whole lifetime (server-metrics' `startScrapeLoop` reading
 * `scrapeGpuOnce`, as a run's: bounded in bytes and time, a failure counted, never thrown),
 * every `--gpu-scrape-interval`. Each target keeps the samples that arrived since its previous
 * round; at the end of a round they are its window, summarised by the run's `summarizeGpu`,
 * so the round summary's `server.gpu` means for that window what a run's means for the run.
 * The windows of a target follow one another without gap or overlap (the first starts when
 * the watcher does), so a mean over rounds weighted by samples is the mean over all samples.
 *
 * A failing exporter costs figures, never a round: the window says `samples: 0` and how many
 * scrapes failed; the log says when an exporter starts failing and when it answers again
 * (once per change, not once per failure).
 *
 * @module
 */

import { redactUrl } from '../config/index.js';
import { type Scraper, scrapeGpuOnce, startScrapeLoop, summarizeGpu } from '../server-metrics/index.js';
import type { GpuSample, GpuSummary } from '../types.js';

/** Time between two scrapes of a DCGM exporter when --gpu-scrape-interval is not given. */
export const DEFAULT_GPU_SCRAPE_INTERVAL_MS = 5000;

/**
 * Samples a target keeps between two rounds at most (the oldest go first): at the default
 * interval, a gap of more than five hours between rounds. Bounds memory whatever --every is.
 */
export const MAX_WINDOW_SAMPLES = 4096;

interface Source {
  shown: string;
  scraper: Scraper<GpuSample>;
  stop: AbortController;
  taps: Tap[];
}

interface Tap {
  source: Source;
  samples: GpuSample[];
  /** The source's failure count when this target's previous window ended. */
  failuresAtCut: number;
}

export interface GpuWatchOptions {
  intervalMs: number;
  /** A line for the user (state changes of an exporter). */
  log: (text: string) => void;
}

/** The GPU scrape loops of one watcher and each target's window of samples. */
export class GpuWatch {
  private readonly taps = new Map<string, Tap>();
  private readonly sources: Source[] = [];

  /** Starts one scrape loop per distinct URL of `urls` (target name → exporter URL). */
  constructor(urls: ReadonlyMap<string, string>, opts: GpuWatchOptions) {
    const byUrl = new Map<string, Source>();
    for (const [target, url] of urls) {
      let source = byUrl.get(url);
      if (!source) {
        source = startSource(url, opts);
        byUrl.set(url, source);
        this.sources.push(source);
      }
      const tap: Tap = { source, samples: [], failuresAtCut: 0 };
      source.taps.push(tap);
      this.taps.set(target, tap);
    }
  }

  /**
   * Ends the target's current window and summarises it (undefined: the target has no GPU
   * exporter). The summary has `samples: 0` and no figure when nothing was read in the window.
   */
  cut(target: string): GpuSummary | undefined {
    const tap = this.taps.get(target);
    if (!tap) return undefined;
    const samples = tap.samples.splice(0);
    const failures = tap.source.scraper.failures;
    const scrapeFailures = failures - tap.failuresAtCut;
    tap.failuresAtCut = failures;
    return summarizeGpu(samples, { metricsUrl: tap.source.shown, scrapeFailures });
  }

  /** Stops every loop (no final scrape) and the scrapes in flight: a slow exporter does not delay the exit. */
  async close(): Promise<void> {
    for (const s of this.sources) s.stop.abort();
    await Promise.all(this.sources.map((s) => s.scraper.stop()));
  }
}

function startSource(url: string, opts: GpuWatchOptions): Source {
  const shown = redactUrl(url);
  let failing: boolean | undefined;
  const stop = new AbortController();
  const taps: Tap[] = [];
  const scraper = startScrapeLoop<Pick<GpuSample, 'gpus'>>({
    url,
    intervalMs: opts.intervalMs,
    clock: { now: () => Date.now() },
    signal: stop.signal,
    keepSamples: false,
    read: async (u, o) => {
      try {
        const sample = await scrapeGpuOnce(u, { ...o, signal: stop.signal });
        if (failing === true) opts.log(`GPU metrics: ${shown} answers again`);
        failing = false;
        return sample;
      } catch (e) {
        if (stop.signal.aborted) throw e; // the watcher is closing: not the exporter's failure
        if (failing !== true) {
          // The cause names the URL as fetched: show it as redacted.
          const cause = (e as Error).message.split(url).join(shown);
          opts.log(
            `GPU metrics: scraping ${shown} failed (${cause}); rounds have no GPU figures while it fails`,
          );
        }
        failing = true;
        throw e;
      }
    },
    onSample: (sample) => {
      for (const tap of taps) {
        tap.samples.push(sample);
        if (tap.samples.length > MAX_WINDOW_SAMPLES) tap.samples.shift();
      }
    },
  });
  return { shown, scraper, stop, taps };
}
