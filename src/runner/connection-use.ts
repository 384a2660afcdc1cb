/**
 * summary.load.connections: how the client used connections (its plan) and what the server did
 * with them, and the verdict whether the server limited them. Pure.
 *
 * A server with a bounded pool of HTTP threads serves only so many connections at once, each
 * until it closes; a request written to another one waits, with no byte back, until a thread
 * frees. The client sees it two ways: warm-up requests (GET /v1/models, answered at once by any
 * server with a thread for them) left unanswered while others were answered, and connections
 * whose first request waited long for a first byte while fewer connections were served than
 * requests were in flight. The second counts only when the server sends its headers before the
 * first token (vLLM, SGLang, llama.cpp, TGI do): a server that holds its headers until the first
 * token makes every queued request look the same, and then the load's waits say nothing.
 *
 * @module
 */

import type { ConnectionStats } from '../client/index.js';
import type { ConnectionUse, ConnectionWarmup, RequestRecord } from '../types.js';
import { type ConnectionPlan, poolLimit } from './live-client.js';

/** Counts, over answered requests, of those whose headers came well before their first token. */
export class HeadersTally {
  early = 0;
  of = 0;

  /** A record sink: a request whose headers came at least half its TTFT before the first token. */
  add(record: RequestRecord): void {
    if (record.warmup || record.headersMs === undefined || record.firstTokenMs === undefined) return;
    this.of++;
    const ttft = record.firstTokenMs - record.sentMs;
    if (record.firstTokenMs - record.headersMs >= ttft / 2) this.early++;
  }
}

export interface ConnectionUseInput {
  plan: ConnectionPlan;
  stats: ConnectionStats;
  warmup?: ConnectionWarmup;
  peakInFlight: number;
  headers: { early: number; of: number };
}

/** The warm-up answered some connections and left the others unanswered until its budget ran out. */
function warmupShort(w: ConnectionWarmup | undefined): boolean {
  return w !== undefined && w.reason === 'budget' && w.ok > 0 && w.ok < w.requested;
}

/**
 * What goes into summary.load.connections; see the module comment for the verdict.
 *
 * @example
 * connectionUse({ plan, stats: { opened: 8, peakOpen: 8, peakServed: 4, waited: 4, longestWaitMs: 3000 },
 *   peakInFlight: 8, headers: { early: 40, of: 40 } }).serverLimited; // true
 */
export function connectionUse(input: ConnectionUseInput): ConnectionUse {
  const { plan, stats, warmup, peakInFlight, headers } = input;
  const headersEarly = headers.of === 0 || headers.early * 2 >= headers.of;
  // The client's own cap (--connections pooled:N, the open-file limit) is no server's doing.
  const held = poolLimit(plan) ?? Number.POSITIVE_INFINITY;
  const loadWaited =
    stats.waited > 0 &&
    stats.peakServed >= 1 &&
    stats.peakServed < Math.min(peakInFlight, held) &&
    headersEarly;
  const use: ConnectionUse = {
    mode: plan.mode,
    warmed: plan.warm,
    sizing: plan.sizing,
    peakOpen: stats.peakOpen,
    peakServed: stats.peakServed,
    waited: stats.waited,
    longestWaitMs: stats.longestWaitMs,
    serverLimited: loadWaited || warmupShort(warmup),
  };
  if (plan.limit !== undefined) use.limit = plan.limit;
  const files = plan.filesCap;
  if (files && (plan.limit !== undefined || stats.peakOpen >= files.connections)) {
    use.limit = files.connections;
    use.openFilesLimit = files.openFiles;
  }
  return use;
}

/** The server-side finding in words, or undefined when the server did not limit connections. */
export function describeServerConnections(use: ConnectionUse, warmup?: ConnectionWarmup): string | undefined {
  if (!use.serverLimited) return undefined;
  const waits =
    use.waited > 0
      ? `${use.waited} connection(s) waited up to ${use.longestWaitMs} ms for the server's first byte`
      : `${warmup!.requested - warmup!.ok} of ${warmup!.requested} warm-up connections got no answer in ${warmup!.ms} ms`;
  return `the server served ${use.peakServed} connections at once; requests waited for a connection, not for the GPU (${waits})`;
}
