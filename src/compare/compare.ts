/**
 * Compare runs against a baseline: per-metric change with a 95% confidence interval and a
 * verdict (better, worse, no significant change), refusing runs whose sampling, workload or
 * load differ. Pure: runs come in as summaries plus optional per-request samples.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import { importedValue, metric, resultNoun, runCaveats, TOOL_DESCRIPTIONS } from '../metrics/index.js';
import {
  type ImportedSummary,
  type ImportTool,
  type RunCaveat,
  type RunSummary,
  SCHEMA_VERSION,
} from '../types.js';
import { type RunSpread, runsToResolve } from './across-runs.js';
import { bootstrapQuantileChange } from './bootstrap.js';
import { comparabilityDiffs, describeDiff, type FieldDiff, serverDescriptionNote } from './comparable.js';
import { hintsFor } from './hints.js';
import {
  COMPARE_METRICS,
  type CompareMetric,
  type Direction,
  proportionCounts,
  rateRelativeVariance,
  type TestKind,
} from './metrics.js';
import { noiseFloorOf } from './noise-floor.js';
import { type RunSamples, samplesFromStated } from './samples.js';
import { type Interval, mannWhitneyU, newcombeDifference, rateRatioChange, seededRandom } from './stats.js';

/** Which intervals a comparison's rows carry (see {@link MetricDelta.intervalKind}). */
export type IntervalKind = 'within-run' | 'across-runs';

/** `unchanged` = no significant change; `untested` = a single figure per run, no interval. */
export type Verdict = 'better' | 'worse' | 'unchanged' | 'untested';

export interface MetricDelta {
  key: string;
  label: string;
  unit: CompareMetric['unit'];
  direction: Direction;
  test: TestKind;
  baseline?: number;
  candidate?: number;
  /** 'relative': candidate/baseline − 1; 'points': candidate − baseline (proportions). */
  changeKind: 'relative' | 'points';
  change?: number;
  ci?: Interval;
  /** Mann–Whitney p-value (rank test only). */
  p?: number;
  /**
   * What the interval can see. 'within-run': built from one run's requests per side (bootstrap,
   * rank test, rate ratio, Newcombe); it cannot see drift between runs, which the noise floor
   * stands in for. 'across-runs': each run's figure is one observation (Welch, replicates).
   */
  intervalKind: IntervalKind;
  /** The noise floor applied to a within-run verdict: |change| under it is no significant change. */
  floor?: number;
  /** Runs per side that would resolve a change of this size, where none is significant. */
  runsNeeded?: number;
  /** Replicates: mean, standard deviation and CV of each side's per-run figures. */
  spread?: { baseline: RunSpread; candidate: RunSpread };
  verdict: Verdict;
  /** Why there is no verdict, when a run lacks what the test needs (a figure, per-request samples). */
  why?: string;
}

/** A row's identity and kind, before any figure: the fields every compare row starts from. */
export function deltaOf(def: CompareMetric, intervalKind: IntervalKind): MetricDelta {
  return {
    key: def.key,
    label: def.label,
    unit: def.unit,
    direction: def.direction,
    test: def.test,
    changeKind: def.test === 'proportion' ? 'points' : 'relative',
    intervalKind,
    verdict: 'untested',
  };
}

/** One run as compare sees it. */
export interface RunInput {
  /** How the run is named in tables: the directory name, or "Baseline", "Exp-1"… */
  name: string;
  path?: string;
  summary: RunSummary;
  /** Per-request samples (from requests.jsonl); without them only summary figures compare. */
  samples?: RunSamples;
}

/**
 * Another tool's result (vLLM, guidellm, AIPerf, GenAI-Perf; read from its file or from a
 * directory `goodput import` wrote) as compare sees it: its figures only. It has no goodput
 * meta (so comparability cannot be checked) and no per-request samples (so latency rows have
 * no interval).
 */
export interface ImportedRunInput {
  name: string;
  path?: string;
  imported: ImportedSummary;
}

/** A run compare takes: a goodput run, or another tool's result. */
export type CompareInput = RunInput | ImportedRunInput;

