/**
 * What one load worker (`--workers N`) sends of its process's load: worker k of n is the
 * `Part` k of n of that load (workload/partition.ts), and of the run `shard.sub(k, n)`.
 *
 * - Closed loop: the concurrency is the worker's share of it (8 over 3 → 3, 3, 2), and the
 *   items are taken from one shared counter (see thread.ts), so the request count and the
 *   items sent are those of a one-worker run.
 * - Open loop, Poisson arrivals (burstiness 1): worker k of N sends its own Poisson process of
 *   rate/N (its own seeded stream), and the union of N independent Poisson processes of rate/N
 *   is a Poisson process of the requested rate. Worker 0's first arrival is at offset 0, the
 *   others' at their first gap, so the union starts with one arrival at 0 as a one-worker run
 *   does (memorylessness makes the rest exact).
 * - Open loop, gamma arrivals (burstiness ≠ 1): the union of independent gamma processes is
 *   not a gamma process, so every worker computes the one schedule of the run and sends its
 *   part's arrivals of it (worker k: arrivals k, k+N, k+2N, …): the union is the schedule itself.
 * - A trace replay keeps its own times: every worker sends its part of the trace's requests.
 * - Load stages of rate (`--stages … --stages-of rate`): every worker sends its part of the
 *   one staged schedule's arrivals, so each stage's rate is split N ways; stages of
 *   concurrency: the worker runs its part of the stage users (user u sends while the target is
 *   above u), so the workers' users together follow the target.
 * - Either way worker k sends the measured items of its part; `--requests R` gives it its
 *   share of them, and a cap on requests in flight is shared like the concurrency.
 * - Multi-turn sessions stay whole on one worker (its turns, history and think times): closed
 *   loop, the sessions at once are shared like the concurrency and each worker's users take the
 *   run's next session from a counter shared by all (as closed-loop items are); open loop
 *   (--session-rate), the worker starts its part of the sessions on its Poisson share of the
 *   rate, or at its part of the one gamma schedule's starts. Turns take their record index
 *   from one shared counter, which also keeps `--requests` (turns) the run's.
 *
 * @module
 */

import type { LoadSpec, WorkItem } from '../../types.js';
import {
  ArrivalSchedule,
  createRng,
  type Part,
  type SessionSource,
  type Workload,
} from '../../workload/index.js';

/** 'independent' shares (Poisson, and an unlimited rate) or 'round-robin' over one schedule (gamma). */
export function openLoopSplit(rate: number, burstiness: number): 'independent' | 'round-robin' {
  return burstiness === 1 || !Number.isFinite(rate) ? 'independent' : 'round-robin';
}

/** How an open loop's arrivals are split: as openLoopSplit, but stages of rate always from their one schedule. */
function loadSplit(load: LoadSpec): 'independent' | 'round-robin' {
  if (load.stages !== undefined) return 'round-robin';
  return openLoopSplit(load.rate ?? Number.POSITIVE_INFINITY, load.burstiness ?? 1);
}

/**
 * The worker's sessions (see the module comment): closed loop, the run's next session from
 * `next` (a counter shared by the workers); open loop, its part of the sessions at their
 * starts (`split` 'round-robin': the source's own schedule, as a shard's; else the worker's
 * Poisson share, or its part of the one gamma schedule's starts).
 */
export function shareSessions(
  source: SessionSource,
  load: LoadSpec,
  seed: number,
  worker: Part,
  next: () => number,
  split?: 'round-robin',
): SessionSource {
  if (worker.count === 1) return source;
  const rate = load.sessions?.rate;
  const start = source.startMs;
  if (rate === undefined || !start) return { ...source, session: (_, cls) => source.session(next(), cls) };
  const own = (j: number) => worker.position(j);
  const at =
    split === 'round-robin' || openLoopSplit(rate, load.burstiness ?? 1) === 'round-robin'
      ? (j: number) => start(own(j))
      : shareArrivals({ rate, burstiness: 1 }, seed, worker);
  return { ...source, session: (j) => source.session(own(j)), startMs: at };
}

/**
 * The worker's load: its share of the concurrency (closed loop) or of the requests and of the
 * cap on requests in flight (open loop). The warmup count is the process's: warmup items are
 * taken from a counter shared by all workers.
 */
export function workerLoad(load: LoadSpec, worker: Part): LoadSpec {
  const share: LoadSpec = { ...load };
  if (worker.count === 1) return share;
  const sessions = load.sessions;
  if (sessions?.concurrency !== undefined)
    share.sessions = { ...sessions, concurrency: worker.share(sessions.concurrency) };
  if (load.mode === 'closed') {
    share.concurrency = worker.share(Math.max(1, load.concurrency ?? 1));
    return share;
  }
  if (load.maxConcurrency !== undefined) share.maxConcurrency = worker.share(load.maxConcurrency);
  // Session turns: the shared counter keeps the run's turn count.
  if (sessions !== undefined) return share;
  if (load.requests === undefined) delete share.requests;
  else share.requests = worker.share(load.requests);
  return share;
}

/**
 * Offsets (ms from the measured start) of the worker's arrivals: its j-th send. Independent
 * Poisson shares of rate/N, or its part of the run's one schedule (see the module comment).
 * `seed` is the run's.
 */
export function shareArrivals(
  load: Pick<LoadSpec, 'rate' | 'burstiness'>,
  seed: number,
  worker: Part,
): (j: number) => number {
  const rate = load.rate ?? Number.POSITIVE_INFINITY;
  const burstiness = load.burstiness ?? 1;
  const arrivals = createRng(seed).fork('arrivals');
  const { index: k, count: n } = worker;
  if (n === 1) {
    const one = new ArrivalSchedule(rate, burstiness, arrivals);
    return (j) => one.offsetAt(j);
  }
  if (openLoopSplit(rate, burstiness) === 'round-robin') {
    const one = new ArrivalSchedule(rate, burstiness, arrivals);
    return (j) => one.offsetAt(worker.position(j));
  }
  const own = new ArrivalSchedule(rate / n, 1, arrivals.fork(`worker-${k}-of-${n}`));
  return k === 0 ? (j) => own.offsetAt(j) : (j) => own.offsetAt(j + 1);
}

/**
 * The worker's i-th item (the local index the load asks for, warmup first): warmup items are
 * the process's own (index < warmup, taken from the shared counter); measured items are the
 * worker's part of the measured items, each at its own scheduled time (`split` 'round-robin':
 * one schedule, or a trace's own times) or on the worker's Poisson share (`split` 'independent').
 */
export function shareWorkItem(
  workload: Pick<Workload, 'item'>,
  load: LoadSpec,
  seed: number,
  worker: Part,
  split: 'independent' | 'round-robin' = loadSplit(load),
): (i: number, cls?: number) => WorkItem {
  if (load.mode !== 'open' || worker.count === 1) return (i, cls) => workload.item(i, cls);
  const measured = (j: number) => workload.item(load.warmup + worker.position(j));
  if (split === 'round-robin') return (i) => (i < load.warmup ? workload.item(i) : measured(i - load.warmup));
  const offset = shareArrivals(load, seed, worker);
  return (i) => {
    if (i < load.warmup) return workload.item(i);
    const j = i - load.warmup;
    return { ...measured(j), scheduledMs: offset(j) };
  };
}
