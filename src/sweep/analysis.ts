/**
 * The pure half of a sweep: which loads to run, when to stop, where the knee is, and the
 * capacity at SLO.
 *
 * Saturation point (knee), by the Kneedle method (Satopää et al., 2011) on the curve of
 * mean E2EL (y) against achieved request throughput (x), points in load order: both axes are
 * normalised to [0, 1] over the points, and the knee is the point furthest below the chord
 * from the first to the last point, i.e. the one maximising x̂ − ŷ. Before the knee, more
 * load buys throughput at little latency; after it, latency grows while throughput stalls.
 * No knee is reported with fewer than 3 points, when the curve bends by less than 0.1, when
 * mean E2EL rose by less than 25% over the sweep (noise, not saturation), or when the knee
 * would be the highest load (saturation not reached yet).
 *
 * Capacity at SLO: the highest load whose SLO attainment is ≥ the target, below the first
 * load that misses it (the search assumes attainment falls as load rises); the gap between
 * the last passing and the first failing load is then bisected.
 *
 * A point keeps its run's caveats (metrics/caveats.ts); the knee carries the ids of its point's,
 * the capacity those of the last passing and the first failing point, so that a figure read from
 * a point the client limited says so.
 *
 * @module
 */

import { caveatedPointPhrase, metric, runCaveats } from '../metrics/index.js';
import {
  type Capacity,
  type Knee,
  type RunSummary,
  SWEEP_POINT_FIGURES,
  type SweepMode,
  type SweepPointSummary,
} from '../types.js';

/** Latency must rise by at least this factor over the sweep for a knee to mean anything. */
export const MIN_LATENCY_RISE = 1.25;

/** Point figures from a run summary. */
export function pointFromSummary(
  summary: RunSummary,
  dir: string,
  phase: SweepPointSummary['phase'],
  mode: SweepMode,
  load: number,
  minAttainment: number,
): SweepPointSummary {
  // Every figure read through the catalogue, so a sweep judges exactly what gate and compare show;
  // a figure the run did not measure (no successful request) is 0 in the point.
  // A figure the sweep file may lack (newer ones) stays absent; the others are 0 when unmeasured.
  const optional = new Set<string>(['p99TpotMs', 'p50UserTps', 'sessionThroughput']);
  const figures = Object.fromEntries(
    SWEEP_POINT_FIGURES.flatMap(([field, id]) => {
      const v = metric(id).read(summary);
      return v === undefined && optional.has(field) ? [] : [[field, v ?? 0]];
    }),
  ) as Pick<SweepPointSummary, (typeof SWEEP_POINT_FIGURES)[number][0]>;
  const attainment = metric('attainment').read(summary);
  const caveats = runCaveats(summary);
  return {
    phase,
    mode,
    load,
    dir,
    runId: summary.meta.runId,
    completed: summary.counts.completed,
    failed: summary.counts.failed,
    ...figures,
    passes: attainment !== undefined && attainment >= minAttainment,
    ...(caveats.length > 0 ? { caveats } : {}),
  };
}

/** The caveat ids of the points a derived figure was read from, each once; undefined when none. */
export function caveatIdsOf(...points: Array<SweepPointSummary | undefined>): string[] | undefined {
  const ids = [...new Set(points.flatMap((p) => p?.caveats?.map((c) => c.id) ?? []))];
  return ids.length > 0 ? ids : undefined;
}

/** 1, 2, 4, … up to max (max itself included when it is not a power of two). */
export function doublingConcurrencies(max: number, start = 1): number[] {
  const out: number[] = [];
  for (let c = Math.max(1, start); c < max; c *= 2) out.push(c);
  out.push(max);
  return out;
}

/** `steps` rates evenly spaced above `low` up to `high` (guidellm's sweep between its anchors). */
export function evenlySpacedRates(low: number, high: number, steps: number): number[] {
  if (!(high > low) || steps < 1) return [round3(Math.max(low, high))];
  return Array.from({ length: steps }, (_, k) => round3(low + ((high - low) * (k + 1)) / steps));
}

/** Three significant digits: rates in sweep.json and directory names stay readable. */
export function round3(x: number): number {
  if (x === 0) return 0;
  const p = 10 ** (2 - Math.floor(Math.log10(Math.abs(x))));
  return Math.round(x * p) / p;
}

/** A load as said in progress lines and the capacity: "concurrency 4", "rate 2 req/s", "4 sessions at once", "0.5 sessions/s". */
export function loadText(mode: SweepMode, load: number, sessions: boolean): string {
  if (sessions) return mode === 'concurrency' ? `${load} sessions at once` : `${load} sessions/s`;
  return mode === 'concurrency' ? `concurrency ${load}` : `rate ${load} req/s`;
}

