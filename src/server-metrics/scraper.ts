/**
 * Scrapes a server's Prometheus endpoint on an interval during a run. Tolerant: a scrape
 * that fails (refused, timeout, non-200, not Prometheus text) is counted and remembered,
 * never thrown, so a flaky metrics endpoint cannot break a benchmark. Scrapes never
 * overlap; each sample is stamped at the midpoint of its request on the run's clock.
 *
 * For llama.cpp builds whose /metrics lacks KV usage, `/slots` is read on the same tick.
 *
 * @module
 */

import type { Clock, ServerSample } from '../types.js';
import { readBounded } from '../util/index.js';
import { request } from '../util/undici.js';
import { type NormalizedScrape, normalizeExposition } from './normalize.js';
import { type PromExposition, parsePrometheusTextYielding } from './parse.js';
import { normalizeLlamaCppSlots } from './slots.js';

/** What every scrape loop needs (the server's metrics and a DCGM exporter alike). */
export interface ScrapeLoopOptions<V extends object> {
  /** The Prometheus endpoint, e.g. http://127.0.0.1:8000/metrics. */
  url: string;
  /** Time between scrapes (default 1000 ms). */
  intervalMs?: number;
  clock: Clock;
  onSample?: (sample: V & { tMs: number }) => void;
  /** Stops the scraper (no final scrape). */
  signal?: AbortSignal;
  /** Per-scrape timeout (default: the interval, at most 5 s, at least 250 ms). */
  timeoutMs?: number;
  /** Extra request headers (some gateways protect /metrics). Never logged. */
  headers?: Record<string, string>;
  /**
   * A scrape already taken just before the run's t0 (chooseMetricsUrl's probe): recorded as
   * the first sample at the current clock time, and the next scrape waits one interval. It
   * gives counters their baseline without any request on the wire after t0.
   */
  baseline?: V;
  /**
   * Keep every sample in `samples` (default true: a run summarises them at its end). A loop that
   * runs for a watcher's lifetime passes false: its samples reach only `onSample`.
   */
  keepSamples?: boolean;
  /** One scrape: fetch `url` (fetchExposition bounds it) and read it; throws with the cause on failure. */
  read: (url: string, opts: { timeoutMs: number; headers?: Record<string, string> }) => Promise<V>;
}

export interface ScraperOptions extends Omit<ScrapeLoopOptions<NormalizedScrape>, 'read'> {
  /** llama.cpp /slots URL; default: derived from `url` when the engine is llama.cpp. */
  slotsUrl?: string;
}

export interface Scraper<S extends { tMs: number } = ServerSample> {
  /** Every sample taken so far, in time order (none when the loop was told not to keep them). */
  readonly samples: readonly S[];
  /** Scrapes that failed. */
  readonly failures: number;
  /** The last failure's cause, for a warning. */
  readonly lastError: string | undefined;
  /** Scrape once now (waits for an in-flight scrape first). */
  scrapeNow(): Promise<S | undefined>;
  /** Stop the interval, take one final scrape (so counters cover the whole run), and wait. */
  stop(): Promise<void>;
}

/** `http://host:port/v1` → `http://host:port/<path>`: engines serve /metrics at the root. */
export function serverRootUrl(baseUrl: string, path: string): string {
  const u = new URL(baseUrl);
  u.pathname = u.pathname.replace(/\/+$/, '').replace(/\/v1$/, '') + path;
  u.search = '';
  u.hash = '';
  u.username = '';
  u.password = '';
  return u.toString();
}

/** llama.cpp serves /slots beside /metrics. */
function slotsUrlFor(metricsUrl: string): string {
  const u = new URL(metricsUrl);
  u.pathname = u.pathname.replace(/\/metrics\/?$/, '') + '/slots';
  u.search = '';
  return u.toString();
}

/** The largest metrics page read (vLLM's is ~100 KiB; a big SGLang one a few MiB). */
export const MAX_METRICS_BYTES = 16 * 1024 * 1024;

/** One GET, bounded in bytes and in time (body included); throws with the cause when a bound is hit. */
async function fetchText(
  url: string,
  timeoutMs: number,
  headers?: Record<string, string>,
  stop?: AbortSignal,
): Promise<{ status: number; text: string }> {
  const t0 = performance.now();
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = stop ? AbortSignal.any([deadline, stop]) : deadline;
  const res = await request(url, {
    method: 'GET',
    headers: { accept: 'text/plain;version=0.0.4, */*;q=0.5', ...headers },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal,
  });
  const body = await readBounded(res.body, {
    maxBytes: MAX_METRICS_BYTES,
    timeoutMs: Math.max(1, timeoutMs - (performance.now() - t0)),
    signal,
  });
  if (body.stopped === 'limit') {
    throw new Error(`${url} sent more than ${MAX_METRICS_BYTES / 1024 / 1024} MiB: not read further`);
  }
  if (body.stopped === 'aborted' && stop?.aborted) throw new Error(`${url}: scrape stopped`);
  if (body.stopped) throw new Error(`${url} did not finish its answer within ${timeoutMs} ms`);
  return { status: res.statusCode, text: body.text };
}

/**
 * One GET of a Prometheus endpoint, bounded in bytes (MAX_METRICS_BYTES) and in time (body
 * included), parsed without holding the event loop for long; throws with the cause when it fails, answers non-200 or holds no sample.
 */
