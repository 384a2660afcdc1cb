/**
 * Sweeps: a series of normal runs at rising concurrency or rate, the saturation point
 * (knee of latency against throughput) and the capacity at SLO (bisected). Every point is
 * a normal result directory; the sweep itself is sweep.json.
 *
 * @module
 */

export type { Capacity, Knee, SweepMode, SweepPointSummary, SweepResult } from '../types.js';
export {
  bisectNext,
  capacityAtSlo,
  doublingConcurrencies,
  evenlySpacedRates,
  explosion,
  findKnee,
  MIN_LATENCY_RISE,
  pointFromSummary,
  round3,
  sloBracket,
} from './analysis.js';
export { renderSweep } from './render.js';
export {
  maxPoints,
  type PointRequest,
  type RunPoint,
  runSweep,
  type SweepIo,
  type SweepPlan,
} from './run.js';
