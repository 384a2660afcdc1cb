/**
 * Virtual time: a simulated clock and the engine stepping on it, so that a what-if run of
 * thousands of requests finishes in seconds.
 *
 * - `VirtualClock` is a `LoadClock` whose time moves only when everything waiting on it is
 *   waiting: it fires its timers one at a time in order of time, letting the promise
 *   continuations they wake run in between. The load loop (`runLoad` in runner/) runs on it
 *   unchanged, so warmup, closed and open loop, caps, stop rules and cancellation are the
 *   live ones by construction; this module has no load loop of its own.
 * - `VirtualEngine` steps an `Engine` on a VirtualClock as `LiveDriver` does on the wall
 *   clock: arrivals at the same instant share a step, a client that goes away mid-step is
 *   noticed at the step's end (as vLLM notices a disconnect between steps).
 * - `simulateVirtual` feeds a list of timed requests (open loop by arrival time, or a fixed
 *   number in flight) to a VirtualEngine: the engine's own what-if tests and bench use it.
 *
 * @module
 */

import type { LoadClock, Ms } from '../types.js';
import { type EngineOptions, resolveEngineConfig } from './engine-config.js';
import { type GaugeName, GaugeRecorder, type GaugeStats } from './gauges.js';
import { resolveProfile, type SimProfile } from './profiles.js';
import type { EngineCounters, EngineRequest, EngineRequestInput, RequestSink } from './request.js';
import { blockHashes } from './rng.js';
import { Engine, EngineRejection, type StepPlan } from './scheduler.js';

interface Timer {
  at: number;
  /** Lower fires first among timers at the same time (engine steps before client timers). */
  prio: number;
  seq: number;
  fn: () => void;
}

const before = (a: Timer, b: Timer): boolean =>
  a.at < b.at || (a.at === b.at && (a.prio < b.prio || (a.prio === b.prio && a.seq < b.seq)));

/**
 * Order of timers due at the same instant: the end of an engine step first (its tokens are
 * out), then client timers (sends, cancels, the deadline), then the planning of the next step,
 * so that every arrival of an instant shares that step.
 */
const STEP_END = 0;
const CLIENT = 1;
const STEP_PLAN = 2;

/** A LoadClock on simulated time: see the module comment. Starts at 0. */
export class VirtualClock implements LoadClock {
  readonly realTime = false;
  private t = 0;
  private seq = 0;
  private readonly heap: Timer[] = [];
  private readonly cancelled = new Set<Timer>();
  private outsideWaits = 0;
  private outsideSettled: (() => void) | undefined;

  now(): Ms {
    return this.t;
  }

  /** Calls fn at `atMs` (or now, if that has passed); returns a function that cancels it. */
  at(atMs: Ms, fn: () => void, prio = CLIENT): () => void {
    const timer: Timer = { at: Math.max(atMs, this.t), prio, seq: this.seq++, fn };
    this.push(timer);
    return () => {
      this.cancelled.add(timer);
    };
  }

  sleepUntil(targetMs: Ms, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (targetMs <= this.t) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        cancel();
        resolve(false);
      };
      const cancel = this.at(targetMs, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Something outside the clock (a disk write) is awaited: time does not move until it settles. */
  async outside<T>(p: Promise<T>): Promise<T> {
    this.outsideWaits++;
    try {
      return await p;
    } finally {
      this.outsideWaits--;
      if (this.outsideWaits === 0) this.outsideSettled?.();
    }
  }

  /** Fires every timer in order, synchronously, until none is left. */
  runAll(): void {
    for (let next = this.pop(); next; next = this.pop()) this.fire(next);
  }

  /**
   * Fires timers one at a time, letting the continuations each wakes run before the next,
   * until `work` settles; resolves (or rejects) as `work` does. Rejects when nothing is left
   * to wait for while `work` is still pending (it could never finish).
   */
  run<T>(work: Promise<T>): Promise<T> {
    return this.runUntil(work);
  }

  /** As `run`. */
  async runUntil<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const settled = work.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    for (;;) {
      // A macrotask turn: every microtask woken by the last timer has run.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (done) break;
      if (this.outsideWaits > 0) {
        await new Promise<void>((resolve) => {
          this.outsideSettled = resolve;
        });
        this.outsideSettled = undefined;
        continue;
      }
      const next = this.pop();
      if (!next) {
        await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 50))]);
        if (done) break;
        throw new Error('virtual clock: nothing left to wait for, but the work has not finished');
      }
      this.fire(next);
    }
    return work;
  }

  private fire(timer: Timer): void {
    if (timer.at > this.t) this.t = timer.at;
    timer.fn();
  }

  private push(timer: Timer): void {
    const h = this.heap;
    h.push(timer);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private pop(): Timer | undefined {
    const h = this.heap;
    for (;;) {
      const top = h[0];
      if (!top) return undefined;
      const last = h.pop()!;
      if (h.length > 0) {
        h[0] = last;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < h.length && before(h[l]!, h[m]!)) m = l;
          if (r < h.length && before(h[r]!, h[m]!)) m = r;
          if (m === i) break;
          [h[i], h[m]] = [h[m]!, h[i]!];
          i = m;
        }
      }
      if (this.cancelled.delete(top)) continue;
      return top;
    }
  }
}

