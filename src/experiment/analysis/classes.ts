/**
 * Traffic classes in the matrix: for a configuration whose runs had classes (`--class`, the
 * plan's `run:` classes), each class's cells across runs — TTFT and TPOT p99, request goodput
 * and attainment against the class's own SLO — read through the metrics' class view (the same
 * catalogue readers as the run's figures), with the across-run difference from the baseline's
 * same class. Classes inform; the winner is chosen on the run's figures. Pure.
 *
 * @module
 */

import { classView } from '../../metrics/index.js';
import type { AnalysedRun } from './cells.js';
import { matrixCells } from './cells.js';
import { matrixMetric, readMetric } from './metrics.js';
import type { ClassAnalysis, MatrixMetric } from './types.js';

/** The figures of each class in the matrix, in display order. */
export const CLASS_MATRIX_IDS = ['ttft_p99', 'tpot_p99', 'request_goodput', 'attainment'] as const;

/** The class names of these runs, in the order the runs give them. */
export function classNamesOf(runs: readonly AnalysedRun[]): string[] {
  const names: string[] = [];
  for (const r of runs)
    for (const c of r.summary.classes ?? []) if (!names.includes(c.name)) names.push(c.name);
  return names;
}

/** The runs as one of their classes (runs without it left out); no per-request samples. */
function asClass(runs: readonly AnalysedRun[], name: string): AnalysedRun[] {
  return runs.flatMap((r) => {
    const summary = classView(r.summary, name);
    if (!summary) return [];
    return [
      { repeat: r.repeat, dir: r.dir, summary, input: { name: `${r.input.name} {class=${name}}`, summary } },
    ];
  });
}

/** The class metrics some class of these runs measured, as the analysis carries them. */
export function classMetrics(runs: readonly AnalysedRun[]): MatrixMetric[] {
  const names = classNamesOf(runs);
  return CLASS_MATRIX_IDS.filter((id) =>
    names.some((n) => asClass(runs, n).some((r) => readMetric(id, r.summary) !== undefined)),
  ).map(matrixMetric);
}

/** Each class of a configuration's runs, against the same class of the baseline's runs when given. */
export function classAnalyses(
  runs: readonly AnalysedRun[],
  baseline: readonly AnalysedRun[] | undefined,
  ids: readonly string[],
): ClassAnalysis[] {
  return classNamesOf(runs).map((name) => {
    const own = asClass(runs, name);
    const base = baseline ? asClass(baseline, name) : undefined;
    const sloSet = runs.some((r) =>
      Object.values(r.summary.classes?.find((c) => c.name === name)?.goodput.slo ?? {}).some(
        (v) => v !== undefined,
      ),
    );
    return { name, sloSet, cells: matrixCells(ids, own, base && base.length > 0 ? base : undefined) };
  });
}
