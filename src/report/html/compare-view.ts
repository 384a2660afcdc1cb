/**
 * The comparison matrix of a multi-run report: compare's statistics (change, 95% interval,
 * verdict per metric) shaped for the report's table. Pure.
 *
 * @module
 */

import {
  compareRuns,
  describeDiff,
  formatChange,
  formatValue,
  intervalLabel,
  type RunComparison,
} from '../../compare/index.js';
import type { ComparisonView, ReportRun } from './model.js';

type Tone = 'better' | 'worse' | 'neutral';

const toneOf = (verdict: string): Tone =>
  verdict === 'better' ? 'better' : verdict === 'worse' ? 'worse' : 'neutral';

/** One candidate's overall verdict: worse on anything significant wins, then better, else unchanged. */
export function overallVerdict(c: RunComparison): { verdict: string; tone: Tone } {
  const worse = c.deltas.filter((d) => d.verdict === 'worse').map((d) => d.label);
  const better = c.deltas.filter((d) => d.verdict === 'better').map((d) => d.label);
  if (worse.length > 0) return { verdict: `worse: ${worse.join(', ')}`, tone: 'worse' };
  if (better.length > 0) return { verdict: `better: ${better.join(', ')}`, tone: 'better' };
  return { verdict: 'no significant change', tone: 'neutral' };
}

/**
 * Compares every run against the first with compare's tests. Runs whose sampling, workload
 * or load differ are still compared; the differences are named in the note.
 */
export function buildComparison(runs: ReportRun[]): ComparisonView {
  const report = compareRuns(
    runs.map((r) => ({ name: r.label, summary: r.summary, ...(r.samples ? { samples: r.samples } : {}) })),
    { allowDifferent: true, resamples: 1000 },
  );
  const base = runs[0]!;
  const first = report.comparisons[0]!;
  const rows = first.deltas.map((d, metricIndex) => ({
    metric: d.unit === 'ratio' || d.unit === 'count' ? d.label : `${d.label} (${d.unit})`,
    cells: [
      { text: formatValue(d.baseline, d.unit), tone: 'neutral' as Tone },
      ...report.comparisons.map((c) => {
        const cd = c.deltas[metricIndex]!;
        return {
          text: `${formatValue(cd.candidate, cd.unit)} (${formatChange(cd)})`,
          tone: toneOf(cd.verdict),
        };
      }),
    ],
  }));
  const differences = report.comparisons.flatMap((c) =>
    c.differences.map((d) => `${c.candidate.name}: ${describeDiff(d)}`),
  );
  const hints = report.comparisons.flatMap((c) => c.hints.map((h) => `${c.candidate.name}: ${h}`));
  const notes = [
    `Change against ${base.label} with its ${Math.round(report.confidence * 100)}% confidence interval (${[...new Set(report.comparisons.map(intervalLabel))].join('; ')}${report.comparisons.some((c) => !c.replicates) ? ': a within-run interval cannot see drift between runs, and a change inside the noise floor is no verdict' : ''}); coloured when significant.`,
    ...(differences.length > 0 ? [`Not like for like: ${differences.join('; ')}.`] : []),
    ...hints,
  ];
  return {
    source: 'compare',
    baseline: base.label,
    columns: [`${base.label} (baseline)`, ...report.comparisons.map((c) => c.candidate.name)],
    rows,
    verdicts: report.comparisons.map((c) => ({ run: c.candidate.name, ...overallVerdict(c) })),
    note: notes.join(' '),
  };
}
