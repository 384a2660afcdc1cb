/**
 * The search as text: what was explored, how fast, the best points, and where the simulation
 * and the measurement disagree. Strings only.
 *
 * @module
 */

import type { PointFigures } from './evaluate.js';
import type { SearchFile } from './search.js';
import { pointLabel } from './space.js';
import { type Disagreement, VERIFIED_METRICS } from './verify.js';

const n = (v: number | undefined, d = 1): string =>
  v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(d);

/** The search's summary and its best `rows` points. */
export function renderSearch(s: SearchFile, rows = 10): string {
  const unit = s.objective === 'goodput' ? 'goodput req/s' : 'capacity (in flight)';
  const lines = [
    `search (${s.strategy}, objective ${s.objective}) on ${s.profile}${s.calibrated ? ' (calibrated)' : ''}: ` +
      `${s.evaluations.length} evaluations of ${s.spaceSize} configurations, ${s.requests} simulated requests, ` +
      `${(s.wallMs / 1000).toFixed(1)} s (${s.evaluationsPerS.toFixed(1)} evaluations/s)${s.interrupted ? ', interrupted' : ''}`,
    '',
    `  ${'#'.padStart(3)}  ${unit.padStart(20)} ${'TTFT p99'.padStart(9)} ${'TPOT p99'.padStart(9)} ${'requests'.padStart(8)}  configuration`,
  ];
  s.ranking.slice(0, rows).forEach((p: PointFigures, i) => {
    lines.push(
      `  ${String(i + 1).padStart(3)}  ${n(p.objective, 2).padStart(20)} ${n(p.p99TtftMs).padStart(9)} ${n(p.p99TpotMs, 2).padStart(9)} ${String(p.budget).padStart(8)}  ${pointLabel(p.params)}${p.error ? ` (failed: ${p.error})` : ''}`,
    );
  });
  if (s.ranking.length > rows) lines.push(`  … ${s.ranking.length - rows} more in search.json`);
  return `${lines.join('\n')}\n`;
}

const pct = (x: number | undefined): string =>
  x === undefined ? '—' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

/** Per verified configuration and metric: simulated, measured, relative difference. */
export function renderDisagreements(rows: readonly Disagreement[], real: boolean): string {
  if (rows.length === 0) return '';
  const lines = [
    real
      ? 'simulation against the real server (search figure vs mean of the experiment’s runs):'
      : 'search figure vs mean of the experiment’s repeated virtual runs (no serve: template, no real server):',
    `  ${'configuration'.padEnd(24)} ${'metric'.padEnd(14)} ${'simulated'.padStart(10)} ${'measured'.padStart(10)} ${'diff'.padStart(8)}`,
  ];
  for (const r of rows) {
    const label = VERIFIED_METRICS.find((m) => m.key === r.metric)!.label;
    lines.push(
      `  ${r.configuration.padEnd(24)} ${label.padEnd(14)} ${n(r.simulated, 2).padStart(10)} ${n(r.measured, 2).padStart(10)} ${pct(r.relDiff).padStart(8)}`,
    );
  }
  const worst = rows
    .filter((r) => r.relDiff !== undefined)
    .sort((a, b) => Math.abs(b.relDiff!) - Math.abs(a.relDiff!))[0];
  if (worst)
    lines.push(
      `  largest disagreement: ${worst.configuration} ${VERIFIED_METRICS.find((m) => m.key === worst.metric)!.label} ${pct(worst.relDiff)}${real && Math.abs(worst.relDiff!) > 0.1 ? ' (over 10 %: calibrate the engine on this server with goodput sim calibrate)' : ''}`,
    );
  return `${lines.join('\n')}\n`;
}