export interface RunRef {
  name: string;
  path?: string;
  /** The goodput run id; absent for another tool's result, which has none. */
  runId?: string;
  /** When the run started; absent for another tool's result (its own date is in `sourceDate`). */
  startedAt?: string;
  /** The tool that wrote the result, when it is not a goodput run. */
  source?: ImportTool;
  /** The other tool's own date or start time, as its file states it. */
  sourceDate?: string;
  labels?: Record<string, string>;
  /** The run's caveats (client-bound, connections short…), when it has any: its figures may not be the server's. */
  caveats?: RunCaveat[];
  /** Replicates: the runs this side stands for (its name is theirs joined by commas). */
  runs?: RunRef[];
}

export interface RunComparison {
  candidate: RunRef;
  /** Sampling / workload / load fields that differ (only when --allow-different let them through). */
  differences: FieldDiff[];
  deltas: MetricDelta[];
  /** Hypotheses about the bottleneck, from the pattern of significant changes. */
  hints: string[];
  /** Replicates: runs per side (the baseline's and this candidate's); absent with one run a side. */
  replicates?: { baseline: number; candidate: number };
  /** What the verdicts could not use (another tool's result: no samples, figures it lacks). */
  notes?: string[];
}

/** The persisted result of compare (`--json`). */
export interface CompareReport {
  schemaVersion: typeof SCHEMA_VERSION;
  kind: 'goodput.compare';
  confidence: number;
  resamples: number;
  seed: number;
  /** One noise floor for every row, when the caller overrode the table (`--min-effect`); each row's own is `floor`. */
  minEffect?: number;
  baseline: RunRef;
  comparisons: RunComparison[];
}

export interface CompareOptions {
  /** Bootstrap resamples (default 2,000). */
  resamples?: number;
  /** Seed of the bootstrap (default 1). */
  seed?: number;
  /** Compare even when sampling, workload or load differ (the differences are still reported). */
  allowDifferent?: boolean;
  /**
   * One noise floor for every row, overriding the calibrated table (NOISE_FLOORS in
   * noise-floor.ts): a change whose size is under it (relative, or points for proportions) is no
   * significant change even when the within-run test rejects. 0 keeps the within-run test alone.
   */
  minEffect?: number;
}

const ALPHA = 0.05;

export function refOf(run: CompareInput): RunRef {
  if ('imported' in run) {
    const ref: RunRef = { name: run.name, source: run.imported.source.tool };
    if (run.path !== undefined) ref.path = run.path;
    if (run.imported.date !== undefined) ref.sourceDate = run.imported.date;
    return ref;
  }
  const ref: RunRef = {
    name: run.name,
    runId: run.summary.meta.runId,
    startedAt: run.summary.meta.startedAt,
  };
  if (run.path !== undefined) ref.path = run.path;
  if (run.summary.meta.labels) ref.labels = run.summary.meta.labels;
  const caveats = runCaveats(run.summary);
  if (caveats.length > 0) ref.caveats = caveats;
  return ref;
}

/** Maps a significant move up or down onto better / worse for the metric's direction. */
function verdictOf(direction: Direction, move: -1 | 0 | 1): Verdict {
  if (move === 0) return 'unchanged';
  return move > 0 === (direction === 'higher') ? 'better' : 'worse';
}

function moveOfInterval(ci: Interval): -1 | 0 | 1 {
  if (ci[0] > 0) return 1;
  if (ci[1] < 0) return -1;
  return 0;
}

function relative(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined || b === undefined || !(a !== 0)) return undefined;
  return b / a - 1;
}

/** A significant move smaller than the noise floor is no move. */
function floored(move: -1 | 0 | 1, change: number | undefined, minEffect: number): -1 | 0 | 1 {
  return change !== undefined && Math.abs(change) < minEffect ? 0 : move;
}

const statedSamples = new WeakMap<ImportedSummary, RunSamples>();

/** A run's per-request samples: its records', or the per-request values another tool states (vLLM's detailed arrays). */
function samplesOf(run: CompareInput): RunSamples | undefined {
  if (!('imported' in run)) return run.samples;
  const stated = run.imported.samples;
  if (!stated) return undefined;
  let samples = statedSamples.get(run.imported);
  if (!samples) {
    samples = samplesFromStated(stated);
    statedSamples.set(run.imported, samples);
  }
  return samples;
}

