/**
 * An experiment folder in the HTML report, from the experiment's analysis (read only): one bar
 * per configuration for each key metric of the matrix, the across-run mean with its 95 % t
 * interval as whiskers, and the Pareto chart of per-user tokens/s against output throughput
 * (one point per configuration, its frontier as a line). Chart specs and strings only.
 *
 * @module
 */

import {
  type ExperimentAnalysis,
  HEADLINE_MATRIX_IDS,
  PER_USER_TPS_ID,
} from '../../experiment/analysis/index.js';
import { labelWithUnit, metric } from '../../metrics/index.js';
import { escapeHtml as e } from '../../util/index.js';
import type { ChartSeries, ChartSpec } from './charts.js';
import { compact, roundSig } from './compact.js';
import { runColor } from './sections.js';
import { paretoFrontier } from './sweep-charts.js';

const THROUGHPUT_ID = 'output_throughput';

/** Configurations with at least one measured run, in the experiment's order. */
function measured(a: ExperimentAnalysis) {
  return a.configurations.filter((c) => c.status === 'ok' && Object.keys(c.cells).length > 0);
}

/** A ratio metric is shown in %, like the rest of the report's attainment figures. */
const scaleOf = (id: string) => (metric(id).unit === 'ratio' ? 100 : 1);
const unitLabel = (id: string) =>
  metric(id).unit === 'ratio' ? `${metric(id).label} (%)` : labelWithUnit(metric(id));

/** One bar chart per key metric: x = configuration, bar = mean across runs, whiskers = its 95 % interval. */
export function experimentBarCharts(a: ExperimentAnalysis): ChartSpec[] {
  const configs = measured(a);
  if (configs.length === 0) return [];
  const categories = configs.map((c) => c.label);
  const ids = HEADLINE_MATRIX_IDS.filter((id) => a.metrics.some((m) => m.id === id));
  return ids.flatMap((id): ChartSpec[] => {
    const k = scaleOf(id);
    const x: number[] = [];
    const y: number[] = [];
    const whiskers: Array<[number, number, number]> = [];
    configs.forEach((c, i) => {
      const cell = c.cells[id];
      if (!cell || !Number.isFinite(cell.spread.mean)) return;
      x.push(i);
      y.push(cell.spread.mean * k);
      if (cell.spread.ci)
        whiskers.push([i, roundSig(cell.spread.ci[0] * k), roundSig(cell.spread.ci[1] * k)]);
    });
    if (x.length === 0) return [];
    const series: ChartSeries = {
      label: `${unitLabel(id)}, mean of the runs`,
      color: '#2563eb',
      data: compact({ x, y }),
      style: 'bars',
      whiskers,
    };
    return [
      {
        id: `chart-experiment-${id}`,
        title: `${metric(id).label} (${metric(id).better} is better)`,
        group: 'experiment',
        xLabel: 'configuration',
        yLabel: unitLabel(id),
        xCategories: categories,
        series: [series],
        markers: [],
      },
    ];
  });
}

/**
 * The experiment's Pareto chart: per-user output tokens/s (p50) against output throughput, one
 * point per configuration (its colour in the legend) with the per-user interval as whiskers,
 * and the frontier (the configurations no other beats on both) as a line.
 */
export function experimentParetoChart(a: ExperimentAnalysis): ChartSpec[] {
  const points = measured(a).flatMap((c) => {
    const tput = c.cells[THROUGHPUT_ID]?.spread;
    const user = c.cells[PER_USER_TPS_ID]?.spread;
    if (!tput || !user || !Number.isFinite(tput.mean) || !Number.isFinite(user.mean)) return [];
    return [{ label: c.label, name: c.name, x: tput.mean, y: user.mean, ci: user.ci }];
  });
  if (points.length === 0) return [];
  const series: ChartSeries[] = points.map((p, i) => ({
    label: p.label === p.name ? p.label : `${p.label} (${p.name})`,
    color: runColor(i),
    data: compact({ x: [p.x], y: [p.y] }),
    style: 'dots',
    ...(p.ci
      ? { whiskers: [[roundSig(p.x), roundSig(p.ci[0]), roundSig(p.ci[1])] as [number, number, number]] }
      : {}),
  }));
  // A margin around the points, so that the dots at either end are drawn whole.
  const xs = points.map((p) => p.x);
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.1 || 1;
  series.push({
    label: 'Pareto frontier (no configuration beats it on both)',
    color: '#475569',
    data: compact(paretoFrontier({ x: points.map((p) => p.x), y: points.map((p) => p.y) })),
    style: 'dashed',
  });
  return [
    {
      id: 'chart-experiment-pareto',
      title: 'Per-user against total throughput (Pareto), one point per configuration',
      group: 'experiment',
      xLabel: `total ${labelWithUnit(metric(THROUGHPUT_ID)).toLowerCase()}, mean of the runs`,
      yLabel: labelWithUnit(metric(PER_USER_TPS_ID)),
      xRange: [roundSig(Math.max(0, lo - pad)), roundSig(hi + pad)],
      series,
      markers: [],
    },
  ];
}

/** Every chart of an experiment, in page order. */
export function experimentCharts(a: ExperimentAnalysis | undefined): ChartSpec[] {
  return a ? [...experimentParetoChart(a), ...experimentBarCharts(a)] : [];
}

/** The experiment section: what was compared, the winner, the charts, the conclusion per configuration. */
export function experimentSection(a: ExperimentAnalysis | undefined, chartCards: string): string {
  if (!a) return '';
  const rows = a.configurations
    .map(
      (c) =>
        `<tr><th>${e(c.label)}</th><td>${e(c.name)}</td><td class="num">${c.runs.ok}/${c.runs.total}</td><td>${e(c.conclusion)}</td></tr>`,
    )
    .join('');
  const winner = a.winner.label
    ? `Winner: <strong>${e(a.winner.label)}</strong> (${e(a.winner.name ?? '')}) — ${e(a.winner.reason)}`
    : `Winner: none (${e(a.winner.reason)})`;
  return (
    `<section id="experiment"><h2>Experiment ${e(a.name)}</h2>` +
    `<p class="muted">${a.configurations.length} configurations × ${a.runsPerConfiguration} runs${a.virtual ? ' (virtual time)' : ''}. Bars: the mean of each configuration's runs; whiskers: its 95 % interval across runs (Student t; none with one run). ${winner}</p>` +
    (chartCards ? `<div class="charts">${chartCards}</div>` : '') +
    `<div class="scroll"><table class="data"><thead><tr><th>Configuration</th><th>Name</th><th>Runs</th><th>Conclusion</th></tr></thead><tbody>${rows}</tbody></table></div>` +
    (a.notes.length > 0 ? `<ul class="notes">${a.notes.map((n) => `<li>${e(n)}</li>`).join('')}</ul>` : '') +
    `</section>`
  );
}