/** Steps an Engine on a VirtualClock; see the module comment. */
export class VirtualEngine {
  readonly engine: Engine;
  readonly clock: VirtualClock;
  readonly blockSize: number;
  readonly numGpuBlocks: number;
  /** Running, waiting, KV usage and fragmentation over simulated time (a virtual run's server series). */
  readonly gauges: GaugeRecorder;
  /** A step is planned or running: new arrivals wait for its end. */
  private busy = false;
  private readonly gone: string[] = [];

  constructor(
    clock: VirtualClock,
    opts: { profile?: string | SimProfile; engine?: EngineOptions; slowdown?: number; seed?: number } = {},
  ) {
    const profile = typeof opts.profile === 'object' ? opts.profile : resolveProfile(opts.profile);
    const config = resolveEngineConfig(profile, opts.engine);
    this.engine = new Engine(profile, config, opts.seed);
    this.engine.slowdown = opts.slowdown ?? 1;
    this.clock = clock;
    this.blockSize = config.blockSize;
    this.numGpuBlocks = config.numGpuBlocks;
    this.gauges = new GaugeRecorder(this.engine);
  }

  get counters(): EngineCounters {
    return this.engine.counters;
  }

  /** Adds a request now; throws EngineRejection when the engine refuses it (too long). */
  add(input: EngineRequestInput): EngineRequest {
    const req = this.engine.add(input, this.clock.now());
    this.wake();
    return req;
  }

  /** The client went away: the engine notices at the end of the running step (at once when idle). */
  clientGone(id: string): void {
    this.gone.push(id);
    this.wake();
  }

  /** Plans a step at this instant, after every arrival of the instant is in (idle only). */
  private wake(): void {
    if (this.busy) return;
    this.busy = true;
    this.clock.at(this.clock.now(), () => this.step(), STEP_PLAN);
  }

  private step(): void {
    const now = this.clock.now();
    for (const id of this.gone.splice(0)) this.engine.clientGone(id, now);
    const plan: StepPlan | null = this.engine.plan(now);
    if (!plan) {
      this.busy = false;
      return;
    }
    this.gauges.step(now, plan.durationMs);
    this.clock.at(
      now + plan.durationMs,
      () => {
        this.engine.commit(plan, this.clock.now());
        // The next step is planned after the continuations of this one (closed-loop sends) ran.
        this.clock.at(this.clock.now(), () => this.step(), STEP_PLAN);
      },
      STEP_END,
    );
  }
}

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
  /** Seed of the engine's draws (speculative decoding's acceptance; default 0). */
  seed?: number;
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
  /** Running, waiting, KV usage and fragmentation over simulated time. */
  gauges: Partial<Record<GaugeName, GaugeStats>>;
  /** Simulated time from t0 to the last event, ms. */
  durationMs: number;
  numGpuBlocks: number;
}