/** A row's figure: the summary's, or the imported result's as its source states it. */
function figureOf(def: CompareMetric, run: CompareInput): number | undefined {
  return 'imported' in run ? importedValue(run.imported, metric(def.key)) : def.value(run.summary);
}

/**
 * A rate's relative variance. For another tool's result only request counts give one
 * (1/completed, as the file states `completed`); output tokens are taken as equal per request,
 * as for a goodput run without records. Goodput needs the count of good requests, which the
 * other tools do not state.
 */
function rateVarianceOf(key: string, run: CompareInput): number | undefined {
  if (!('imported' in run)) return rateRelativeVariance(key, run.summary, run.samples);
  const completed = run.imported.figures.completed;
  if (key !== 'request_throughput' && key !== 'output_throughput') return undefined;
  return typeof completed === 'number' && completed > 0 ? 1 / completed : undefined;
}

/** What another tool's result cannot give the verdicts, said once per run. */
function importedNotes(run: CompareInput): string[] {
  if (!('imported' in run)) return [];
  const where = run.path ?? run.name;
  const stated = run.imported.samples;
  // Which latencies each tool states per request: vLLM and SGLang TTFT and ITL, AIPerf all
  // four, guidellm TTFT and E2EL.
  const rows = stated
    ? [
        ['TTFT', stated.ttftMs],
        ['ITL', stated.itlMs],
        ['TPOT', stated.tpotMs],
        ['E2EL', stated.e2elMs],
      ].flatMap(([name, values]) => (values && values.length > 0 ? [name as string] : []))
    : [];
  const samples = stated
    ? `its per-request values (${stated.ttftMs.length} requests) give ${rows.join(', ')} their intervals${rows.length < 4 ? ', the other latency rows have none' : ''}`
    : 'no per-request samples goodput reads, so its latency rows have no interval';
  return [
    `${run.name} is ${resultNoun(run.imported.source.tool)} (${where}): ${samples}; ` +
      'figures it does not state are shown as —, never estimated',
  ];
}

/** What the two servers said of themselves that differs: the figures may be two servers', not one configuration's. */
function serverNotes(base: CompareInput, cand: CompareInput): string[] {
  if ('imported' in base || 'imported' in cand) return [];
  const note = serverDescriptionNote(base, cand);
  return note ? [note] : [];
}

/** Why a row has no verdict: the run that lacks the figure, or what the test needs and lacks. */
function whyUntested(def: CompareMetric, base: CompareInput, cand: CompareInput, delta: MetricDelta): string {
  const sides = [
    [base, delta.baseline],
    [cand, delta.candidate],
  ] as const;
  for (const [run, value] of sides) {
    if (value !== undefined) continue;
    if ('imported' in run)
      return `${run.name} (${TOOL_DESCRIPTIONS[run.imported.source.tool]}) does not state it`;
    return `${run.name} did not measure it`;
  }
  if (def.test === 'none') return 'a single figure per run: shown, not tested';
  const imported = [base, cand].find((r) => 'imported' in r);
  const name = imported?.name ?? '';
  if (def.test === 'proportion') return `${name} states no counts behind it: no interval`;
  if (def.test === 'rate') return `${name} states no count of the requests behind it: no interval`;
  const lacking = [base, cand].find((r) => (samplesOf(r)?.[def.sample ?? 'ttft']?.length ?? 0) === 0);
  if (lacking && 'imported' in lacking && lacking.imported.samples) {
    return `${lacking.name} states TTFT and inter-chunk gaps per request, not this latency: no interval`;
  }
  if (lacking && !('imported' in lacking)) return `${lacking.name} has no per-request records: no interval`;
  return `${lacking?.name ?? name} has no per-request samples: no interval`;
}

/**
 * Why a percentile bootstrap is not run: a run has fewer samples than 1/(1 − q), so none lies
 * beyond the q-quantile, whose resamples are then little more than the maximum's. Simulated
 * here (lognormal latencies, the same distribution on both sides, the 5 % noise floor), such
 * intervals called a p99 better or worse 7–14 % of the time at 10–50 requests, against 1.5–2.5 %
 * from 100 on.
 */
