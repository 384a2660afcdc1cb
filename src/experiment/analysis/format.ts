/**
 * How the analysis writes numbers and changes in words (the conclusion column, the
 * hypotheses' evidence, the renderers' cells). Pure.
 *
 * @module
 */

import { formatValue } from '../../compare/index.js';
import type { MetricUnit } from '../../metrics/index.js';
import type { AcrossDifference, MatrixCell, MatrixMetric } from './types.js';

function signed(v: number, digits: number): string {
  const s = v.toFixed(digits);
  if (Number(s) === 0) return (0).toFixed(digits);
  return v > 0 ? `+${s}` : s.replace('-', '−');
}

/**
 * "−38% [−45, −30]" (relative to the baseline's mean), "+1.2 pp [+0.4, +2.0]" (a proportion),
 * or "+12" in the unit when the baseline's mean is 0 (no relative change).
 */
export function formatDifference(d: AcrossDifference, unit: MetricUnit): string {
  if (d.change !== undefined && Number.isFinite(d.change)) {
    const points = d.changeKind === 'points';
    const pct = d.change * 100;
    const digits = points || (pct !== 0 && Math.abs(pct) < 1) ? 1 : 0;
    const main = `${signed(pct, digits)}${points ? ' pp' : '%'}`;
    if (!d.ci) return main;
    return `${main} [${signed(d.ci[0] * 100, digits)}, ${signed(d.ci[1] * 100, digits)}]`;
  }
  if (d.diff === undefined || !Number.isFinite(d.diff)) return '—';
  if (unit === 'ratio') return `${signed(d.diff * 100, 1)} pp`;
  return `${signed(d.diff, 1)}${unit === 'count' ? '' : ` ${unit}`}`;
}

/** "TTFT p99 −38% [−45, −30]". */
export function describeChange(m: MatrixMetric, cell: MatrixCell): string {
  return cell.vsBaseline ? `${m.label} ${formatDifference(cell.vsBaseline, m.unit)}` : m.label;
}

/** "412 ± 12" (mean ± half the 95 % interval), "412" with one run, "—" with none. */
export function formatSpread(cell: MatrixCell | undefined, unit: MetricUnit): string {
  if (!cell || cell.spread.n === 0) return '—';
  const mean = formatValue(cell.spread.mean, unit);
  if (!cell.spread.ci) return mean;
  const half = (cell.spread.ci[1] - cell.spread.ci[0]) / 2;
  return `${mean} ± ${formatValue(half, unit)}`;
}

export { formatValue };
