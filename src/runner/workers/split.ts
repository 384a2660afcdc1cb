/**
 * How a run's load is split across worker threads (`--workers N`), as pure functions.
 *
 * - Closed loop: the concurrency is split as evenly as it goes (8 over 3 → 3, 3, 2), and the
 *   items are taken from one shared counter (see thread.ts), so the request count and the
 *   items sent are those of a one-worker run.
 * - Open loop, Poisson arrivals (burstiness 1): worker k of N sends its own Poisson process of
 *   rate/N (its own seeded stream), and the union of N independent Poisson processes of rate/N
 *   is a Poisson process of the requested rate. Worker 0's first arrival is at offset 0, the
 *   others' at their first gap, so the union starts with one arrival at 0 as a one-worker run
 *   does (memorylessness makes the rest exact).
 * - Open loop, gamma arrivals (burstiness ≠ 1): the union of independent gamma processes is
 *   not a gamma process, so every worker computes the one schedule of the run and sends every
 *   N-th arrival of it (worker k: arrivals k, k+N, k+2N, …): the union is the schedule itself.
 * - A trace replay keeps its own times: every worker sends every N-th request of the trace.
 * - Load stages of rate (`--stages … --stages-of rate`): every worker sends every N-th arrival
 *   of the one staged schedule, so each stage's rate is split N ways; stages of concurrency:
 *   worker k runs the stage users k, k+N, … (user u sends while the target is above u), so
 *   the workers' users together follow the target.
 * - Either way worker k sends the items warmup+k, warmup+k+N, …; `--requests R` gives it
 *   ⌈(R−k)/N⌉ of them, and a cap on requests in flight is split like the concurrency.
 * - Multi-turn sessions stay whole on one worker (its turns, history and think times): closed
 *   loop, the sessions at once are split like the concurrency and each worker's users take the
 *   run's next session from a counter shared by all (as closed-loop items are); open loop
 *   (--session-rate), worker k starts sessions k, k+N, … on its Poisson share of the rate, or
 *   at every N-th start of the one gamma schedule. Turns take their record index from one
 *   shared counter, which also keeps `--requests` (turns) the run's.
 *
 * @module
 */

import { GoodputError } from '../../errors.js';
import type { LoadSpec, WorkItem } from '../../types.js';
import { ArrivalSchedule, createRng, type SessionSource, type Workload } from '../../workload/index.js';

/** The largest worker count accepted (far above any machine's core count worth splitting over). */
export const MAX_WORKERS = 256;

/**
 * `--workers` as given (a whole number or `auto`) → a worker count. `auto` is the cores of
 * this machine minus one (one is left to the main thread and the rest of the system), at least 1.
 */
export function resolveWorkerCount(flag: string | number | undefined, cores: number): number {
  if (flag === undefined) return 1;
  if (flag === 'auto') return Math.max(1, cores - 1);
  const n = typeof flag === 'number' ? flag : /^\d+$/.test(flag.trim()) ? Number(flag.trim()) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_WORKERS) {
    throw new GoodputError(
      'E_USAGE',
      `--workers must be a whole number from 1 to ${MAX_WORKERS}, or auto, got '${flag}'`,
      `pass e.g. --workers 2, or --workers auto (this machine: ${Math.max(1, cores - 1)})`,
    );
  }
  return n;
}

/** `total` split into `n` shares as even as can be, the larger ones first (8 over 3 → [3, 3, 2]). */
export function splitEvenly(total: number, n: number): number[] {
  const base = Math.floor(total / n);
  const extra = total - base * n;
  return Array.from({ length: n }, (_, k) => base + (k < extra ? 1 : 0));
}

/**
 * Workers that have something to do: no more than the closed loop's concurrency, the open
 * loop's cap on requests in flight, or the measured request count.
 */
export function effectiveWorkers(load: LoadSpec, requested: number): number {
  let n = requested;
  if (load.mode === 'closed') n = Math.min(n, Math.max(1, load.concurrency ?? 1));
  if (load.mode === 'open' && load.maxConcurrency !== undefined) n = Math.min(n, load.maxConcurrency);
  if (load.requests !== undefined) n = Math.min(n, load.requests);
  return Math.max(1, n);
}

/** Worker k's measured requests of a run bounded by count: ⌈(R−k)/N⌉ (undefined: bounded by time). */
export function shareRequests(requests: number | undefined, k: number, n: number): number | undefined {
  return requests === undefined ? undefined : Math.max(0, Math.ceil((requests - k) / n));
}

