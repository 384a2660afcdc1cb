/**
 * The report's view of a sweep (sweep.json, validated by results/ before it gets here): each
 * point's figures by catalogue metric id, taken from the point's run summary when the report
 * could read it (so every catalogue metric is available), else from the figures sweep.json
 * kept of it. Pure.
 *
 * @module
 */

import { caveatedPointPhrase, metric } from '../../metrics/index.js';
import {
  type RunSummary,
  SWEEP_POINT_FIGURES,
  type SweepPointSummary,
  type SweepResult,
} from '../../types.js';
import type { SweepPoint, SweepView } from './model.js';

const fmtLoad = (v: number) => String(Math.round(v * 1000) / 1000);

/** A point's figure by catalogue id: from its summary, else from what sweep.json kept. */
function figure(id: string, point: SweepPointSummary, summary: RunSummary | undefined): number | undefined {
  if (summary) return metric(id).read(summary);
  const field = SWEEP_POINT_FIGURES.find(([, fid]) => fid === id)?.[0];
  const v = field === undefined ? undefined : point[field];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * The sweep view: points of the sweep's own mode (steps and bisection; a rate sweep's
 * closed-loop anchors are not on its axis) in load order, with the `ids` figures of each.
 * `summaryOf(point)` is the run summary read from the point's directory, when there is one.
 */
export function sweepView(
  sweep: SweepResult,
  summaryOf: (point: SweepPointSummary) => RunSummary | undefined = () => undefined,
  ids: readonly string[] = SWEEP_POINT_FIGURES.map(([, id]) => id),
): SweepView {
  const points: SweepPoint[] = sweep.points
    .filter((p) => p.mode === sweep.mode)
    .map((p) => {
      const summary = summaryOf(p);
      const values: Record<string, number> = {};
      for (const id of ids) {
        const v = figure(id, p, summary);
        if (v !== undefined && Number.isFinite(v)) values[id] = v;
      }
      return { load: p.load, values };
    })
    .sort((a, b) => a.load - b.load);
  const notes: string[] = [];
  if (sweep.stoppedEarly !== undefined) notes.push(`stopped early: ${sweep.stoppedEarly}`);
  if (sweep.interrupted) notes.push('the sweep was interrupted');
  if (sweep.capacity?.firstFailingLoad !== undefined)
    notes.push(`first load missing the SLO: ${fmtLoad(sweep.capacity.firstFailingLoad)}`);
  const view: SweepView = {
    loadLabel:
      sweep.unit === 'sessions'
        ? sweep.mode === 'rate'
          ? 'new sessions per second'
          : 'sessions at once'
        : sweep.mode === 'rate'
          ? 'rate (req/s)'
          : 'concurrency',
    points,
    notes,
  };
  if (sweep.slo.userTps !== undefined)
    view.userTpsSlo = { value: sweep.slo.userTps, label: `SLO: user_tps ≥ ${sweep.slo.userTps}` };
  else if (sweep.slo.tpotMs !== undefined && sweep.slo.tpotMs > 0)
    view.userTpsSlo = {
      value: 1000 / sweep.slo.tpotMs,
      label: `SLO: TPOT ≤ ${sweep.slo.tpotMs} ms (1000 / TPOT)`,
    };
  if (sweep.knee) view.saturationLoad = sweep.knee.load;
  if (sweep.capacity) view.capacityAtSloLoad = sweep.capacity.load;
  const caveats = sweepCaveats(sweep);
  if (caveats.length > 0) view.caveats = caveats;
  return view;
}

/** Where the knee and capacity come from caveated points, then each point's caveats in load order. */
function sweepCaveats(sweep: SweepResult): string[] {
  const out: string[] = [];
  if (sweep.knee?.caveats?.length)
    out.push(`the saturation point comes from ${caveatedPointPhrase(sweep.knee.caveats)}`);
  if (sweep.capacity?.caveats?.length)
    out.push(`capacity at SLO comes from ${caveatedPointPhrase(sweep.capacity.caveats)}`);
  const points = [...(sweep.anchors ?? []), ...sweep.points].sort((a, b) => a.load - b.load);
  for (const p of points) {
    for (const c of p.caveats ?? []) out.push(`${p.mode} ${fmtLoad(p.load)}: ${c.id}: ${c.text}`);
  }
  return out;
}
