/**
 * Renderers for a CompareReport: a terminal table, Markdown and CSV. They return strings and
 * decide nothing.
 *
 * @module
 */

import { csvLine, markdownCell, markdownText } from '../util/index.js';
import { describeDiff } from './comparable.js';
import type { CompareReport, MetricDelta, RunComparison, Verdict } from './compare.js';

const VERDICT_TEXT: Record<Verdict, string> = {
  better: 'better',
  worse: 'worse',
  unchanged: 'no significant change',
  untested: '—',
};

/** A metric's value in its unit, compactly. */
export function formatValue(value: number | undefined, unit: MetricDelta['unit']): string {
  if (value === undefined || Number.isNaN(value)) return '—';
  if (unit === 'ratio') return value.toFixed(3);
  if (unit === 'count') return Number.isInteger(value) ? String(value) : value.toFixed(1);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  return value.toFixed(value >= 10 ? 1 : 2);
}

function signed(v: number, digits: number): string {
  const s = v.toFixed(digits);
  return v >= 0 ? `+${s}` : s.replace('-', '−');
}

/** "+12.3% [+8.1, +16.0]" or "+1.2 pp [−0.5, +2.9]". */
export function formatChange(d: MetricDelta): string {
  if (d.change === undefined || Number.isNaN(d.change)) return '—';
  const scale = 100;
  const unit = d.changeKind === 'points' ? ' pp' : '%';
  const main = `${signed(d.change * scale, 1)}${unit}`;
  if (!d.ci) return main;
  return `${main} [${signed(d.ci[0] * scale, 1)}, ${signed(d.ci[1] * scale, 1)}]`;
}

/** The interval's kind as the Δ column names it: "within run" or "across runs, n=3 vs 3". */
export function intervalLabel(c: RunComparison): string {
  const n = c.replicates;
  return n ? `across runs, n=${n.baseline} vs ${n.candidate}` : 'within run';
}

/** A side's value: the figure, or with replicates the mean ± std (CV) of its runs' figures. */
function sideValue(d: MetricDelta, side: 'baseline' | 'candidate'): string {
  const value = formatValue(d[side], d.unit);
  const spread = d.spread?.[side];
  if (!spread || spread.n < 2 || value === '—') return value;
  const cv = spread.cv === undefined ? '' : ` (CV ${(spread.cv * 100).toFixed(1)}%)`;
  return `${value} ±${formatValue(spread.std, d.unit)}${cv}`;
}

interface Table {
  header: string[];
  rows: string[][];
}

function buildTable(report: CompareReport): Table {
  const header = ['Metric', `${report.baseline.name} (baseline)`];
  for (const c of report.comparisons)
    header.push(c.candidate.name, `Δ (95% CI, ${intervalLabel(c)})`, 'Verdict');
  const first = report.comparisons[0];
  const rows = (first?.deltas ?? []).map((d, i) => {
    const row = [`${d.label} (${d.unit})`, sideValue(d, 'baseline')];
    for (const c of report.comparisons) {
      const cd = c.deltas[i] ?? d;
      row.push(sideValue(cd, 'candidate'), formatChange(cd), VERDICT_TEXT[cd.verdict]);
    }
    return row;
  });
  return { header, rows };
}

/** "no verdict on TTFT p50, TTFT p99: vllm.json has no per-request samples: no interval", one line per reason. */
function whyLines(c: CompareReport['comparisons'][number], prefix: string): string[] {
  const byWhy = new Map<string, string[]>();
  for (const d of c.deltas) {
    if (d.why === undefined) continue;
    byWhy.set(d.why, [...(byWhy.get(d.why) ?? []), d.label]);
  }
  return [...byWhy].map(([why, labels]) => `${prefix}no verdict on ${labels.join(', ')}: ${why}`);
}

/** "no significant change, with one run a side; runs a side that would resolve the change seen: TTFT p50 14, …". */
function runsNeededLine(c: RunComparison, prefix: string): string | undefined {
  const rows = c.deltas.filter((d) => d.runsNeeded !== undefined);
  if (rows.length === 0) return undefined;
  // A change a hundred runs a side cannot resolve is no change worth measuring: named together.
  const few = rows.filter((d) => (d.runsNeeded as number) <= 100);
  const many = rows.length - few.length;
  const list = few.map((d) => `${d.label} ${d.runsNeeded}`);
  if (many > 0)
    list.push(
      `more than 100 for ${few.length > 0 ? 'the other' : 'each of the'} ${many} ${many === 1 ? 'row' : 'rows'}`,
    );
  const where = c.replicates
    ? 'at the spread these runs show'
    : 'at the spread of A/A reruns of the embedded engine';
  return `${prefix}runs a side that would resolve the changes seen where none is significant (${where}): ${list.join(', ')}`;
}