/** The global item index of worker k's j-th measured item (open loop): warmup + k + N·j. */
export function shareItemIndex(warmup: number, k: number, n: number, j: number): number {
  return warmup + k + n * j;
}

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
 * The run's stage users that worker k of n runs, inside a process that runs `part` of them
 * (a shard's: first = its index, every = the shard count).
 */
export function shareStageUsers(
  k: number,
  n: number,
  part: { first: number; every: number } = { first: 0, every: 1 },
): { first: number; every: number } {
  return { first: part.first + part.every * k, every: part.every * n };
}

/**
 * Worker k's sessions (see the module comment): closed loop, the run's next session from
 * `next` (a counter shared by the workers); open loop, sessions k, k+N, … at their starts
 * (`split` 'round-robin': the source's own schedule, as a shard's; else the worker's Poisson
 * share, or every N-th start of the one gamma schedule).
 */
export function shareSessions(
  source: SessionSource,
  load: LoadSpec,
  seed: number,
  k: number,
  n: number,
  next: () => number,
  split?: 'round-robin',
): SessionSource {
  if (n === 1) return source;
  const rate = load.sessions?.rate;
  const start = source.startMs;
  if (rate === undefined || !start) return { ...source, session: () => source.session(next()) };
  const own = (j: number) => k + n * j;
  const at =
    split === 'round-robin' || openLoopSplit(rate, load.burstiness ?? 1) === 'round-robin'
      ? (j: number) => start(own(j))
      : shareArrivals({ rate, burstiness: 1 }, seed, k, n);
  return { ...source, session: (j) => source.session(own(j)), startMs: at };
}

/**
 * Worker k's load: its share of the concurrency (closed loop) or of the requests and of the
 * cap on requests in flight (open loop). The warmup count is the run's: warmup items are
 * taken from a counter shared by all workers.
 */
export function workerLoad(load: LoadSpec, k: number, n: number): LoadSpec {
  const share: LoadSpec = { ...load };
  if (n === 1) return share;
  const sessions = load.sessions;
  if (sessions?.concurrency !== undefined)
    share.sessions = { ...sessions, concurrency: splitEvenly(sessions.concurrency, n)[k]! };
  if (load.mode === 'closed') {
    share.concurrency = splitEvenly(Math.max(1, load.concurrency ?? 1), n)[k]!;
    return share;
  }
  if (load.maxConcurrency !== undefined) share.maxConcurrency = splitEvenly(load.maxConcurrency, n)[k]!;
  // Session turns: the shared counter keeps the run's turn count.
  if (sessions !== undefined) return share;
  const requests = shareRequests(load.requests, k, n);
  if (requests === undefined) delete share.requests;
  else share.requests = requests;
  return share;
}

/**
 * Offsets (ms from the measured start) of worker k's arrivals: its j-th send. Independent
 * Poisson shares of rate/N, or every N-th arrival of the run's one schedule (see the module
 * comment). `seed` is the run's.
 */
export function shareArrivals(
  load: Pick<LoadSpec, 'rate' | 'burstiness'>,
  seed: number,
  k: number,
  n: number,
): (j: number) => number {
  const rate = load.rate ?? Number.POSITIVE_INFINITY;
  const burstiness = load.burstiness ?? 1;
  const arrivals = createRng(seed).fork('arrivals');
  if (n === 1) {
    const one = new ArrivalSchedule(rate, burstiness, arrivals);
    return (j) => one.offsetAt(j);
  }
  if (openLoopSplit(rate, burstiness) === 'round-robin') {
    const one = new ArrivalSchedule(rate, burstiness, arrivals);
    return (j) => one.offsetAt(k + n * j);
  }
  const own = new ArrivalSchedule(rate / n, 1, arrivals.fork(`worker-${k}-of-${n}`));
  return k === 0 ? (j) => own.offsetAt(j) : (j) => own.offsetAt(j + 1);
}

/**
 * Worker k's i-th item (the local index runLoad asks for, warmup first): warmup items are the
 * run's own (index < warmup, taken from the shared counter); measured items are the run's
 * items warmup + k + N·j, each at its own scheduled time (`split` 'round-robin': one
 * schedule, or a trace's own times) or on the worker's Poisson share (`split` 'independent').
 */
export function shareWorkItem(
  workload: Pick<Workload, 'item'>,
  load: LoadSpec,
  seed: number,
  k: number,
  n: number,
  split: 'independent' | 'round-robin' = loadSplit(load),
): (i: number) => WorkItem {
  if (load.mode !== 'open' || n === 1) return (i) => workload.item(i);
  const measured = (j: number) => workload.item(shareItemIndex(load.warmup, k, n, j));
  if (split === 'round-robin') return (i) => (i < load.warmup ? workload.item(i) : measured(i - load.warmup));
  const offset = shareArrivals(load, seed, k, n);
  return (i) => {
    if (i < load.warmup) return workload.item(i);
    const j = i - load.warmup;
    return { ...measured(j), scheduledMs: offset(j) };
  };
}
