/**
 * One shard of a sharded run (`goodput run --shard i/N --start-at TIME`): the shard's share
 * of the load (a `Part` of workload/partition.ts: requests round-robin by measured position, concurrency
 * and --max-concurrency split) and the checks that every shard gets something to do.
 *
 * The shard's records keep their global index and id, and in the open loop their place in
 * the whole arrival schedule, so the N shards together send exactly the one workload and
 * `goodput merge` of their result folders is one run of it.
 *
 * In virtual time there is no shared server: a shard's engine serves the whole workload (as
 * a shared server serves every shard) and the shard records only its share, so the merge of
 * N virtual shards is exactly the one virtual run.
 *
 * @module
 */

import { GoodputError } from '../../errors.js';
import type { LoadSpec, WorkItem } from '../../types.js';
import {
  Part,
  type PartSpec,
  type SessionScript,
  type SessionSource,
  type Workload,
} from '../../workload/index.js';

/** `--shard i/N` parsed (workload/partition.ts), for the command that takes the flag. */
export { parseShard } from '../../workload/index.js';

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** Refuses a sharding that would leave a shard without work or split what cannot be split. */
export function checkShard(load: LoadSpec, part: PartSpec, virtual: boolean): void {
  const n = part.count;
  if (load.mode === 'closed' && (load.concurrency ?? 1) < n) {
    throw usage(
      `--concurrency ${load.concurrency ?? 1} cannot be split over ${n} shards (each needs at least 1)`,
      `give the whole run's --concurrency, at least ${n}; each shard runs its share`,
    );
  }
  if (load.requests !== undefined && load.requests < n) {
    throw usage(
      `--requests ${load.requests} leaves some of the ${n} shards nothing to send`,
      `give the whole run's --requests, at least ${n}; each shard sends every ${n}th request`,
    );
  }
  if (load.maxConcurrency !== undefined && load.maxConcurrency < n && !virtual) {
    throw usage(
      `--max-concurrency ${load.maxConcurrency} cannot be split over ${n} shards`,
      `give the whole run's --max-concurrency, at least ${n}`,
    );
  }
  if (virtual && load.maxConcurrency !== undefined) {
    throw usage(
      '--max-concurrency with --shard in virtual time: which shard a dropped request belonged to is not kept',
      'leave out --max-concurrency, or run the shards in live time',
    );
  }
}

/**
 * The load one shard runs: its share of warmup, requests (turns, with sessions), concurrency
 * (sessions at once, with --sessions) and --max-concurrency.
 */
export function shardLoad(load: LoadSpec, spec: PartSpec): LoadSpec {
  const part = Part.of(spec);
  const local: LoadSpec = { ...load, warmup: part.share(load.warmup) };
  if (load.requests !== undefined) local.requests = part.share(load.requests);
  if (load.concurrency !== undefined) local.concurrency = part.share(load.concurrency);
  if (load.maxConcurrency !== undefined) local.maxConcurrency = part.share(load.maxConcurrency);
  const sessions = load.sessions;
  if (sessions?.concurrency !== undefined)
    local.sessions = { ...sessions, concurrency: part.share(sessions.concurrency) };
  return local;
}

/**
 * A session script whose turns take their record index through `index` (the runner numbers
 * the turns it sends 0, 1, … locally; `index` places them in the whole run).
 */
export function renumberSession(script: SessionScript, index: (local: number) => number): SessionScript {
  return { ...script, request: (t, replies, i, warmup) => script.request(t, replies, index(i), warmup) };
}

/**
 * The shard's sessions (partition by session, deterministic from the seed): its s-th session
 * is the whole run's session index + count·s, with every turn (history and think times stay
 * in this process), at its place in the one arrival schedule (--session-rate). The turns it
 * sends take the shard's positions among the run's measured requests (as `shardItem`'s do),
 * so the shards' records never share an index and together are the whole run's.
 */
export function shardSessions(source: SessionSource, warmup: number, spec: PartSpec): SessionSource {
  if (spec.count === 1) return source;
  const part = Part.of(spec);
  const whole = (s: number) => part.position(s);
  const start = source.startMs;
  return {
    session: (s, cls) => renumberSession(source.session(whole(s), cls), (i) => part.itemIndex(i, warmup)),
    warmup: (w) => source.warmup(w),
    ...(start ? { startMs: (s: number) => start(whole(s)) } : {}),
  };
}

/** Session s-000042 → 41 (the session's index in the run); undefined for a warmup session or no session. */
export function sessionNumber(sessionId: string | undefined): number | undefined {
  const m = sessionId === undefined ? null : /^s-(\d+)$/.exec(sessionId);
  return m ? Number(m[1]) - 1 : undefined;
}

/**
 * Whether a record belongs to the shard when one process ran the whole workload (virtual
 * time): a measured session turn by its session (whole sessions per shard), anything else by
 * its index.
 */
export function inShardRecord(
  record: { index: number; sessionId?: string; warmup: boolean },
  warmup: number,
  spec: PartSpec,
): boolean {
  const part = Part.of(spec);
  const s = record.warmup ? undefined : sessionNumber(record.sessionId);
  return s !== undefined ? part.has(s) : part.hasItem(record.index, warmup);
}

/** The shard's `local`-th item: the whole workload's item at its global position (index, id, schedule). */
export function shardItem(
  workload: Pick<Workload, 'item'>,
  warmup: number,
  spec: PartSpec,
): (local: number, cls?: number) => WorkItem {
  const part = Part.of(spec);
  return (local, cls) => workload.item(part.itemIndex(local, warmup), cls);
}

/** Whether the whole workload's item `index` (warmup included) belongs to the shard. */
export function inShard(index: number, warmup: number, spec: PartSpec): boolean {
  return Part.of(spec).hasItem(index, warmup);
}

/** Highest number of requests in flight at once among [sent, end) intervals. */
export function peakInFlight(spans: ReadonlyArray<readonly [number, number]>): number {
  const events: Array<[number, number]> = [];
  for (const [s, e] of spans) events.push([s, 1], [e, -1]);
  // Ends before starts at the same instant: a request that ended as another began was not concurrent.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of events) {
    now += d;
    if (now > peak) peak = now;
  }
  return peak;
}
