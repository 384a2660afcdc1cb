/**
 * compare's entry for run groups: each side one run (within-run intervals, noise floors) or
 * several (replicates, intervals across runs). What `goodput compare A B` and
 * `goodput compare A1,A2,A3 B1,B2,B3` both call. Pure.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import { SCHEMA_VERSION } from '../types.js';
import { serverDescriptionNote } from './comparable.js';
import {
  type CompareInput,
  type CompareOptions,
  type CompareReport,
  compareRuns,
  type RunInput,
  type RunRef,
  refOf,
} from './compare.js';
import { compareReplicates } from './replicates.js';

/** A side: the run it stands for, or its runs joined ("a1,a2,a3"). */
function groupRef(runs: RunInput[]): RunRef {
  if (runs.length === 1) return refOf(runs[0] as RunInput);
  return { name: runs.map((r) => r.name).join(','), runs: runs.map(refOf) };
}

function goodputRuns(group: CompareInput[]): RunInput[] {
  const foreign = group.find((r) => 'imported' in r);
  if (foreign) {
    throw new GoodputError(
      'E_USAGE',
      `${foreign.path ?? foreign.name} is another tool's result: replicates are goodput runs`,
      "compare another tool's result against one run at a time: goodput compare RESULT RUN",
    );
  }
  return group as RunInput[];
}

/**
 * Compares every group after the first against the first (the baseline). With one run in
 * every group this is {@link compareRuns}; with several runs on a side, each candidate is
 * compared by {@link compareReplicates} (intervals across runs) and the report's rows say so
 * (`intervalKind: 'across-runs'`, `replicates` per comparison).
 *
 * @example
 * compareGroups([[a1, a2, a3], [b1, b2, b3]]).comparisons[0].replicates; // { baseline: 3, candidate: 3 }
 */
export function compareGroups(groups: CompareInput[][], options: CompareOptions = {}): CompareReport {
  const [base, ...candidates] = groups;
  if (groups.some((g) => g.length === 0)) {
    throw new GoodputError(
      'E_USAGE',
      'a run group is empty',
      'name each run folder: goodput compare A1,A2 B1,B2',
    );
  }
  if (groups.every((g) => g.length === 1))
    return compareRuns(
      groups.map((g) => g[0] as CompareInput),
      options,
    );
  if (!base || candidates.length === 0) {
    throw new GoodputError(
      'E_USAGE',
      'compare needs a baseline and at least one candidate',
      'pass the baseline runs, then the candidate runs: goodput compare A1,A2,A3 B1,B2,B3',
    );
  }
  const baseRuns = goodputRuns(base);
  const comparisons = candidates.map((group) => {
    const runs = goodputRuns(group);
    const cmp = compareReplicates(baseRuns, runs, { allowDifferent: options.allowDifferent === true });
    // the first run of each side stands for its servers (a side is one configuration)
    const note = baseRuns[0] && runs[0] ? serverDescriptionNote(baseRuns[0], runs[0]) : undefined;
    return {
      candidate: groupRef(runs),
      differences: cmp.differences.map(({ run: _run, ...d }) => d),
      deltas: cmp.deltas,
      hints: cmp.hints,
      replicates: cmp.n,
      ...(note ? { notes: [note] } : {}),
    };
  });
  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'goodput.compare',
    confidence: 0.95,
    resamples: options.resamples ?? 2000,
    seed: options.seed ?? 1,
    baseline: groupRef(baseRuns),
    comparisons,
  };
}