export function tooFewForQuantile(q: number, n1: number, n2: number): string | undefined {
  const need = Math.ceil(1 / (1 - q) - 1e-9);
  if (n1 >= need && n2 >= need) return undefined;
  const name = `p${Number((q * 100).toFixed(1))}`;
  return `too few samples for a ${name} interval (${n1} and ${n2}): each run needs ${need}, so that one lies beyond the ${name} (more requests a run, e.g. run --requests ${need}, or replicates: A1,A2,A3 B1,B2,B3)`;
}

function deltaFor(
  def: CompareMetric,
  base: CompareInput,
  cand: CompareInput,
  random: () => number,
  resamples: number,
  minEffect: number | undefined,
): MetricDelta {
  const delta = testedDelta(def, base, cand, random, resamples, minEffect ?? noiseFloorOf(def.key).floor);
  if (delta.verdict === 'untested') delete delta.floor;
  withinNoise(delta, minEffect === undefined ? noiseFloorOf(def.key).runSpread : undefined);
  if (delta.verdict === 'untested' && delta.why === undefined && ('imported' in base || 'imported' in cand)) {
    delta.why = whyUntested(def, base, cand, delta);
  }
  return delta;
}

/**
 * A tested row that is no significant change: how many runs a side would resolve the change
 * seen, at the per-run spread the floor was calibrated with (unknown under an overridden floor).
 */
function withinNoise(delta: MetricDelta, runSpread: number | undefined): void {
  if (delta.verdict !== 'unchanged' || delta.change === undefined || !runSpread) return;
  const needed = runsToResolve(delta.change, runSpread, runSpread);
  if (needed !== undefined) delta.runsNeeded = needed;
}

function testedDelta(
  def: CompareMetric,
  base: CompareInput,
  cand: CompareInput,
  random: () => number,
  resamples: number,
  minEffect: number,
) {
  const delta: MetricDelta = {
    ...deltaOf(def, 'within-run'),
    floor: minEffect,
  };
  const baseValue = figureOf(def, base);
  const candValue = figureOf(def, cand);
  if (baseValue !== undefined) delta.baseline = baseValue;
  if (candValue !== undefined) delta.candidate = candValue;
  if (def.test === 'proportion') {
    const a = 'imported' in base ? undefined : proportionCounts(def.key, base.summary);
    const b = 'imported' in cand ? undefined : proportionCounts(def.key, cand.summary);
    if (baseValue !== undefined && candValue !== undefined) delta.change = candValue - baseValue;
    if (a && b && a.n > 0 && b.n > 0) {
      delta.ci = newcombeDifference(a.x, a.n, b.x, b.n);
      delta.verdict = verdictOf(def.direction, floored(moveOfInterval(delta.ci), delta.change, minEffect));
    }
    return delta;
  }
  const change = relative(baseValue, candValue);
  if (change !== undefined) delta.change = change;
  if (def.test === 'rate') {
    const va = rateVarianceOf(def.key, base);
    const vb = rateVarianceOf(def.key, cand);
    if (baseValue !== undefined && candValue !== undefined && va !== undefined && vb !== undefined) {
      const ci = rateRatioChange(
        { rate: baseValue, relativeVariance: va },
        { rate: candValue, relativeVariance: vb },
      );
      if (ci) {
        delta.ci = ci;
        delta.verdict = verdictOf(def.direction, floored(moveOfInterval(ci), change, minEffect));
      }
    }
    return delta;
  }
  if ((def.test === 'rank' || def.test === 'bootstrap') && def.sample && def.quantile !== undefined) {
    const a = samplesOf(base)?.[def.sample];
    const b = samplesOf(cand)?.[def.sample];
    if (!a || !b || a.length === 0 || b.length === 0) return delta;
    if (def.test === 'bootstrap') {
      const few = tooFewForQuantile(def.quantile, a.length, b.length);
      if (few) {
        delta.why = few;
        return delta;
      }
    }
    const boot = bootstrapQuantileChange(a, b, def.quantile, { random, resamples });
    if (!boot) return delta;
    // The figures shown are the summaries' (one percentile definition: the run's histograms, as
    // report and gate show them); the records only give the interval and the test. Without
    // both summary figures the change falls back to the records' own.
    if (delta.change === undefined) delta.change = boot.change;
    delta.ci = boot.ci;
    if (def.test === 'rank') {
      const mw = mannWhitneyU(a, b);
      delta.p = mw.p;
      const move = mw.p < ALPHA ? (mw.probBGreater > 0.5 ? 1 : -1) : 0;
      delta.verdict = verdictOf(def.direction, floored(move, delta.change, minEffect));
    } else {
      delta.verdict = verdictOf(def.direction, floored(moveOfInterval(boot.ci), delta.change, minEffect));
    }
  }
  return delta;
}

