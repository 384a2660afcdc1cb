/**
 * The whole analysis from an experiment file and its runs' summaries: one row per
 * configuration (a failed one says so), one cell per matrix metric, the reading, the verdicts,
 * the conclusion column and the winner. Pure: the I/O is in load.ts.
 *
 * @module
 */

import { metric } from '../../metrics/index.js';
import type { ExperimentConfiguration, ExperimentFile, Finding } from '../../types.js';
import { type AnalysedRun, matrixCells, WITHIN_RUN_RESAMPLES, withinRunTallies } from './cells.js';
import { classAnalyses, classMetrics } from './classes.js';
import { MATRIX_IDS, matrixMetric, readMetric } from './metrics.js';
import { readConfiguration } from './reading.js';
import type { ConfigurationAnalysis, ExperimentAnalysis, FindingTally } from './types.js';
import { chooseWinner, conclusionOf, objectiveOf, rowVerdict } from './winner.js';

export interface AnalysisInput {
  experiment: ExperimentFile;
  /** The finished runs of each configuration, by slug. */
  runs: ReadonlyMap<string, readonly AnalysedRun[]>;
  /** Runs that finished but could not be read (folder → why), kept as failed runs. */
  unreadable?: ReadonlyMap<string, string>;
  dir?: string;
  /** Bootstrap resamples of the within-run compare (default WITHIN_RUN_RESAMPLES, 300). */
  resamples?: number;
}

/** "Baseline", "Exp-1", "Exp-2"… in the experiment's order. */
export function configurationLabels(configs: readonly ExperimentConfiguration[]): string[] {
  let k = 0;
  const hasBaseline = configs.some((c) => c.baseline);
  return configs.map((c, i) => (c.baseline || (!hasBaseline && i === 0) ? 'Baseline' : `Exp-${++k}`));
}

/** Diagnosis finding kinds across runs: how many runs found each. */
export function tallyFindings(runs: readonly AnalysedRun[]): FindingTally[] {
  const byKind = new Map<Finding['kind'], FindingTally>();
  for (const run of runs) {
    const kinds = new Set<Finding['kind']>();
    for (const f of run.summary.diagnosis ?? []) {
      if (kinds.has(f.kind)) continue;
      kinds.add(f.kind);
      const t = byKind.get(f.kind) ?? { kind: f.kind, title: f.title, runs: 0, of: runs.length };
      t.runs++;
      byKind.set(f.kind, t);
    }
  }
  return [...byKind.values()].sort((a, b) => b.runs - a.runs);
}

/**
 * The flags that define a configuration: the embedded engine's, or the serve command's without
 * the port goodput chose for this start (`--port 41234`, `--http-port=41234`: no property of the
 * configuration).
 */
export function argsOf(c: ExperimentConfiguration): string[] | undefined {
  if (c.engineArgs) return c.engineArgs;
  if (!c.serve) return undefined;
  const port = String(c.serve.port);
  const argv = c.serve.argv;
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    const portFlag = /^--?[\w-]*port$/i;
    if (portFlag.test(word) && argv[i + 1] === port) {
      i++;
      continue;
    }
    if (word === `${word.split('=')[0]}=${port}` && portFlag.test(word.split('=')[0] as string)) continue;
    out.push(word);
  }
  return out;
}

function failureOf(c: ExperimentConfiguration, ok: number, unreadable: string[]): string | undefined {
  if (c.failure) return `${c.failure.code}: ${c.failure.message}`;
  if (ok > 0) return undefined;
  const failed = c.runs.find((r) => r.error);
  if (failed?.error) return `${failed.error.code}: ${failed.error.message}`;
  if (unreadable.length > 0) return unreadable[0];
  return c.status === 'pending' ? 'not measured yet (resume the experiment)' : 'no run finished';
}

