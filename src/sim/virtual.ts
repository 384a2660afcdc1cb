/**
 * Virtual time: run a list of timed requests through the engine with a simulated clock, for
 * what-if runs that finish in seconds. Open loop by arrival time, or closed loop with a
 * fixed concurrency (a request is sent when a slot frees). Returns per-request timings.
 *
 * @module
 */

import { type EngineOptions, resolveEngineConfig } from './engine-config.js';
import { resolveProfile, type SimProfile } from './profiles.js';
import type { EngineCounters, EngineRequest, RequestSink } from './request.js';
import { blockHashes } from './rng.js';
import { Engine, EngineRejection } from './scheduler.js';

/** One request of a virtual run. */
export interface VirtualRequest {
  id?: string;
  /** Open loop: arrival time, ms from t0. Closed loop: the earliest send time (default 0). */
  arrivalMs?: number;
  promptTokens: number;
  outputTokens: number;
  finishReason?: 'stop' | 'length';
  /** The first `sharedPrefixTokens` of the prompt are identical across requests of the same prefixId. */
  sharedPrefixTokens?: number;
  prefixId?: number;
  /** Explicit prefix-cache hashes (overrides sharedPrefixTokens). */
  promptBlockHashes?: number[];
  /** The client disconnects this long after sending (aborted, or kept running per abortOnDisconnect). */
  cancelAfterMs?: number;
}

export interface VirtualOptions {
  profile?: string | SimProfile;
  engine?: EngineOptions;
  /** Closed loop with this many requests in flight; absent = open loop by arrivalMs. */
  concurrency?: number;
  slowdown?: number;
  /** Keep every token's time (memory grows with output tokens). */
  recordTokenTimes?: boolean;
}

export interface VirtualTiming {
  id: string;
  index: number;
  arrivalMs: number;
  firstScheduledMs?: number;
  firstTokenMs?: number;
  endMs: number;
  outputTokens: number;
  finishReason: 'stop' | 'length' | 'abort' | 'rejected';
  preemptions: number;
  cachedPromptTokens: number;
  tokenTimesMs?: number[];
  error?: string;
}

export interface VirtualResult {
  timings: VirtualTiming[];
  counters: EngineCounters;
  /** Simulated time from t0 to the last event, ms. */
  durationMs: number;
  numGpuBlocks: number;
}

/** Prefix-cache hashes for a synthetic prompt: shared blocks keyed by prefixId, the rest unique to the request. */
export function syntheticBlockHashes(r: VirtualRequest, index: number, blockSize: number): number[] {
  const shared = Math.floor((r.sharedPrefixTokens ?? 0) / blockSize);
  const total = Math.floor(r.promptTokens / blockSize);
  const ids = new Uint32Array(total * blockSize);
  for (let i = 0; i < ids.length; i++)
    ids[i] = i < shared * blockSize ? (r.prefixId ?? 0) * 7919 + i : 1e9 + index;
  return blockHashes(ids, blockSize, 0);
}

/** Run requests through a fresh engine in virtual time. Deterministic for the same inputs. */
export function simulateVirtual(
  requests: readonly VirtualRequest[],
  opts: VirtualOptions = {},
): VirtualResult {
  const profile = typeof opts.profile === 'object' ? opts.profile : resolveProfile(opts.profile);
  const config = resolveEngineConfig(profile, opts.engine);
  const engine = new Engine(profile, config);
  engine.slowdown = opts.slowdown ?? 1;
  const order = requests
    .map((_, i) => i)
    .sort((a, b) => (requests[a]!.arrivalMs ?? 0) - (requests[b]!.arrivalMs ?? 0) || a - b);
  const timings: VirtualTiming[] = new Array(requests.length);
  const cancels: { at: number; id: string }[] = [];
  let inFlight = 0;
  let t = 0;
  let next = 0;
  const limit = opts.concurrency ?? Number.POSITIVE_INFINITY;
  const sink: RequestSink = {
    onToken(req: EngineRequest, tMs: number) {
      const tm = timings[indexOf(req)]!;
      tm.outputTokens = req.generated;
      tm.tokenTimesMs?.push(tMs);
    },
    onFinish(req: EngineRequest, tMs: number) {
      const tm = timings[indexOf(req)]!;
      Object.assign(tm, {
        endMs: tMs,
        finishReason: req.finishedAs,
        firstScheduledMs: req.firstScheduledMs,
        firstTokenMs: req.firstTokenMs,
        preemptions: req.preemptions,
        cachedPromptTokens: req.cachedPromptTokens,
      });
      inFlight--;
    },
  };
  const idIndex = new Map<string, number>();
  const indexOf = (req: EngineRequest): number => idIndex.get(req.id)!;

  const release = (): void => {
    while (next < order.length && inFlight < limit) {
      const i = order[next]!;
      const r = requests[i]!;
      if ((r.arrivalMs ?? 0) > t) break;
      next++;
      const id = r.id ?? `v-${i}`;
      // Open loop: it arrived at its own time (perhaps during the last step). Closed loop: when its slot freed.
      const arrival = opts.concurrency === undefined ? (r.arrivalMs ?? 0) : t;
      idIndex.set(id, i);
      const tm: VirtualTiming = {
        id,
        index: i,
        arrivalMs: arrival,
        endMs: arrival,
        outputTokens: 0,
        finishReason: 'rejected',
        preemptions: 0,
        cachedPromptTokens: 0,
      };
      if (opts.recordTokenTimes) tm.tokenTimesMs = [];
      timings[i] = tm;
      try {
        engine.add(
          {
            id,
            promptTokens: r.promptTokens,
            outputTokens: r.outputTokens,
            finishReason: r.finishReason ?? 'length',
            promptBlockHashes: r.promptBlockHashes ?? syntheticBlockHashes(r, i, config.blockSize),
            sink,
          },
          arrival,
        );
        inFlight++;
        if (r.cancelAfterMs !== undefined) insertSorted(cancels, { at: arrival + r.cancelAfterMs, id });
      } catch (e) {
        if (!(e instanceof EngineRejection)) throw e;
        tm.error = e.message;
      }
    }
  };

  for (;;) {
    release();
    while (cancels.length > 0 && cancels[0]!.at <= t) engine.clientGone(cancels.shift()!.id, t);
    const plan = engine.plan(t);
    if (plan) {
      t += plan.durationMs;
      engine.commit(plan, t);
      continue;
    }
    const nextArrival =
      next < order.length && inFlight < limit ? (requests[order[next]!]!.arrivalMs ?? 0) : Infinity;
    const nextCancel = cancels.length > 0 ? cancels[0]!.at : Infinity;
    const wakeAt = Math.min(nextArrival, nextCancel);
    if (wakeAt === Infinity) break;
    t = Math.max(t, wakeAt);
  }
  return { timings, counters: engine.counters, durationMs: t, numGpuBlocks: config.numGpuBlocks };
}

function insertSorted(list: { at: number; id: string }[], item: { at: number; id: string }): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.at <= item.at) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, item);
}