function notes(report: CompareReport, bullet: string): string[] {
  const lines: string[] = [];
  // Each run's caveats first: a verdict on figures the client limited is about the client.
  // (a side of replicates: each of its runs)
  const sides = [report.baseline, ...report.comparisons.map((c) => c.candidate)];
  for (const run of sides.flatMap((side) => side.runs ?? [side])) {
    for (const c of run.caveats ?? []) lines.push(`${bullet}caveat, ${run.name}: ${c.text}`);
  }
  for (const c of report.comparisons) {
    for (const n of c.notes ?? []) lines.push(`${bullet}${n}`);
    const prefix = report.comparisons.length > 1 ? `${c.candidate.name}: ` : '';
    for (const w of whyLines(c, prefix)) lines.push(`${bullet}${w}`);
    const needed = runsNeededLine(c, prefix);
    if (needed) lines.push(`${bullet}${needed}`);
    for (const d of c.differences) lines.push(`${bullet}${c.candidate.name} differs: ${describeDiff(d)}`);
    for (const h of c.hints) lines.push(`${bullet}${c.candidate.name}: ${h}`);
  }
  return lines;
}

/** How the intervals were made and what they can see, one line per kind in the report. */
function methodLines(report: CompareReport): string[] {
  const lines: string[] = [];
  const replicates = report.comparisons.filter((c) => c.replicates);
  if (replicates.length < report.comparisons.length) {
    const floors =
      report.minEffect !== undefined
        ? `changes under ${formatFloor(report.minEffect)} count as noise (--min-effect)`
        : `with one run a side, changes under each row's noise floor count as noise (${floorList(report)}; measured in A/A reruns of the embedded engine)`;
    lines.push(
      `95% intervals within each run (from its own requests; they cannot see drift between runs): bootstrap (${report.resamples} resamples, seed ${report.seed}) for percentiles, ` +
        `Mann–Whitney U for medians, Newcombe for proportions (pp), log rate ratio for throughput; ${floors}.`,
    );
  }
  if (replicates.length > 0) {
    lines.push(
      "95% intervals across runs: each run's figure is one observation; Welch's t interval of the difference of the means; each side's mean ±std (CV).",
    );
  }
  return lines;
}

function formatFloor(f: number): string {
  return `${Number((f * 100).toFixed(1))}%`;
}

/** "TTFT p50 30%, TTFT p99 150%, …, Attainment 5 pp": the floors the report's within-run rows used. */
function floorList(report: CompareReport): string {
  const first = report.comparisons.find((c) => !c.replicates);
  const rows = (first?.deltas ?? []).filter((d) => d.floor !== undefined);
  return rows
    .map(
      (d) =>
        `${d.label} ${d.changeKind === 'points' ? `${Number(((d.floor as number) * 100).toFixed(1))} pp` : formatFloor(d.floor as number)}`,
    )
    .join(', ');
}

/** Terminal table, columns padded; hints and differences listed below. */
export function renderCompareTable(report: CompareReport): string {
  const { header, rows } = buildTable(report);
  const widths = header.map((h, col) => Math.max(h.length, ...rows.map((r) => (r[col] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, col) => (col === 0 ? c.padEnd(widths[col] ?? 0) : c.padStart(widths[col] ?? 0)))
      .join('  ')
      .trimEnd();
  const out = [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)];
  const extra = notes(report, '  ');
  if (extra.length > 0) out.push('', ...extra);
  out.push('', ...methodLines(report));
  return `${out.join('\n')}\n`;
}

/** Markdown table with the same content as the terminal table. */
export function renderCompareMarkdown(report: CompareReport): string {
  const { header, rows } = buildTable(report);
  const out = [
    `| ${header.map(markdownCell).join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(markdownCell).join(' | ')} |`),
  ];
  const extra = notes(report, '- ').map(markdownText);
  if (extra.length > 0) out.push('', ...extra);
  out.push('', ...methodLines(report).map((l) => `_${markdownText(l)}_`));
  return `${out.join('\n')}\n`;
}

/** Columns of `compare --format csv`: one row per candidate and metric. */
export const COMPARE_CSV_COLUMNS: readonly string[] = [
  'baseline',
  'candidate',
  'metric',
  'label',
  'unit',
  'baseline_value',
  'candidate_value',
  'change_kind',
  'change',
  'ci_low',
  'ci_high',
  'p',
  'verdict',
  'why',
  'interval_kind',
  'noise_floor',
  'runs_needed',
  'baseline_runs',
  'baseline_std',
  'baseline_cv',
  'candidate_runs',
  'candidate_std',
  'candidate_cv',
];

/**
 * The comparison as CSV (RFC 4180): one row per candidate and metric, values in the metric's
 * unit, the change as a fraction (relative) or in points (proportions), its interval and what
 * the interval can see (`interval_kind`: within-run or across-runs), the verdict, the noise
 * floor (one run a side) and the runs a side that would resolve a change that is not
 * significant; with replicates each side's runs, std and CV. Empty fields are what was not
 * measured.
 */
export function renderCompareCsv(report: CompareReport): string {
  let out = csvLine(COMPARE_CSV_COLUMNS);
  for (const c of report.comparisons) {
    for (const d of c.deltas) {
      out += csvLine([
        report.baseline.name,
        c.candidate.name,
        d.key,
        d.label,
        d.unit,
        d.baseline,
        d.candidate,
        d.changeKind,
        d.change,
        d.ci?.[0],
        d.ci?.[1],
        d.p,
        d.verdict,
        d.why,
        d.intervalKind,
        d.floor,
        d.runsNeeded,
        d.spread?.baseline.n,
        d.spread?.baseline.std,
        d.spread?.baseline.cv,
        d.spread?.candidate.n,
        d.spread?.candidate.std,
        d.spread?.candidate.cv,
      ]);
    }
  }
  return out;
}
