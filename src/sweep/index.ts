/**
 * Sweeps: a series of normal runs at rising concurrency or rate, the saturation point
 * (knee of latency against throughput) and the capacity at SLO (bisected). Every point is
 * a normal result directory; the sweep itself is sweep.json.
 *
 * @module
 */
export {
  bisectNext,
  type Capacity,
  capacityAtSlo,
  doublingConcurrencies,
  evenlySpacedRates,
  explosion,
  findKnee,
  type Knee,
  MIN_LATENCY_RISE,
  pointFromSummary,
  round3,
  type SweepMode,
  type SweepPointSummary,
  sloBracket,
} from './analysis.js';
export { renderSweep } from './render.js';
export {
  type PointRequest,
  type RunPoint,
  runSweep,
  type SweepIo,
  type SweepPlan,
  type SweepResult,
} from './run.js';
