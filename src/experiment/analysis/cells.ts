/**
 * The matrix cells of one configuration: per metric its per-run values and their spread
 * across runs (describeRuns: mean, std, CV, Student-t 95 % interval) and, against the
 * baseline's runs, compare's replicate row (compareReplicates: Welch's interval of the
 * difference across runs; better or worse only when it excludes zero, else "no significant
 * change" with the runs per side that would resolve it). Beside it, compare's within-run
 * bootstrap (run k vs the baseline's run k), tallied. Pure.
 *
 * @module
 */

import {
  type CompareMetric,
  compareReplicates,
  compareRuns,
  describeRuns,
  type MetricDelta,
  type RunInput,
  replicateDelta,
} from '../../compare/index.js';
import { metric } from '../../metrics/index.js';
import type { RunSummary } from '../../types.js';
import { readMetric } from './metrics.js';
import type { AcrossDifference, AcrossVerdict, MatrixCell, WithinRunTally } from './types.js';

/**
 * Bootstrap resamples of the within-run compare: enough for a verdict tally beside the
 * across-run one (compare's own default, 2000, took seconds per experiment for a column that
 * decides nothing).
 */
export const WITHIN_RUN_RESAMPLES = 300;

/** One measured run of a configuration. */
export interface AnalysedRun {
  repeat: number;
  dir: string;
  summary: RunSummary;
  /** compare's input (summary + per-request samples, when requests.jsonl was read). */
  input: RunInput;
}

const VERDICTS: Record<MetricDelta['verdict'], AcrossVerdict> = {
  better: 'better',
  worse: 'worse',
  unchanged: 'no significant change',
  untested: 'untested',
};

/** compare's replicate row as the matrix keeps it. */
export function acrossDifference(d: MetricDelta): AcrossDifference {
  const out: AcrossDifference = { verdict: VERDICTS[d.verdict], changeKind: d.changeKind };
  if (d.baseline !== undefined && d.candidate !== undefined) out.diff = d.candidate - d.baseline;
  if (d.change !== undefined) out.change = d.change;
  if (d.ci) out.ci = [d.ci[0], d.ci[1]];
  if (d.runsNeeded !== undefined) out.runsNeeded = d.runsNeeded;
  if (d.why !== undefined) out.why = d.why;
  return out;
}

/** A matrix metric as compare's replicate rows take it (for figures compare does not show, e.g. per-user tokens/s). */
function compareMetricOf(id: string): CompareMetric {
  const def = metric(id);
  return {
    key: def.id,
    label: def.label,
    unit: def.unit,
    direction: def.better,
    test: 'none',
    value: def.read,
  };
}

function valuesOf(id: string, runs: readonly AnalysedRun[]): number[] {
  const out: number[] = [];
  for (const r of runs) {
    const v = readMetric(id, r.summary);
    if (v !== undefined) out.push(v);
  }
  return out;
}

/**
 * The cells of `ids` for one configuration, with the across-run difference from the baseline
 * when its runs are given. compare's rows come from one `compareReplicates`; a matrix figure
 * compare does not show goes through the same `replicateDelta`.
 */
export function matrixCells(
  ids: readonly string[],
  runs: readonly AnalysedRun[],
  baseline?: readonly AnalysedRun[],
): Record<string, MatrixCell> {
  const cells: Record<string, MatrixCell> = {};
  const canCompare = baseline !== undefined && baseline.length > 0 && runs.length > 0;
  const base = canCompare ? baseline.map((r) => r.input) : [];
  const cand = runs.map((r) => r.input);
  const rows = canCompare
    ? new Map(compareReplicates(base, cand, { allowDifferent: true }).deltas.map((d) => [d.key, d]))
    : undefined;
  for (const id of ids) {
    const values = valuesOf(id, runs);
    const cell: MatrixCell = { metric: id, values, spread: describeRuns(values) };
    if (rows)
      cell.vsBaseline = acrossDifference(rows.get(id) ?? replicateDelta(compareMetricOf(id), base, cand));
    cells[id] = cell;
  }
  return cells;
}

/**
 * compare's within-run verdicts, run k of the candidate against run k of the baseline (the
 * pairs both finished), tallied per metric id. Runs whose workloads differ are compared
 * anyway: the experiment's executor measured them under one plan.
 */
export function withinRunTallies(
  baseline: readonly AnalysedRun[],
  candidate: readonly AnalysedRun[],
  options: { resamples?: number } = {},
): Map<string, WithinRunTally> {
  const tallies = new Map<string, WithinRunTally>();
  for (const cand of candidate) {
    const base = baseline.find((b) => b.repeat === cand.repeat);
    if (!base) continue;
    const report = compareRuns([base.input, cand.input], {
      allowDifferent: true,
      resamples: options.resamples ?? WITHIN_RUN_RESAMPLES,
    });
    for (const d of report.comparisons[0]?.deltas ?? []) {
      const t = tallies.get(d.key) ?? { pairs: 0, better: 0, worse: 0, unchanged: 0, untested: 0 };
      t.pairs++;
      t[d.verdict]++;
      tallies.set(d.key, t);
    }
  }
  return tallies;
}
