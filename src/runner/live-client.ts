/**
 * The live client of a run: one set of client options from a BenchmarkConfig, used by the
 * run's own transport, by every load worker (`--workers`) and by watch's probes, and the bounded connection
 * warm-up before the clock starts.
 *
 * @module
 */

import {
  type Client,
  connectionsWithinFiles,
  createClient,
  type LocalLimits,
  WARMUP_BUDGET_MS,
} from '../client/index.js';
import { DEFAULT_SESSION_HEADER } from '../config/index.js';
import type { ConnectionWarmup, LoadClock, LoadSpec } from '../types.js';
import type { Tokenizer } from '../workload/index.js';
import type { BenchmarkConfig } from './config.js';

/** Time to first token assumed (s) to size an open loop's warm-up before anything is measured. */
export const TTFT_GUESS_S = 0.25;
/** Time per output token assumed (s): a GPU engine decoding a moderate batch. */
export const TPOT_GUESS_S = 0.02;
/** Most connections opened before the clock. */
export const MAX_WARM_CONNECTIONS = 256;
/** An open loop whose rate is not known ahead (a trace replay): connections warmed. */
const UNKNOWN_RATE_WARM = 8;

/** How the client of a load uses connections: the pool's cap, the warm-up, and why, in words. */
export interface ConnectionPlan {
  mode: 'pooled' | 'per-request';
  /** Most connections held at once; undefined: as many as the load needs (open loop). */
  limit?: number;
  /** Connections opened before the clock. */
  warm: number;
  sizing: string;
  /**
   * This process's open-file limit holds the pool below `limit` (or below an open loop's "as
   * many as it needs"): the client holds at most `connections` (`openFiles` is `ulimit -n`).
   */
  filesCap?: FilesCap;
}

/** The most connections an open-file limit leaves room for (connectionsWithinFiles), and the limit. */
export interface FilesCap {
  openFiles: number;
  connections: number;
}

/**
 * One client's room under this process's open-file limit: all of it, or a load worker's share
 * (1 of `workers`: the threads share the process's descriptors); each connection takes 2 against
 * the embedded engine, whose end of it is in this process too. Undefined when the limit is unknown.
 */
export function filesCapOf(limits: LocalLimits, embedded: boolean, workers = 1): FilesCap | undefined {
  const room = connectionsWithinFiles(limits.openFiles, embedded ? 2 : 1);
  if (room === undefined || limits.openFiles === undefined) return undefined;
  return { openFiles: limits.openFiles, connections: Math.max(1, Math.floor(room / workers)) };
}

/** The most connections the client holds at once: the plan's limit within its files cap; undefined: no cap. */
export function poolLimit(plan: ConnectionPlan): number | undefined {
  const cap = plan.filesCap?.connections;
  if (cap === undefined) return plan.limit;
  return plan.limit === undefined ? cap : Math.min(plan.limit, cap);
}

/** Requests a closed loop keeps in flight: its concurrency, or its highest stage. */
function closedWidth(load: LoadSpec): number {
  if (load.stages && load.stagesOf !== 'rate') {
    return Math.max(1, ...load.stages.map((s) => Math.ceil(s.target)));
  }
  return Math.max(1, load.concurrency ?? 1);
}

/**
 * Requests an open loop is expected to keep in flight, and why: the rate times a latency guessed
 * from the output limit (TTFT_GUESS_S + max_tokens × TPOT_GUESS_S), with no headroom, within
 * --max-concurrency; an unlimited rate sends everything at once. Low on purpose: a connection
 * too many parks a thread of a server with few of them for as long as it stays open, while one
 * too few costs one connect during the load, outside TTFT (a request's TTFT starts once it is
 * written to a connection).
 */
function openInFlight(load: LoadSpec, maxTokens: number): { n: number; why: string } {
  const cap = load.maxConcurrency ?? Number.POSITIVE_INFINITY;
  const rate =
    load.stages && load.stagesOf === 'rate'
      ? Math.max(0, ...load.stages.map((s) => s.target))
      : (load.sessions?.rate ?? load.rate);
  if (rate === Number.POSITIVE_INFINITY) {
    const n = Math.min(cap, load.requests ?? cap);
    return Number.isFinite(n)
      ? { n, why: 'every request at once' }
      : { n: UNKNOWN_RATE_WARM, why: 'no rate known ahead' };
  }
  if (load.sessions?.concurrency !== undefined) {
    return {
      n: Math.min(cap, load.sessions.concurrency),
      why: `${load.sessions.concurrency} sessions at once`,
    };
  }
  if (rate === undefined || !(rate > 0)) {
    return { n: Math.min(cap, UNKNOWN_RATE_WARM), why: 'no rate known ahead' };
  }
  const latencyS = TTFT_GUESS_S + maxTokens * TPOT_GUESS_S;
  const n = Math.min(cap, Math.max(1, Math.ceil(rate * latencyS)));
  return {
    n,
    why: `${rate}/s × ${latencyS.toFixed(2)} s expected latency (${TTFT_GUESS_S * 1000} ms + max_tokens ${maxTokens} × ${TPOT_GUESS_S * 1000} ms)`,
  };
}

