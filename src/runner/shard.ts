/**
 * One shard of a sharded run (`goodput run --shard i/N --start-at TIME`): the shard's share
 * of the load (workload/partition.ts: requests round-robin by measured position, concurrency
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

import { GoodputError } from '../errors.js';
import type { LoadSpec, WorkItem } from '../types.js';
import { type Part, partItemIndex, partShare, splitBudget, type Workload } from '../workload/index.js';

/** `--shard i/N` parsed (workload/partition.ts), for the command that takes the flag. */
export { parseShard } from '../workload/index.js';

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** Refuses a sharding that would leave a shard without work or split what cannot be split. */
export function checkShard(load: LoadSpec, part: Part, virtual: boolean): void {
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

/** The load one shard runs: its share of warmup, requests, concurrency and --max-concurrency. */
export function shardLoad(load: LoadSpec, part: Part): LoadSpec {
  const local: LoadSpec = { ...load, warmup: partShare(load.warmup, part) };
  if (load.requests !== undefined) local.requests = partShare(load.requests, part);
  if (load.concurrency !== undefined) local.concurrency = splitBudget(load.concurrency, part);
  if (load.maxConcurrency !== undefined) local.maxConcurrency = splitBudget(load.maxConcurrency, part);
  return local;
}

/** The shard's `local`-th item: the whole workload's item at its global position (index, id, schedule). */
export function shardItem(workload: Workload, warmup: number, part: Part): (local: number) => WorkItem {
  return (local) => workload.item(partItemIndex(local, warmup, part));
}

/** Whether the whole workload's item `index` (warmup included) belongs to the shard. */
export function inShard(index: number, warmup: number, part: Part): boolean {
  return (index < warmup ? index : index - warmup) % part.count === part.index;
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
