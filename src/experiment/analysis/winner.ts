/**
 * The objective, each row's verdict and conclusion, and the winner. Pure.
 *
 * The winner is the configuration significantly better than the baseline on the objective
 * (across runs: the interval of the difference excludes zero) without being significantly
 * worse on any guarded metric. The default objective is goodput first: request goodput, then
 * TTFT P99, then TPOT P99, then output throughput — the first of these on which some eligible
 * configuration is significantly better decides, and among several the best mean wins. A plan's
 * `objective:` (a catalogue id, or `{ metric, guard }`) replaces the list. Else: no conclusion.
 *
 * @module
 */

import { GoodputError } from '../../errors.js';
import { METRICS, metric, metricById } from '../../metrics/index.js';
import { didYouMean } from '../../util/index.js';
import { describeChange } from './format.js';
import { matrixMetric } from './metrics.js';
import type {
  ConfigurationAnalysis,
  Hypothesis,
  MatrixCell,
  Objective,
  RowVerdict,
  Winner,
} from './types.js';

export const DEFAULT_OBJECTIVE = ['request_goodput', 'ttft_p99', 'tpot_p99', 'output_throughput'] as const;
export const DEFAULT_GUARDED = [
  'ttft_p99',
  'tpot_p99',
  'request_goodput',
  'attainment',
  'error_rate',
] as const;

/** Words a plan may use for a catalogue id. */
const ALIASES: Record<string, string> = { goodput: 'request_goodput', throughput: 'output_throughput' };

function metricId(text: string, where: string): string {
  const id = ALIASES[text] ?? text;
  if (metricById(id)) return id;
  throw new GoodputError(
    'E_CONFIG',
    `${where}: unknown metric '${text}'${didYouMean(
      text,
      METRICS.map((m) => m.id),
    )}`,
    'name a catalogue metric such as request_goodput, ttft_p99, tpot_p99 or output_throughput',
  );
}

/** The objective: the plan's `objective:` (string or `{ metric, guard }`), else goodput first. */
export function objectiveOf(plan: unknown): Objective {
  const given =
    typeof plan === 'object' && plan !== null ? (plan as { objective?: unknown }).objective : undefined;
  if (given === undefined)
    return { metrics: [...DEFAULT_OBJECTIVE], guarded: [...DEFAULT_GUARDED], source: 'default' };
  if (typeof given === 'string') {
    const id = metricId(given, 'objective');
    return { metrics: [id], guarded: DEFAULT_GUARDED.filter((g) => g !== id), source: 'plan' };
  }
  if (
    typeof given === 'object' &&
    given !== null &&
    typeof (given as { metric?: unknown }).metric === 'string'
  ) {
    const o = given as { metric: string; guard?: unknown };
    const id = metricId(o.metric, 'objective.metric');
    const guard = Array.isArray(o.guard)
      ? o.guard.map((g, i) => metricId(String(g), `objective.guard[${i}]`))
      : DEFAULT_GUARDED.filter((g) => g !== id);
    return { metrics: [id], guarded: guard.filter((g) => g !== id), source: 'plan' };
  }
  throw new GoodputError(
    'E_CONFIG',
    'objective: must be a metric id or { metric, guard }',
    'e.g. objective: ttft_p99, or objective: { metric: request_goodput, guard: [tpot_p99, error_rate] }',
  );
}

function verdictOn(row: ConfigurationAnalysis, id: string) {
  return row.cells[id]?.vsBaseline?.verdict;
}

/** The row's verdict on the objective and guarded metrics: better, worse, mixed or no significant change. */
export function rowVerdict(cells: Record<string, MatrixCell>, objective: Objective): RowVerdict {
  const keys = [...new Set([...objective.metrics, ...objective.guarded])];
  const verdicts = keys.map((id) => cells[id]?.vsBaseline?.verdict).filter((v) => v !== undefined);
  if (verdicts.length === 0 || verdicts.every((v) => v === 'untested')) return 'untested';
  const better = verdicts.includes('better');
  const worse = verdicts.includes('worse');
  if (better && worse) return 'mixed';
  if (better) return 'better';
  if (worse) return 'worse';
  return 'no significant change';
}

/**
 * The conclusion column: the verdict, the significant changes of the objective and guarded
 * metrics, the hypotheses' short names; for no significant change, the runs that would resolve
 * the largest difference seen.
 */
export function conclusionOf(
  verdict: RowVerdict,
  cells: Record<string, MatrixCell>,
  hypotheses: readonly Hypothesis[],
  objective: Objective,
): string {
  const keys = [...new Set([...objective.metrics, ...objective.guarded])];
  const changed = keys.filter((id) => {
    const v = cells[id]?.vsBaseline?.verdict;
    return v === 'better' || v === 'worse';
  });
  const parts = changed.map((id) => describeChange(matrixMetric(id), cells[id] as MatrixCell));
  if (verdict === 'no significant change' || verdict === 'untested') {
    const open = keys
      .map((id) => ({ id, cell: cells[id] }))
      .filter((x) => x.cell?.vsBaseline?.runsNeeded !== undefined)
      .sort(
        (a, b) => Math.abs(b.cell?.vsBaseline?.change ?? 0) - Math.abs(a.cell?.vsBaseline?.change ?? 0),
      )[0];
    if (open?.cell)
      parts.push(
        `${describeChange(matrixMetric(open.id), open.cell)} would need ${open.cell.vsBaseline?.runsNeeded} runs per side`,
      );
  }
  const tags = hypotheses.map((h) => h.kind);
  const detail = [...parts, ...tags].join('; ');
  return detail ? `${verdict}: ${detail}` : verdict;
}

/** The winner, or no conclusion with the reason. */
export function chooseWinner(rows: readonly ConfigurationAnalysis[], objective: Objective): Winner {
  const baseline = rows.find((r) => r.baseline);
  if (!baseline || baseline.status === 'failed')
    return { reason: 'no conclusion: the baseline has no finished run to compare with' };
  const eligible = rows.filter(
    (r) => !r.baseline && r.status === 'ok' && !objective.guarded.some((g) => verdictOn(r, g) === 'worse'),
  );
  for (const id of objective.metrics) {
    const better = eligible.filter((r) => verdictOn(r, id) === 'better');
    if (better.length === 0) continue;
    const sign = metric(id).better === 'higher' ? 1 : -1;
    const best = better.reduce((a, b) =>
      sign * ((b.cells[id]?.spread.mean ?? 0) - (a.cells[id]?.spread.mean ?? 0)) > 0 ? b : a,
    );
    const others = objective.guarded.filter((g) => g !== id);
    const guard =
      others.length > 0
        ? `, and not significantly worse on ${others.map((g) => matrixMetric(g).label).join(', ')}`
        : '';
    return {
      name: best.name,
      label: best.label,
      metric: id,
      reason: `significantly better than the baseline on ${describeChange(matrixMetric(id), best.cells[id] as MatrixCell)} across runs${guard}`,
    };
  }
  const names = objective.metrics.map((id) => matrixMetric(id).label).join(', ');
  return {
    reason: `no conclusion: no configuration is significantly better than the baseline on ${names} across runs without being significantly worse on a guarded metric`,
  };
}