/**
 * The connection plan of a load (the run's, one worker's share, a watch probe's), from
 * `--connections` and the load: a closed loop holds one connection per request in flight (its
 * concurrency) and opens them all first; an open loop opens as many as its rate is expected to
 * keep in flight (see openInFlight) and more only as the load needs them, within
 * --max-concurrency; `pooled:N` caps either at N. Idle connections close after
 * IDLE_CONNECTION_MS. `per-request` opens none before the clock.
 *
 * `files`: the most connections this process's open-file limit leaves room for
 * (connectionsWithinFiles); below the load's limit, the pool holds no more (`filesCap`) and
 * the requests beyond wait in the client for a connection, where they would otherwise fail
 * for want of a file descriptor.
 */
export function planConnections(load: LoadSpec, maxTokens: number, files?: FilesCap): ConnectionPlan {
  const setting = load.connections ?? { mode: 'pooled' };
  const loadCap = load.mode === 'closed' && !load.sessions ? closedWidth(load) : load.maxConcurrency;
  const limit =
    setting.limit === undefined ? loadCap : Math.min(setting.limit, loadCap ?? Number.POSITIVE_INFINITY);
  const filesCap =
    files && files.connections < (limit ?? Number.POSITIVE_INFINITY) ? { filesCap: files } : {};
  // Said only when the load asked for more: an open loop's "as many as it needs" says nothing of it.
  const within =
    filesCap.filesCap && limit !== undefined
      ? `; at most ${files!.connections} within this process's open-file limit (ulimit -n ${files!.openFiles})`
      : '';
  const cap = limit === undefined ? '' : `, at most ${limit}`;
  if (setting.mode === 'per-request') {
    return {
      mode: 'per-request',
      ...(limit !== undefined ? { limit } : {}),
      warm: 0,
      sizing: `a new connection per request${cap}${within}`,
      ...filesCap,
    };
  }
  const expected =
    load.mode === 'closed' && !load.sessions
      ? { n: closedWidth(load), why: `concurrency ${closedWidth(load)}` }
      : openInFlight(load, maxTokens);
  const held = Math.min(limit ?? Number.POSITIVE_INFINITY, files?.connections ?? Number.POSITIVE_INFINITY);
  const warm = Math.min(expected.n, held, MAX_WARM_CONNECTIONS);
  const given = setting.limit !== undefined ? ` (--connections pooled:${setting.limit})` : '';
  return {
    mode: 'pooled',
    ...(limit !== undefined ? { limit } : {}),
    warm,
    sizing: `${warm} opened first for ${expected.why}${limit === undefined ? ', more as the load needs them' : cap}${given}${within}`,
    ...filesCap,
  };
}

/** What a client takes from a run's (or a watch's) config. */
export type RunClientConfig = Pick<
  BenchmarkConfig,
  'api' | 'apiKey' | 'sampling' | 'headers' | 'secrets' | 'extraBody' | 'sessionHeader'
>;

/** A client of the target for `load` (the run's, one worker's share, or a watch probe's). */
export function createRunClient(
  config: RunClientConfig,
  target: { baseUrl: string; model: string },
  load: LoadSpec,
  tokenizer: Tokenizer,
  clock: LoadClock,
  plan: ConnectionPlan = planConnections(load, config.sampling.maxTokens),
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
      connections: poolLimit(plan),
      connectionMode: plan.mode,
      ...(load.connections?.sourceAddresses ? { sourceAddresses: load.connections.sourceAddresses } : {}),
      sampling: config.sampling,
      headers: config.headers,
      secrets: config.secrets,
      extraBody: config.extraBody,
      ...(config.sessionHeader !== false
        ? { sessionHeader: config.sessionHeader ?? DEFAULT_SESSION_HEADER }
        : {}),
      countTokens: (text) => tokenizer.count(text),
    },
    clock,
  );
}

/**
 * Opens the plan's connections first, so their set-up is not part of the load. Bounded (a server that
 * never answers, Ctrl-C, a short --duration): the load starts anyway.
 */
export function warmConnections(
  client: Client,
  plan: ConnectionPlan,
  load: LoadSpec,
  signal?: AbortSignal,
): Promise<ConnectionWarmup> {
  return client.warmup(plan.warm, {
    budgetMs: Math.min(WARMUP_BUDGET_MS, load.durationMs ?? Number.POSITIVE_INFINITY),
    signal,
  });
}

/** A note when the connection warm-up did not open every connection, else undefined. */
export function describeConnectionWarmup(w: ConnectionWarmup): string | undefined {
  if (!w.reason) return undefined;
  const why = {
    budget: `the server did not answer GET /v1/models within ${w.ms} ms`,
    aborted: 'the run was stopped',
    errors: 'GET /v1/models failed',
  }[w.reason];
  return `connection warm-up: ${w.ok} of ${w.requested} connections ready (${why}); the load starts on fresh connections, opened as it needs them`;
}