/** Builds the analysis (see the module comment). */
export function buildAnalysis(input: AnalysisInput): ExperimentAnalysis {
  const { experiment } = input;
  const objective = objectiveOf(experiment.plan);
  const labels = configurationLabels(experiment.configurations);
  const baselineIndex = Math.max(0, labels.indexOf('Baseline'));
  const baselineConfig = experiment.configurations[baselineIndex];
  const runsOf = (c: ExperimentConfiguration | undefined) => (c ? (input.runs.get(c.slug) ?? []) : []);
  const baselineRuns = runsOf(baselineConfig);
  const allRuns = experiment.configurations.flatMap((c) => runsOf(c));
  // Reasoning phases only when some run reasoned (without it TTFAT is TTFT again), as compare does.
  const reasoned = allRuns.some((r) => r.summary.reasoning !== undefined);
  const measured = MATRIX_IDS.filter(
    (id) =>
      (reasoned || !metric(id).reasoning) && allRuns.some((r) => readMetric(id, r.summary) !== undefined),
  );
  const classMetricList = classMetrics(allRuns);
  const classIds = classMetricList.map((m) => m.id);
  const baselineFindings = tallyFindings(baselineRuns);
  const notes: string[] = [];
  const rows = experiment.configurations.map((c, i): ConfigurationAnalysis => {
    const runs = runsOf(c);
    const isBaseline = i === baselineIndex;
    const unreadable = c.runs
      .filter((r) => input.unreadable?.has(r.dir))
      .map((r) => input.unreadable?.get(r.dir) ?? '');
    const failure = failureOf(c, runs.length, unreadable);
    const row: ConfigurationAnalysis = {
      name: c.name,
      slug: c.slug,
      label: labels[i] ?? c.name,
      baseline: isBaseline,
      params: c.params,
      status: failure === undefined ? 'ok' : 'failed',
      runs: {
        ok: runs.length,
        failed: c.runs.length - runs.length - c.runs.filter((r) => r.status === 'pending').length,
        total: c.runs.length,
        dirs: runs.map((r) => r.dir),
      },
      cells: {},
      verdict: isBaseline ? 'baseline' : 'failed',
      hypotheses: [],
      findings: tallyFindings(runs),
      conclusion: '',
    };
    const args = argsOf(c);
    if (args) row.args = args;
    if (failure !== undefined) {
      row.failure = failure;
      row.conclusion = `failed: ${failure}`;
      return row;
    }
    const compareWith = isBaseline || baselineRuns.length === 0 ? undefined : baselineRuns;
    const within = compareWith
      ? withinRunTallies(compareWith, runs, { resamples: input.resamples })
      : undefined;
    row.cells = matrixCells(measured, runs, compareWith);
    if (classIds.length > 0) {
      const classes = classAnalyses(runs, compareWith, classIds);
      if (classes.length > 0) row.classes = classes;
    }
    for (const [id, cell] of Object.entries(row.cells)) {
      const w = within?.get(id);
      if (w) cell.withinRun = w;
    }
    if (row.runs.ok < c.runs.length && row.runs.failed > 0)
      notes.push(
        `${row.label} (${c.name}): ${row.runs.failed} of ${c.runs.length} runs failed; its figures are from ${row.runs.ok}`,
      );
    if (isBaseline) {
      row.conclusion = 'baseline';
      return row;
    }
    if (!compareWith) {
      row.verdict = 'untested';
      row.conclusion = 'untested: the baseline has no finished run';
      return row;
    }
    row.hypotheses = readConfiguration({ cells: row.cells, findings: row.findings, baselineFindings });
    row.verdict = rowVerdict(row.cells, objective);
    row.conclusion = conclusionOf(row.verdict, row.cells, row.hypotheses, objective);
    return row;
  });
  const winner = chooseWinner(rows, objective);
  const out: ExperimentAnalysis = {
    schemaVersion: 1,
    kind: 'goodput.experiment-analysis',
    name: experiment.name,
    virtual: experiment.virtual,
    runsPerConfiguration: experiment.runsPerConfiguration,
    order: { ...experiment.order },
    objective,
    withinRunResamples: input.resamples ?? WITHIN_RUN_RESAMPLES,
    metrics: measured.map(matrixMetric),
    ...(classMetricList.length > 0 ? { classMetrics: classMetricList } : {}),
    configurations: rows,
    winner,
    notes,
  };
  if (input.dir !== undefined) out.dir = input.dir;
  if (experiment.status !== 'done') notes.push(`the experiment is ${experiment.status}: rows may lack runs`);
  if (experiment.runsPerConfiguration < 2)
    notes.push('one run per configuration: no interval across runs, so no verdict (set runs: 3 or more)');
  return out;
}
