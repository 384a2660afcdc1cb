/**
 * The engine's gauges over simulated time, for a virtual run's server block (a live run
 * scrapes `/metrics` once a second instead): requests running and waiting, KV-cache usage and
 * fragmentation, each as a time-weighted mean with its min, max and last value. Each engine
 * step weighs by its duration; an idle gap weighs the state the engine was left in.
 *
 * @module
 */

import type { Engine } from './scheduler.js';

/** min, time-weighted mean, max and last of one gauge (the shape of a server series). */
export interface GaugeStats {
  min: number;
  mean: number;
  max: number;
  last: number;
}

export const GAUGE_NAMES = ['running', 'waiting', 'kvUsage', 'kvFragmentation'] as const;
export type GaugeName = (typeof GAUGE_NAMES)[number];

interface Acc {
  weighted: number;
  weight: number;
  min: number;
  max: number;
  last: number;
}

/** Records the engine's gauges at each step; `stats()` gives them over the time recorded. */
export class GaugeRecorder {
  private readonly acc = new Map<GaugeName, Acc>();
  private lastEndMs: number | undefined;

  constructor(private readonly engine: Engine) {}

  private read(): Record<GaugeName, number> {
    const e = this.engine;
    return {
      running: e.numRunning,
      waiting: e.numWaiting,
      kvUsage: e.kv.usage(),
      kvFragmentation: e.kv.fragmentation(),
    };
  }

  private add(values: Record<GaugeName, number>, weight: number): void {
    if (!(weight > 0)) return;
    for (const name of GAUGE_NAMES) {
      const v = values[name];
      if (!Number.isFinite(v)) continue;
      const a = this.acc.get(name) ?? { weighted: 0, weight: 0, min: v, max: v, last: v };
      a.weighted += v * weight;
      a.weight += weight;
      a.min = Math.min(a.min, v);
      a.max = Math.max(a.max, v);
      a.last = v;
      this.acc.set(name, a);
    }
  }

  /** A step planned at `nowMs` that runs `durationMs`: the idle gap before it, then the step's own state. */
  step(nowMs: number, durationMs: number): void {
    if (this.lastEndMs !== undefined && nowMs > this.lastEndMs) this.add(this.read(), nowMs - this.lastEndMs);
    this.add(this.read(), durationMs);
    this.lastEndMs = nowMs + durationMs;
  }

  /** The gauges recorded so far (none before the first step). */
  stats(): Partial<Record<GaugeName, GaugeStats>> {
    const out: Partial<Record<GaugeName, GaugeStats>> = {};
    for (const [name, a] of this.acc) {
      if (a.weight > 0) out[name] = { min: a.min, mean: a.weighted / a.weight, max: a.max, last: a.last };
    }
    return out;
  }
}
