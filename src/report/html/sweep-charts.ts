/**
 * The sweep's charts: throughput and p99 latencies against load (TPOT on a scale of its own),
 * and the Pareto chart of capacity planning (per-user against total tokens/s) with its
 * frontier. Pure; the inline chart script draws the specs.
 *
 * @module
 */

import { labelWithUnit, metric } from '../../metrics/index.js';
import type { ChartMarker, ChartSeries, ChartSpec } from './charts.js';
import { compact, roundSig } from './compact.js';
import type { XY } from './lttb.js';
import type { SweepView } from './model.js';

/**
 * The sweep chart's series: catalogue metric, colour, axis. Throughput on the left; TTFT and
 * E2EL p99 (hundreds of ms to seconds) on the right; TPOT p99 (ms per token, tens of ms) on a
 * second right axis, since on E2EL's scale it would be a flat line at 0.
 */
export const SWEEP_CHART_SERIES: ReadonlyArray<{ id: string; color: string; axis: 0 | 1 | 2 }> = [
  { id: 'output_throughput', color: '#16a34a', axis: 0 },
  { id: 'ttft_p99', color: '#2563eb', axis: 1 },
  { id: 'tpot_p99', color: '#9333ea', axis: 2 },
  { id: 'e2el_p99', color: '#ea580c', axis: 1 },
];

/** Sweep: throughput and p99 latency against load, saturation and capacity at SLO marked. */
export function sweepChart(sweep: SweepView | undefined): ChartSpec[] {
  if (!sweep || sweep.points.length === 0) return [];
  const pts = sweep.points.slice().sort((a, b) => a.load - b.load);
  const col = (id: string): XY => {
    const out: XY = { x: [], y: [] };
    for (const p of pts) {
      const v = p.values[id];
      if (v === undefined || !Number.isFinite(v)) continue;
      out.x.push(p.load);
      out.y.push(v);
    }
    return out;
  };
  const series: ChartSeries[] = SWEEP_CHART_SERIES.map(({ id, color, axis }) => ({
    label: labelWithUnit(metric(id)),
    color,
    data: compact(col(id)),
    ...(axis !== 0 ? { axis } : {}),
  })).filter((s) => s.data.x.length > 0);
  const markers: ChartMarker[] = [];
  if (sweep.saturationLoad !== undefined) {
    markers.push({ x: sweep.saturationLoad, label: 'saturation', color: '#dc2626' });
  }
  if (sweep.capacityAtSloLoad !== undefined) {
    markers.push({ x: sweep.capacityAtSloLoad, label: 'capacity at SLO', color: '#16a34a' });
  }
  const onAxis2 = series.some((s) => s.axis === 2);
  return [
    {
      id: 'chart-sweep',
      title: 'Throughput and p99 latency against load',
      group: 'sweep',
      xLabel: sweep.loadLabel,
      yLabel: labelWithUnit(metric('output_throughput')),
      y2Label: onAxis2 ? 'TTFT, E2EL p99 (ms)' : 'p99 latency (ms)',
      ...(onAxis2 ? { y3Label: 'TPOT p99 (ms per token)' } : {}),
      series,
      markers,
    },
  ];
}

/**
 * The Pareto frontier of (x, y) points where more of both is better: the points no other point
 * beats or equals on both, in ascending x (so y descends). Of points equal on both, one is kept.
 *
 * @example
 * paretoFrontier({ x: [1, 2, 3, 2.5], y: [9, 8, 5, 4] }) // → { x: [1, 2, 3], y: [9, 8, 5] }
 */
export function paretoFrontier(points: XY): XY {
  const order = points.x
    .map((_, i) => i)
    .filter((i) => Number.isFinite(points.x[i]!) && Number.isFinite(points.y[i]!))
    // highest x first, and of equal x the highest y: a point is on the frontier when its y
    // beats every y seen so far (all of which have at least its x)
    .sort((a, b) => points.x[b]! - points.x[a]! || points.y[b]! - points.y[a]!);
  const out: XY = { x: [], y: [] };
  let best = Number.NEGATIVE_INFINITY;
  for (const i of order) {
    if (points.y[i]! <= best) continue;
    best = points.y[i]!;
    out.x.unshift(points.x[i]!);
    out.y.unshift(points.y[i]!);
  }
  return out;
}

/**
 * Sweep: the Pareto chart of capacity planning, per-user output tokens/s (p50) against total
 * output tokens/s: every load level as a point, the frontier (the loads no other load beats on
 * both) as a line in throughput order, and the SLO a user must see as a line.
 */
export function paretoChart(sweep: SweepView | undefined): ChartSpec[] {
  if (!sweep) return [];
  const pts = sweep.points.filter(
    (p) => p.values.output_throughput !== undefined && p.values.user_tps_p50 !== undefined,
  );
  if (pts.length === 0) return [];
  const measured: XY = {
    x: pts.map((p) => p.values.output_throughput!),
    y: pts.map((p) => p.values.user_tps_p50!),
  };
  const ordered = measured.x
    .map((x, i) => [x, measured.y[i]!] as const)
    .sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const series: ChartSeries[] = [
    {
      label: `${labelWithUnit(metric('user_tps_p50'))}, one point per load`,
      color: '#2563eb',
      data: compact({ x: ordered.map((p) => p[0]), y: ordered.map((p) => p[1]) }),
      style: 'points',
    },
    {
      label: 'Pareto frontier (no load beats it on both)',
      color: '#2563eb',
      data: compact(paretoFrontier(measured)),
      style: 'dashed',
    },
  ];
  const lo = Math.min(...measured.x);
  const hi = Math.max(...measured.x);
  // a margin, so that the points at either end are drawn whole
  const pad = (hi - lo) * 0.03 || Math.abs(hi) * 0.1 || 1;
  if (sweep.userTpsSlo) {
    series.push({
      label: sweep.userTpsSlo.label,
      color: '#dc2626',
      data: compact({
        x: lo === hi ? [lo * 0.9, hi * 1.1] : [lo, hi],
        y: [sweep.userTpsSlo.value, sweep.userTpsSlo.value],
      }),
    });
  }
  return [
    {
      id: 'chart-pareto',
      title: 'Per-user against total throughput (Pareto)',
      group: 'sweep',
      xLabel: `total ${labelWithUnit(metric('output_throughput')).toLowerCase()}`,
      yLabel: labelWithUnit(metric('user_tps_p50')),
      xRange: [roundSig(Math.max(0, lo - pad)), roundSig(hi + pad)],
      series,
      markers: [],
    },
  ];
}