export async function fetchExposition(
  url: string,
  opts: { timeoutMs?: number; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<PromExposition> {
  const { status, text } = await fetchText(url, opts.timeoutMs ?? 5000, opts.headers, opts.signal);
  if (status !== 200) throw new Error(`${url} answered HTTP ${status}`);
  // Parsed in slices: a page of many MiB must not stall the load's (or a watch round's) timers.
  const parsed = await parsePrometheusTextYielding(text);
  if (parsed.samples.length === 0) throw new Error(`${url} returned no Prometheus samples`);
  return parsed;
}

/** Scrapes `url` once and normalises it; throws with a cause on failure. */
export async function scrapeOnce(
  url: string,
  opts: { timeoutMs?: number; slotsUrl?: string; headers?: Record<string, string> } = {},
): Promise<NormalizedScrape> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const parsed = await fetchExposition(url, { timeoutMs, headers: opts.headers });
  const scrape = normalizeExposition(parsed);
  const { engine, values } = scrape;
  if (engine === 'llamacpp' && values.kvUsage === undefined) {
    try {
      const slots = await fetchText(opts.slotsUrl ?? slotsUrlFor(url), timeoutMs, opts.headers);
      if (slots.status === 200) {
        const fromSlots = normalizeLlamaCppSlots(JSON.parse(slots.text));
        if (fromSlots.kvUsage !== undefined) values.kvUsage = fromSlots.kvUsage;
      }
    } catch {
      // /slots is optional (--no-slots): KV usage simply stays unknown.
    }
  }
  return scrape;
}

/**
 * Does `url` answer with Prometheus text? Used to pick the default metrics URL.
 * Returns the engine it recognised, or undefined when it does not answer.
 */
export async function probeMetricsUrl(
  url: string,
  timeoutMs = 2000,
): Promise<ServerSample['engine'] | undefined> {
  return (await tryScrape(url, timeoutMs))?.engine;
}

export async function tryScrape(url: string, timeoutMs: number): Promise<NormalizedScrape | undefined> {
  try {
    return await scrapeOnce(url, { timeoutMs });
  } catch {
    return undefined;
  }
}

/**
 * Starts scraping now (a first scrape immediately, then every intervalMs).
 *
 * @example
 * ```ts
 * const scraper = startScraper({ url: 'http://127.0.0.1:8000/metrics', clock, onSample: (s) => writer.write(s) });
 * // … run the load …
 * await scraper.stop();
 * summarizeServer(scraper.samples, { metricsUrl: url, records });
 * ```
 */
export function startScraper(opts: ScraperOptions): Scraper {
  const { slotsUrl, ...loop } = opts;
  return startScrapeLoop({
    ...loop,
    read: (url, o) => scrapeOnce(url, { ...o, slotsUrl }),
  });
}

/**
 * The scrape loop behind startScraper, for any reading of a Prometheus endpoint (the DCGM
 * exporter's too): a first scrape now (or the baseline), then one every intervalMs, never
 * overlapping; a failed scrape is counted and remembered, never thrown.
 */
export function startScrapeLoop<V extends object>(opts: ScrapeLoopOptions<V>): Scraper<V & { tMs: number }> {
  type S = V & { tMs: number };
  const intervalMs = Math.max(10, opts.intervalMs ?? 1000);
  // A slow scrape only delays the next one (they never overlap), so the timeout can exceed the interval.
  const timeoutMs = opts.timeoutMs ?? Math.max(1000, Math.min(intervalMs * 2, 5000));
  const samples: S[] = [];
  const keep = opts.keepSamples !== false;
  let failures = 0;
  let lastError: string | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<S | undefined> | undefined;

  const scrape = async (): Promise<S | undefined> => {
    const t0 = opts.clock.now();
    try {
      const read = await opts.read(opts.url, { timeoutMs, headers: opts.headers });
      const sample = { tMs: (t0 + opts.clock.now()) / 2, ...read } as S;
      if (keep) samples.push(sample);
      opts.onSample?.(sample);
      return sample;
    } catch (e) {
      failures++;
      lastError = (e as Error).message;
      return undefined;
    }
  };

  const scrapeNow = async (): Promise<S | undefined> => {
    while (inFlight) await inFlight;
    inFlight = scrape();
    try {
      return await inFlight;
    } finally {
      inFlight = undefined;
    }
  };

  const tick = async (): Promise<void> => {
    if (stopped) return;
    const started = opts.clock.now();
    await scrapeNow();
    if (stopped) return;
    const wait = Math.max(0, intervalMs - (opts.clock.now() - started));
    timer = setTimeout(tick, wait);
    timer.unref?.();
  };

  const halt = () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
  opts.signal?.addEventListener('abort', halt, { once: true });
  if (opts.baseline) {
    const sample = { tMs: opts.clock.now(), ...structuredClone(opts.baseline) } as S;
    if (keep) samples.push(sample);
    opts.onSample?.(sample);
    timer = setTimeout(tick, intervalMs);
    timer.unref?.();
  } else {
    void tick();
  }

  return {
    get samples() {
      return samples;
    },
    get failures() {
      return failures;
    },
    get lastError() {
      return lastError;
    },
    scrapeNow,
    async stop() {
      const wasStopped = stopped;
      halt();
      opts.signal?.removeEventListener('abort', halt);
      while (inFlight) await inFlight;
      if (!wasStopped) await scrapeNow();
    },
  };
}
