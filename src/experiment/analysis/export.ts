/**
 * The analysis as JSON (the analysis object itself, schemaVersion 1) and as CSV: one line per
 * configuration and metric (a traffic class's as `metric{class=NAME}`), RFC 4180 (util/csv.ts), text fields neutralised against formula
 * injection. Renderers return strings.
 *
 * @module
 */

import { csvLine } from '../../util/index.js';
import type { ExperimentAnalysis } from './types.js';

/** The analysis as one JSON document. */
export function renderExperimentJson(a: ExperimentAnalysis): string {
  return `${JSON.stringify(a, null, 2)}\n`;
}

/** Columns of the experiment CSV. */
export const EXPERIMENT_CSV_COLUMNS: readonly string[] = [
  'experiment',
  'configuration',
  'label',
  'baseline',
  'status',
  'winner',
  'metric',
  'unit',
  'runs',
  'mean',
  'std',
  'cv',
  'ci_low',
  'ci_high',
  'change',
  'change_ci_low',
  'change_ci_high',
  'change_kind',
  'diff',
  'verdict',
  'runs_needed',
  'within_run_pairs',
  'within_run_better',
  'within_run_worse',
  'within_run_unchanged',
  'conclusion',
];

/** One line per configuration and metric; a failed configuration gets one line with its failure. */
export function renderExperimentCsv(a: ExperimentAnalysis): string {
  let out = csvLine(EXPERIMENT_CSV_COLUMNS);
  for (const r of a.configurations) {
    const head = [a.name, r.name, r.label, r.baseline, r.status, a.winner.name === r.name];
    if (r.status === 'failed') {
      out += csvLine([
        ...head,
        ...new Array(EXPERIMENT_CSV_COLUMNS.length - head.length - 1).fill(undefined),
        r.conclusion,
      ]);
      continue;
    }
    // The run's metrics, then each traffic class's as `metric{class=NAME}` (the gate's selector).
    const cells = [
      ...a.metrics.map((m) => [m, m.id, r.cells[m.id]] as const),
      ...(r.classes ?? []).flatMap((k) =>
        (a.classMetrics ?? []).map((m) => [m, `${m.id}{class=${k.name}}`, k.cells[m.id]] as const),
      ),
    ];
    for (const [m, id, c] of cells) {
      if (!c) continue;
      const d = c.vsBaseline;
      out += csvLine([
        ...head,
        id,
        m.unit,
        c.spread.n,
        c.spread.mean,
        c.spread.std,
        c.spread.cv,
        c.spread.ci?.[0],
        c.spread.ci?.[1],
        d?.change,
        d?.ci?.[0],
        d?.ci?.[1],
        d?.changeKind,
        d?.diff,
        d?.verdict,
        d?.runsNeeded,
        c.withinRun?.pairs,
        c.withinRun?.better,
        c.withinRun?.worse,
        c.withinRun?.unchanged,
        r.conclusion,
      ]);
    }
  }
  return out;
}
