/**
 * The traffic-class part of a run report (`--class`): one row per class, its figures read
 * through the catalogue from the metrics' class view (the same definitions as the run's
 * headline), its goodput and attainment against its own SLO.
 *
 * @module
 */

import { classView, labelWithUnit, type MetricDef, metric } from '../metrics/index.js';
import type { RunSummary, Slo } from '../types.js';
import { fmtInt, fmtMs, fmtNum, fmtPct } from './format.js';

interface ViewTable {
  header: string[];
  rows: string[][];
  align: Array<'l' | 'r'>;
}

/** The catalogue figures of each class's row, after its name, share and priority. */
const CLASS_COLUMNS = [
  'completed',
  'failed',
  'ttft_p50',
  'ttft_p99',
  'tpot_p99',
  'e2el_p99',
  'user_tps_p50',
  'request_throughput',
  'request_goodput',
  'attainment',
] as const;

/** The by-class table (undefined without classes); `sloText` says a class's SLO in the run's words. */
export function classesView(s: RunSummary, sloText: (slo: Slo) => string): ViewTable | undefined {
  if (!s.classes || s.classes.length === 0) return undefined;
  const defs = CLASS_COLUMNS.map((id) => metric(id));
  const show = (def: MetricDef, v: number | undefined): string => {
    if (v === undefined) return '–';
    if (def.unit === 'ms') return fmtMs(v);
    if (def.unit === 'ratio') return fmtPct(v);
    if (def.unit === 'count') return fmtInt(v);
    return fmtNum(v);
  };
  return {
    header: ['class', 'share', 'priority', ...defs.map(labelWithUnit), 'SLO'],
    rows: s.classes.map((c) => {
      const view = classView(s, c.name)!;
      return [
        c.name + (c.model !== undefined ? ` (${c.model})` : ''),
        fmtPct(c.share),
        c.priority === undefined ? '–' : String(c.priority),
        ...defs.map((d) => show(d, d.read(view))),
        sloText(c.goodput.slo),
      ];
    }),
    align: ['l', 'r', 'r', ...defs.map(() => 'r' as const), 'l'],
  };
}