/** Prefix-cache hashes for a synthetic prompt: shared blocks keyed by prefixId, the rest unique to the request. */
export function syntheticBlockHashes(
  r: Pick<VirtualRequest, 'sharedPrefixTokens' | 'prefixId' | 'promptTokens'>,
  index: number,
  blockSize: number,
): number[] {
  const shared = Math.floor((r.sharedPrefixTokens ?? 0) / blockSize);
  const total = Math.floor(r.promptTokens / blockSize);
  const ids = new Uint32Array(total * blockSize);
  for (let i = 0; i < ids.length; i++)
    ids[i] = i < shared * blockSize ? (r.prefixId ?? 0) * 7919 + i : 1e9 + index;
  return blockHashes(ids, blockSize, 0);
}

/**
 * Runs timed requests through a fresh VirtualEngine: each arrives at its arrivalMs, or, with
 * `concurrency`, when one of that many slots frees. Deterministic for the same inputs.
 * Synchronous: nothing here waits on a promise.
 */
export function simulateVirtual(
  requests: readonly VirtualRequest[],
  opts: VirtualOptions = {},
): VirtualResult {
  const clock = new VirtualClock();
  const ve = new VirtualEngine(clock, opts);
  const order = requests
    .map((_, i) => i)
    .sort((a, b) => (requests[a]!.arrivalMs ?? 0) - (requests[b]!.arrivalMs ?? 0) || a - b);
  const timings: VirtualTiming[] = new Array(requests.length);
  const indexOf = new Map<string, number>();
  let next = 0;
  let inFlight = 0;
  const sink: RequestSink = {
    onToken(req, tMs, count) {
      const tm = timings[indexOf.get(req.id)!]!;
      tm.outputTokens = req.generated;
      for (let i = 0; i < count; i++) tm.tokenTimesMs?.push(tMs);
    },
    onFinish(req, tMs) {
      Object.assign(timings[indexOf.get(req.id)!]!, {
        endMs: tMs,
        finishReason: req.finishedAs,
        firstScheduledMs: req.firstScheduledMs,
        firstTokenMs: req.firstTokenMs,
        preemptions: req.preemptions,
        cachedPromptTokens: req.cachedPromptTokens,
      });
      inFlight--;
      if (opts.concurrency !== undefined) release();
    },
  };
  const arrive = (i: number): void => {
    const r = requests[i]!;
    const id = r.id ?? `v-${i}`;
    const now = clock.now();
    indexOf.set(id, i);
    const tm: VirtualTiming = {
      id,
      index: i,
      arrivalMs: now,
      endMs: now,
      outputTokens: 0,
      finishReason: 'rejected',
      preemptions: 0,
      cachedPromptTokens: 0,
    };
    if (opts.recordTokenTimes) tm.tokenTimesMs = [];
    timings[i] = tm;
    try {
      ve.add({
        id,
        promptTokens: r.promptTokens,
        outputTokens: r.outputTokens,
        finishReason: r.finishReason ?? 'length',
        promptBlockHashes: r.promptBlockHashes ?? syntheticBlockHashes(r, i, ve.blockSize),
        sink,
      });
      inFlight++;
      if (r.cancelAfterMs !== undefined) clock.at(now + r.cancelAfterMs, () => ve.clientGone(id));
    } catch (e) {
      if (!(e instanceof EngineRejection)) throw e;
      tm.error = e.message;
      if (opts.concurrency !== undefined) release();
    }
  };
  // Closed loop: fill the free slots, each request no earlier than its own arrivalMs.
  const release = (): void => {
    while (next < order.length && inFlight < opts.concurrency!) {
      const i = order[next++]!;
      const at = requests[i]!.arrivalMs ?? 0;
      if (at <= clock.now()) {
        arrive(i);
        continue;
      }
      inFlight++;
      clock.at(at, () => {
        inFlight--;
        arrive(i);
      });
    }
  };
  if (opts.concurrency === undefined)
    for (const i of order) clock.at(requests[i]!.arrivalMs ?? 0, () => arrive(i));
  else release();
  clock.runAll();
  return {
    timings,
    counters: ve.counters,
    durationMs: clock.now(),
    numGpuBlocks: ve.numGpuBlocks,
    gauges: ve.gauges.stats(),
  };
}