/**
 * Compares every run after the first against the first (the baseline).
 * Throws E_INCOMPARABLE naming each differing field unless `allowDifferent` is set.
 *
 * @example
 * const report = compareRuns([{ name: 'A', summary: a, samples: sa }, { name: 'B', summary: b, samples: sb }]);
 * report.comparisons[0].deltas.find((d) => d.key === 'ttft_p99')?.verdict; // 'better'
 */
export function compareRuns(runs: CompareInput[], options: CompareOptions = {}): CompareReport {
  const [base, ...candidates] = runs;
  if (!base || candidates.length === 0) {
    throw new GoodputError(
      'E_USAGE',
      `compare needs at least two runs, got ${runs.length}`,
      'pass a baseline result directory and one or more candidates: goodput compare RUN_A RUN_B',
    );
  }
  const resamples = options.resamples ?? 2000;
  const seed = options.seed ?? 1;
  const minEffect = options.minEffect;
  const foreign = runs.find((r) => 'imported' in r);
  if (foreign && 'imported' in foreign && !options.allowDifferent) {
    throw new GoodputError(
      'E_INCOMPARABLE',
      `${foreign.path ?? foreign.name} is ${resultNoun(foreign.imported.source.tool)}: its sampling, workload and load cannot be checked against the other runs'`,
      'make sure the runs were measured under the same workload and load, then pass --allow-different',
    );
  }
  const differencesByRun = candidates.map((c) =>
    'imported' in base || 'imported' in c ? [] : comparabilityDiffs(base.summary.meta, c.summary.meta),
  );
  if (!options.allowDifferent) {
    const lines = differencesByRun.flatMap((diffs, i) =>
      diffs.map((d) => `  ${candidates[i]?.name}: ${describeDiff(d)}`),
    );
    if (lines.length > 0) {
      throw new GoodputError(
        'E_INCOMPARABLE',
        `the runs differ in more than the configuration under test:\n${lines.join('\n')}`,
        'rerun with the same sampling, workload and load, or pass --allow-different to compare anyway',
      );
    }
  }
  const hasServer = runs.some((r) => !('imported' in r) && r.summary.server !== undefined);
  const reasoned = runs.some((r) => !('imported' in r) && r.summary.reasoning !== undefined);
  const efficient = runs.some((r) => !('imported' in r) && r.summary.efficiency !== undefined);
  const defs = COMPARE_METRICS.filter(
    (m) => (hasServer || !m.server) && (reasoned || !m.reasoning) && (efficient || !m.efficiency),
  );
  const comparisons = candidates.map((cand, i): RunComparison => {
    const random = seededRandom(seed + i);
    const deltas = defs.map((def) => deltaFor(def, base, cand, random, resamples, minEffect));
    const comparison: RunComparison = {
      candidate: refOf(cand),
      differences: differencesByRun[i] ?? [],
      deltas,
      hints: 'imported' in base || 'imported' in cand ? [] : hintsFor(deltas),
    };
    const notes = [
      ...(i === 0 ? importedNotes(base) : []),
      ...importedNotes(cand),
      ...serverNotes(base, cand),
    ];
    if (notes.length > 0) comparison.notes = notes;
    return comparison;
  });
  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'goodput.compare',
    confidence: 1 - ALPHA,
    resamples,
    seed,
    ...(minEffect !== undefined ? { minEffect } : {}),
    baseline: refOf(base),
    comparisons,
  };
}