/** Why the sweep should not go higher, or undefined (`sessions`: the loads are sessions). */
export function explosion(
  point: SweepPointSummary,
  first: SweepPointSummary | undefined,
  limits: { maxErrorRate: number; latencyFactor: number },
  sessions = false,
): string | undefined {
  // A point with caveats says so: "… at concurrency 32 (a point the client limited)".
  const at = (p: SweepPointSummary) => {
    const ids = caveatIdsOf(p);
    return loadText(p.mode, p.load, sessions) + (ids ? ` (${caveatedPointPhrase(ids)})` : '');
  };
  if (point.errorRate > limits.maxErrorRate) {
    return `errors exploded: ${(point.errorRate * 100).toFixed(0)}% failed at ${at(point)}`;
  }
  if (first && first.meanE2elMs > 0 && point.meanE2elMs > limits.latencyFactor * first.meanE2elMs) {
    return (
      `latency exploded: mean E2EL ${Math.round(point.meanE2elMs)} ms at ${at(point)}, ` +
      `more than ${limits.latencyFactor}× the ${Math.round(first.meanE2elMs)} ms at ${at(first)}`
    );
  }
  return undefined;
}

/** The knee of mean E2EL against throughput (see module doc). */
export function findKnee(points: readonly SweepPointSummary[]): Knee | undefined {
  const pts = [...points].sort((a, b) => a.load - b.load);
  if (pts.length < 3) return undefined;
  const xs = pts.map((p) => p.requestThroughput);
  const ys = pts.map((p) => p.meanE2elMs);
  const norm = (v: number, lo: number, hi: number) => (hi > lo ? (v - lo) / (hi - lo) : 0);
  const [xlo, xhi, ylo, yhi] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  let best = -1;
  let bestGap = Number.NEGATIVE_INFINITY;
  pts.forEach((_, i) => {
    const gap = norm(xs[i]!, xlo, xhi) - norm(ys[i]!, ylo, yhi);
    if (gap > bestGap) {
      bestGap = gap;
      best = i;
    }
  });
  // No bend, latency that barely moved, or a "knee" at the highest load: saturation not reached.
  if (best < 0 || bestGap < 0.1 || best === pts.length - 1 || !(yhi >= MIN_LATENCY_RISE * ylo))
    return undefined;
  const p = pts[best]!;
  const caveats = caveatIdsOf(p);
  return {
    load: p.load,
    mode: p.mode,
    requestThroughput: p.requestThroughput,
    meanE2elMs: p.meanE2elMs,
    method: 'kneedle: max of normalised throughput minus normalised mean E2EL',
    ...(caveats ? { caveats } : {}),
  };
}

/** The last passing and first failing points, in load order (see module doc). */
export function sloBracket(points: readonly SweepPointSummary[]): {
  pass?: SweepPointSummary;
  fail?: SweepPointSummary;
} {
  const pts = [...points].sort((a, b) => a.load - b.load);
  const f = pts.findIndex((p) => !p.passes);
  if (f === -1) return { pass: pts.at(-1) };
  return { pass: f > 0 ? pts[f - 1] : undefined, fail: pts[f] };
}

/** The next load to try between a passing and a failing one, or undefined when resolved. */
export function bisectNext(
  mode: SweepMode,
  pass: number,
  fail: number,
  rateResolution = 0.05,
): number | undefined {
  if (mode === 'concurrency') {
    if (fail - pass <= 1) return undefined;
    return Math.floor((pass + fail) / 2);
  }
  if (fail - pass <= rateResolution * fail) return undefined;
  const mid = round3((pass + fail) / 2);
  return mid > pass && mid < fail ? mid : undefined;
}

/** Capacity from all points run so far (steps and bisection). */
export function capacityAtSlo(points: readonly SweepPointSummary[], mode: SweepMode): Capacity | undefined {
  const { pass, fail } = sloBracket(points.filter((p) => p.mode === mode));
  if (!pass) return undefined;
  const cap: Capacity = {
    mode,
    load: pass.load,
    attainment: pass.attainment,
    resolved: fail !== undefined && bisectNext(mode, pass.load, fail.load) === undefined,
  };
  if (fail) cap.firstFailingLoad = fail.load;
  const caveats = caveatIdsOf(pass, fail);
  if (caveats) cap.caveats = caveats;
  return cap;
}
