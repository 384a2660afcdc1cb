/**
 * The live client of a run: one set of client options from a BenchmarkConfig, used by the
 * run's own transport, by every load worker (`--workers`) and by watch's probes, and the bounded connection
 * warm-up before the clock starts.
 *
 * @module
 */

import { type Client, createClient, WARMUP_BUDGET_MS } from '../client/index.js';
import type { ConnectionWarmup, LoadClock, LoadSpec } from '../types.js';
import type { Tokenizer } from '../workload/index.js';
import type { BenchmarkConfig } from './config.js';
import { DEFAULT_LOAD_WIDTH } from './load.js';

/** Connections a load (or one worker's share of it) opens before the clock: its width. */
export function loadWidth(load: LoadSpec): number {
  return load.concurrency ?? load.maxConcurrency ?? DEFAULT_LOAD_WIDTH;
}

/** What a client takes from a run's (or a watch's) config. */
export type RunClientConfig = Pick<
  BenchmarkConfig,
  'api' | 'apiKey' | 'sampling' | 'headers' | 'secrets' | 'extraBody'
>;

/** A client of the target for `load` (the run's, one worker's share, or a watch probe's). */
export function createRunClient(
  config: RunClientConfig,
  target: { baseUrl: string; model: string },
  load: LoadSpec,
  tokenizer: Tokenizer,
  clock: LoadClock,
): Client {
  return createClient(
    {
      baseUrl: target.baseUrl,
      api: config.api,
      model: target.model,
      apiKey: config.apiKey,
      timeoutMs: load.timeoutMs,
      ttftTimeoutMs: load.ttftTimeoutMs,
      maxRetries: load.maxRetries,
      connections: load.mode === 'closed' ? loadWidth(load) : load.maxConcurrency,
      sampling: config.sampling,
      headers: config.headers,
      secrets: config.secrets,
      extraBody: config.extraBody,
      countTokens: (text) => tokenizer.count(text),
    },
    clock,
  );
}

/**
 * Opens the connections first, so TCP set-up is not charged to TTFT. Bounded (a server that
 * never answers, Ctrl-C, a short --duration): the load starts anyway.
 */
export function warmConnections(
  client: Client,
  load: LoadSpec,
  signal?: AbortSignal,
): Promise<ConnectionWarmup> {
  return client.warmup(Math.min(loadWidth(load), 256), {
    budgetMs: Math.min(WARMUP_BUDGET_MS, load.durationMs ?? Number.POSITIVE_INFINITY),
    signal,
  });
}
