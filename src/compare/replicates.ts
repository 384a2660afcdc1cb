/**
 * Compare with replicates: several runs of each configuration, each run's figure one
 * observation. The interval of a change is Welch's across the runs (`welchDifference`), so it
 * sees what a within-run bootstrap cannot: the service and the machine drifting between runs.
 * Every catalogue row compare shows is tested this way, server figures included (a run's
 * preemption count is one observation like its p99). Pure.
 *
 * `compareReplicates` is what `goodput compare A1,A2,A3 B1,B2,B3` and an experiment's matrix
 * both call.
 *
 * @example
 * const cmp = compareReplicates([a1, a2, a3], [b1, b2, b3]);
 * cmp.deltas.find((d) => d.key === 'tpot_p50'); // { verdict: 'worse', intervalKind: 'across-runs', spread: {...} }
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import { describeRuns, runsToResolve, welchDifference } from './across-runs.js';
import { comparabilityDiffs, describeDiff, type FieldDiff } from './comparable.js';
import { deltaOf, type MetricDelta, type RunInput } from './compare.js';
import { hintsFor } from './hints.js';
import { COMPARE_METRICS, type CompareMetric, type Direction } from './metrics.js';

export interface ReplicateOptions {
  /** Compare even when sampling, workload or load differ (the differences are still reported). */
  allowDifferent?: boolean;
}

/** The runs of both sides and the rows: what `compareReplicates` returns. */
export interface ReplicateComparison {
  /** Runs per side. */
  n: { baseline: number; candidate: number };
  /** Sampling / workload / load fields that differ from the first baseline run (with allowDifferent only). */
  differences: Array<FieldDiff & { run: string }>;
  /** One row per catalogue metric compare shows; `intervalKind` is 'across-runs'. */
  deltas: MetricDelta[];
  /** Hypotheses from the significant changes only. */
  hints: string[];
}

function verdictOf(
  direction: Direction,
  diffCi: readonly [number, number] | undefined,
): MetricDelta['verdict'] {
  if (!diffCi) return 'untested';
  const move = diffCi[0] > 0 ? 1 : diffCi[1] < 0 ? -1 : 0;
  if (move === 0) return 'unchanged';
  return move > 0 === (direction === 'higher') ? 'better' : 'worse';
}

/** One catalogue row across runs: per-run figures → mean, spread, Welch interval, verdict. */
export function replicateDelta(def: CompareMetric, baseline: RunInput[], candidate: RunInput[]): MetricDelta {
  const points = def.test === 'proportion';
  const a = baseline.map((r) => def.value(r.summary)).filter((v): v is number => v !== undefined);
  const b = candidate.map((r) => def.value(r.summary)).filter((v): v is number => v !== undefined);
  const d = welchDifference(a, b);
  const delta: MetricDelta = {
    ...deltaOf(def, 'across-runs'),
  };
  const sa = describeRuns(a);
  const sb = describeRuns(b);
  if (sa.n > 0) delta.baseline = sa.mean;
  if (sb.n > 0) delta.candidate = sb.mean;
  delta.spread = { baseline: sa, candidate: sb };
  if (points) {
    if (Number.isFinite(d.diff)) delta.change = d.diff;
    if (d.diffCi) delta.ci = d.diffCi;
  } else {
    if (d.change !== undefined) delta.change = d.change;
    if (d.ci) delta.ci = d.ci;
  }
  // A figure no run measured (KV figures without server metrics): shown as —, as with one run a side.
  if (a.length === 0 && b.length === 0) return delta;
  if (a.length < 2 || b.length < 2) {
    const short = a.length < baseline.length || b.length < candidate.length;
    delta.why = short
      ? `measured in ${a.length} and ${b.length} runs: an across-run interval needs at least 2 a side`
      : `${a.length} and ${b.length} runs: an across-run interval needs at least 2 a side`;
    return delta;
  }
  // The verdict is read from the difference's own interval: a relative change's interval is
  // the same interval scaled, and a baseline mean of 0 has no relative change at all.
  delta.verdict = verdictOf(def.direction, d.diffCi);
  if (!d.significant && d.diff !== 0) {
    const needed = runsToResolve(d.diff, sa.std, sb.std);
    if (needed !== undefined) delta.runsNeeded = needed;
  }
  return delta;
}

/** Fields in which a run differs from the first baseline run (every other run of both sides). */
function replicateDifferences(
  baseline: RunInput[],
  candidate: RunInput[],
): Array<FieldDiff & { run: string }> {
  const [first, ...rest] = baseline;
  if (!first) return [];
  return [...rest, ...candidate].flatMap((r) =>
    comparabilityDiffs(first.summary.meta, r.summary.meta).map((d) => ({ ...d, run: r.name })),
  );
}

/**
 * Compares two configurations measured several times each: every catalogue row compare shows
 * (server rows when a run has server metrics, reasoning rows when a run reasoned), each run's
 * figure one observation; the change of the means with a 95 % Welch interval across runs, the
 * per-side mean, standard deviation and CV (`spread`), and, where no change is significant, how
 * many runs per side would resolve one of the size seen (`runsNeeded`).
 * Throws E_INCOMPARABLE naming each differing field unless `allowDifferent` is set; E_USAGE
 * when a side has no run.
 *
 * @example
 * compareReplicates([a1, a2, a3], [b1, b2, b3]).deltas.find((d) => d.key === 'ttft_p99')?.verdict;
 */
export function compareReplicates(
  baselineRuns: RunInput[],
  candidateRuns: RunInput[],
  opts: ReplicateOptions = {},
): ReplicateComparison {
  if (baselineRuns.length === 0 || candidateRuns.length === 0) {
    throw new GoodputError(
      'E_USAGE',
      `compare needs runs on both sides, got ${baselineRuns.length} baseline and ${candidateRuns.length} candidate runs`,
      'give each side its run folders: goodput compare A1,A2,A3 B1,B2,B3',
    );
  }
  const differences = replicateDifferences(baselineRuns, candidateRuns);
  if (differences.length > 0 && !opts.allowDifferent) {
    throw new GoodputError(
      'E_INCOMPARABLE',
      `the runs differ in more than the configuration under test:\n${differences
        .map((d) => `  ${d.run}: ${describeDiff(d)}`)
        .join('\n')}`,
      'rerun with the same sampling, workload and load, or pass --allow-different to compare anyway',
    );
  }
  const all = [...baselineRuns, ...candidateRuns];
  const hasServer = all.some((r) => r.summary.server !== undefined);
  const reasoned = all.some((r) => r.summary.reasoning !== undefined);
  const efficient = all.some((r) => r.summary.efficiency !== undefined);
  const defs = COMPARE_METRICS.filter(
    (m) => (hasServer || !m.server) && (reasoned || !m.reasoning) && (efficient || !m.efficiency),
  );
  const deltas = defs.map((def) => replicateDelta(def, baselineRuns, candidateRuns));
  return {
    n: { baseline: baselineRuns.length, candidate: candidateRuns.length },
    differences,
    deltas,
    hints: hintsFor(deltas),
  };
}
