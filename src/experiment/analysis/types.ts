/**
 * The experiment's analysis as data: the metrics matrix (per configuration and metric, the
 * across-run spread and the difference from the baseline), the reading (hypotheses) and the
 * winner. Persisted as `analysis.json` / `--json` (schemaVersion 1); renderers read only this.
 *
 * @module
 */

import type { RunSpread } from '../../compare/index.js';
import type { MetricUnit } from '../../metrics/index.js';
import type { Finding, ServeParamValue } from '../../types.js';

/** Across runs: better or worse only when the interval of the difference excludes zero. */
export type AcrossVerdict = 'better' | 'worse' | 'no significant change' | 'untested';

/** The within-run bootstrap (`compare`, run k of the configuration vs run k of the baseline), tallied. */
export interface WithinRunTally {
  pairs: number;
  better: number;
  worse: number;
  unchanged: number;
  untested: number;
}

/** A configuration against the baseline on one metric, across runs (compare's replicate row). */
export interface AcrossDifference {
  verdict: AcrossVerdict;
  /** candidate mean − baseline mean, in the metric's unit. */
  diff?: number;
  /** 'relative': of the baseline's mean; 'points': a proportion's difference. */
  changeKind: 'relative' | 'points';
  change?: number;
  /** Welch's 95 % interval of `change`. */
  ci?: [number, number];
  /** Runs per side that would resolve the difference seen, when it is not significant. */
  runsNeeded?: number;
  /** Why there is no verdict. */
  why?: string;
}

/** One metric of one configuration. */
export interface MatrixCell {
  metric: string;
  /** Per-run values, in repeat order (the runs that measured it). */
  values: number[];
  /** Mean, std, CV and the t-based 95 % interval across runs. */
  spread: RunSpread;
  /** Non-baseline configurations: the across-run difference from the baseline and its verdict. */
  vsBaseline?: AcrossDifference;
  /** Non-baseline configurations: the within-run bootstrap, labelled within-run (one run vs one run). */
  withinRun?: WithinRunTally;
}

/** A metric of the matrix, as the catalogue defines it. */
export interface MatrixMetric {
  id: string;
  label: string;
  unit: MetricUnit;
  better: 'lower' | 'higher';
}

export type HypothesisKind =
  | 'prefill-bound'
  | 'prefill-starved'
  | 'decode-dragged'
  | 'decode-relieved'
  | 'kv-pressure'
  | 'kv-relief'
  | 'kv-fragmentation'
  | 'prefix-reuse';

/** One rule of the documents, stated for a configuration from its significant changes. */
export interface Hypothesis {
  kind: HypothesisKind;
  /** The rule in words, e.g. "TTFT P99 down with TPOT flat: the bottleneck was prefill". */
  text: string;
  /** The significant changes it rests on, e.g. "TTFT P99 −38% [−45, −30]". */
  evidence: string[];
  /** What the diagnosis of the runs says about it, when it found the matching bottleneck. */
  diagnosis?: string;
}

/** A diagnosis finding kind seen in some of a configuration's runs. */
export interface FindingTally {
  kind: Finding['kind'];
  title: string;
  runs: number;
  of: number;
}

export type RowVerdict =
  | 'baseline'
  | 'better'
  | 'worse'
  | 'mixed'
  | 'no significant change'
  | 'untested'
  | 'failed';

/** One traffic class of a configuration: its figures across runs, read through the class view (classes.ts). */
export interface ClassAnalysis {
  name: string;
  /** The class's SLO sets an objective (its attainment then judges something). */
  sloSet: boolean;
  /** Per class metric (ExperimentAnalysis.classMetrics), against the baseline's same class. */
  cells: Record<string, MatrixCell>;
}

/** One configuration's row. */
export interface ConfigurationAnalysis {
  name: string;
  slug: string;
  /** "Baseline", "Exp-1", "Exp-2"… in the experiment's order. */
  label: string;
  baseline: boolean;
  params: Record<string, ServeParamValue>;
  /** The serving flags that define it: the embedded engine's, or the serve command's. */
  args?: string[];
  status: 'ok' | 'failed';
  /** Why the configuration (or all its runs) failed. */
  failure?: string;
  runs: { ok: number; failed: number; total: number; dirs: string[] };
  cells: Record<string, MatrixCell>;
  /** Its runs' traffic classes, in their order (absent: the runs had none). */
  classes?: ClassAnalysis[];
  verdict: RowVerdict;
  hypotheses: Hypothesis[];
  findings: FindingTally[];
  /** The conclusion column, e.g. "better: TTFT P99 −38% [−45, −30]; prefill-bound". */
  conclusion: string;
}

/** What the winner is chosen on. */
export interface Objective {
  /** Catalogue ids, in order: the first one some configuration is significantly better on decides. */
  metrics: string[];
  /** A winner may not be significantly worse than the baseline on any of these. */
  guarded: string[];
  source: 'plan' | 'default';
}

export interface Winner {
  /** The winning configuration's name; absent: no conclusion. */
  name?: string;
  label?: string;
  /** The metric it won on. */
  metric?: string;
  reason: string;
}

export interface ExperimentAnalysis {
  schemaVersion: 1;
  kind: 'goodput.experiment-analysis';
  name: string;
  /** The experiment folder, as given. */
  dir?: string;
  virtual: boolean;
  runsPerConfiguration: number;
  order: { mode: string; seed?: number };
  objective: Objective;
  /** Bootstrap resamples of the within-run compare. */
  withinRunResamples: number;
  /** The matrix's metrics that some configuration measured, in display order. */
  metrics: MatrixMetric[];
  /** The metrics of each traffic class's cells (absent: no run had classes). */
  classMetrics?: MatrixMetric[];
  configurations: ConfigurationAnalysis[];
  winner: Winner;
  notes: string[];
}
