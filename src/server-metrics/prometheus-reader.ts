/**
 * The run's server metrics read from a Prometheus server (prometheus.ts) rather than scraped:
 * nothing is asked during the load; at the end, once every series of the selector has a scrape
 * at or after the run's end (Prometheus scrapes on its own interval, so this waits up to one of
 * them, bounded), one range query from the run's start to that scrape, at the scrape interval's
 * step (longer on long runs: at most MAX_RANGE_POINTS steps). The first step holds Prometheus's
 * last scrape before the run: the counters' baseline, as a direct scrape's probe is.
 *
 * It looks like a Scraper to the recorder: its samples appear when it stops.
 *
 * @module
 */

import type { Clock, ServerSample } from '../types.js';
import {
  lastScrapedAt,
  MAX_RANGE_POINTS,
  type MatrixResult,
  matrixToSamples,
  type PrometheusSource,
  prometheusApi,
  rangeQuery,
} from './prometheus.js';
import { combineRounds, hasReplicas } from './replicas.js';
import type { Scraper } from './scraper.js';

export interface PrometheusReaderOptions {
  source: PrometheusSource;
  clock: Clock;
  /** The step of the range query (default 1000 ms). */
  intervalMs?: number;
  /** Longest wait, after the run, for Prometheus to scrape past its end (default 60 s). */
  maxWaitMs?: number;
  signal?: AbortSignal;
  /** Every sample read (naming its replica when there are several instances), once read. */
  onSample?: (sample: ServerSample) => void;
}

export interface PrometheusReader extends Scraper {
  /** Each instance's own samples (naming its replica when there are several). */
  readonly replicaSamples: readonly ServerSample[];
  /** A note for the run (a wait cut short), once stopped. */
  readonly note: string | undefined;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/** Starts the reading: notes the run's start on the wall clock; `stop()` reads the window. */
export function startPrometheusReader(opts: PrometheusReaderOptions): PrometheusReader {
  const { source, clock } = opts;
  const stepMs = Math.max(10, opts.intervalMs ?? 1000);
  const wallAtZero = Date.now() - clock.now();
  const startS = Date.now() / 1000;
  const rounds: ServerSample[] = [];
  const replicaSamples: ServerSample[] = [];
  let failures = 0;
  let lastError: string | undefined;
  let note: string | undefined;
  let done: Promise<void> | undefined;

  const read = async (): Promise<void> => {
    const endS = Date.now() / 1000;
    const waitUntil = Date.now() + (opts.maxWaitMs ?? 60_000);
    let reached = await lastScrapedAt(source, opts.signal);
    while ((reached === undefined || reached < endS) && Date.now() < waitUntil && !opts.signal?.aborted) {
      await sleep(Math.min(500, stepMs), opts.signal);
      reached = await lastScrapedAt(source, opts.signal);
    }
    if (reached === undefined || reached < endS)
      note = `Prometheus had not scraped the engine since the run ended (waited ${((opts.maxWaitMs ?? 60_000) / 1000).toFixed(0)} s): the counters miss the run's last moments`;
    const until = Math.max(endS, reached ?? endS);
    const step = Math.max(stepMs / 1000, (until - startS) / MAX_RANGE_POINTS);
    // Steps from the start; the last one at or after `until`, so it holds the scrape that covers the end.
    const steps = Math.max(1, Math.ceil((until - startS) / step));
    const matrix = await prometheusApi<MatrixResult>(
      source,
      'query_range',
      {
        query: rangeQuery(source.selector),
        start: startS.toFixed(3),
        end: (startS + steps * step).toFixed(3),
        step: step.toFixed(3),
      },
      { timeoutMs: 30_000, ...(opts.signal ? { signal: opts.signal } : {}) },
    );
    const samples = matrixToSamples(matrix, (t) => t * 1000 - wallAtZero);
    for (const s of samples) {
      replicaSamples.push(s);
      opts.onSample?.(s);
    }
    rounds.push(...(hasReplicas(samples) ? combineRounds(samples) : samples));
  };

  const stop = async (): Promise<void> => {
    done ??= read().catch((e: unknown) => {
      failures++;
      lastError = (e as Error).message;
    });
    await done;
  };

  return {
    get samples() {
      return rounds;
    },
    get replicaSamples() {
      return replicaSamples;
    },
    get failures() {
      return failures;
    },
    get lastError() {
      return lastError;
    },
    get note() {
      return note;
    },
    scrapeNow: async () => rounds.at(-1),
    stop,
  };
}
