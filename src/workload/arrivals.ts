/**
 * Open-loop arrival times: gamma-distributed inter-arrival gaps with mean 1/rate and shape
 * = burstiness (1 = Poisson arrivals; < 1 burstier; > 1 more regular), as vLLM's
 * benchmark_serving does. The first request is scheduled at offset 0.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { Rng } from './rng.js';

function checkArrivalParams(rate: number, burstiness: number): void {
  if (!(rate > 0)) {
    throw new GoodputError(
      'E_USAGE',
      `--rate must be > 0 requests/s, got ${rate}`,
      'pass e.g. --rate 10, or inf',
    );
  }
  if (!(burstiness > 0) || !Number.isFinite(burstiness)) {
    throw new GoodputError(
      'E_USAGE',
      `--burstiness must be a finite number > 0, got ${burstiness}`,
      'use 1 for Poisson arrivals, < 1 for burstier, > 1 for more regular traffic',
    );
  }
}

/** One inter-arrival gap in ms (rate in requests/s). */
function nextGapMs(rate: number, burstiness: number, rng: Rng): number {
  const meanMs = 1000 / rate;
  return rng.gamma(burstiness, meanMs / burstiness);
}

/**
 * Scheduled send offsets in ms from the start of the load, endless: 0, then cumulative
 * gamma gaps. `rate` Infinity schedules every request at 0.
 *
 * @example
 * const gen = arrivalOffsets(10, 1, createRng(7).fork('arrivals'));
 * gen.next().value; // 0
 * gen.next().value; // ≈ 100 on average
 */
export function* arrivalOffsets(rate: number, burstiness: number, rng: Rng): Generator<number, never> {
  checkArrivalParams(rate, burstiness);
  let offset = 0;
  for (;;) {
    yield offset;
    if (Number.isFinite(rate)) offset += nextGapMs(rate, burstiness, rng);
  }
}

const CHECKPOINT_EVERY = 1024;

/**
 * Random access to the same offsets as `arrivalOffsets`: `offsetAt(k)` is the k-th offset
 * whatever order it is asked in. Sequential access costs one gap per call; a jump back
 * replays at most CHECKPOINT_EVERY gaps from a saved rng state (memory: one checkpoint per
 * 1024 arrivals).
 */
export class ArrivalSchedule {
  private readonly rate: number;
  private readonly burstiness: number;
  private readonly checkpoints: { offset: number; rng: Rng }[] = [];
  private cursorIndex = 0;
  private cursorOffset = 0;
  private cursorRng: Rng;

  constructor(rate: number, burstiness: number, rng: Rng) {
    checkArrivalParams(rate, burstiness);
    this.rate = rate;
    this.burstiness = burstiness;
    this.cursorRng = rng.clone();
    this.checkpoints.push({ offset: 0, rng: rng.clone() });
  }

  /** Scheduled offset in ms of the k-th arrival (k ≥ 0). */
  offsetAt(k: number): number {
    if (!Number.isFinite(this.rate)) return 0;
    if (k < this.cursorIndex) {
      const slot = Math.floor(k / CHECKPOINT_EVERY);
      const checkpoint = this.checkpoints[slot]!;
      const rng = checkpoint.rng.clone();
      let offset = checkpoint.offset;
      for (let i = slot * CHECKPOINT_EVERY; i < k; i++) offset += nextGapMs(this.rate, this.burstiness, rng);
      return offset;
    }
    while (this.cursorIndex < k) {
      this.cursorOffset += nextGapMs(this.rate, this.burstiness, this.cursorRng);
      this.cursorIndex++;
      if (this.cursorIndex % CHECKPOINT_EVERY === 0) {
        this.checkpoints.push({ offset: this.cursorOffset, rng: this.cursorRng.clone() });
      }
    }
    return this.cursorOffset;
  }
}

/**
 * The warmup of an open loop at a steady rate, on the arrival process of its measured load:
 * `count` arrivals from a draw of their own (so the measured schedule is the same, seed for
 * seed, with or without a warmup), the last of them one gap before the measured load starts.
 * The measured phase then begins in the steady state of the load it measures (the server's
 * queue, the client's code and connections), not after a pause. `offsetAt(k)` is the k-th
 * warmup arrival in ms from the measured start: negative.
 */
export class WarmupArrivals {
  private readonly schedule: ArrivalSchedule;
  private readonly endMs: number;

  constructor(rate: number, burstiness: number, rng: Rng, count: number) {
    // The end from a schedule of its own (each clones `rng`): drawn on the one the warmup
    // reads, it would leave that one's cursor past every warmup arrival, and each read would
    // replay up to CHECKPOINT_EVERY gaps (25 µs a send at 2,000 req/s).
    this.endMs = new ArrivalSchedule(rate, burstiness, rng).offsetAt(count);
    this.schedule = new ArrivalSchedule(rate, burstiness, rng);
  }

  /** Scheduled offset in ms of the k-th warmup arrival (0 ≤ k < count), before the measured start (< 0). */
  offsetAt(k: number): number {
    return this.schedule.offsetAt(k) - this.endMs;
  }
}

/**
 * A load's warmup arrivals (`rng`: the workload's root; its 'warmup-arrivals' fork): only for
 * an open loop at a steady, finite rate with a warmup. Stages of rate ramp from their own
 * start and a trace keeps its own times: their warmups are not scheduled.
 */
export function warmupArrivalsOf(
  load: { rate?: number | undefined; stages?: unknown; burstiness?: number | undefined; warmup: number },
  root: Rng,
): WarmupArrivals | undefined {
  if (load.stages !== undefined || load.rate === undefined || !Number.isFinite(load.rate) || load.warmup <= 0)
    return undefined;
  return new WarmupArrivals(load.rate, load.burstiness ?? 1, root.fork('warmup-arrivals'), load.warmup);
}
