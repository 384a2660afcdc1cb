/**
 * Renderers for a CompareReport: a terminal table, Markdown and CSV. They return strings and
 * decide nothing.
 *
 * @module
 */

import { csvLine, markdownCell, markdownText } from '../util/index.js';
import { describeDiff } from './comparable.js';
import type { CompareReport, MetricDelta, Verdict } from './compare.js';

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

interface Table {
  header: string[];
  rows: string[][];
}

function buildTable(report: CompareReport): Table {
  const header = ['Metric', `${report.baseline.name} (baseline)`];
  for (const c of report.comparisons) header.push(c.candidate.name, 'Δ (95% CI)', 'Verdict');
  const first = report.comparisons[0];
  const rows = (first?.deltas ?? []).map((d, i) => {
    const row = [`${d.label} (${d.unit})`, formatValue(d.baseline, d.unit)];
    for (const c of report.comparisons) {
      const cd = c.deltas[i] ?? d;
      row.push(formatValue(cd.candidate, cd.unit), formatChange(cd), VERDICT_TEXT[cd.verdict]);
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

function notes(report: CompareReport, bullet: string): string[] {
  const lines: string[] = [];
  // Each run's caveats first: a verdict on figures the client limited is about the client.
  for (const run of [report.baseline, ...report.comparisons.map((c) => c.candidate)]) {
    for (const c of run.caveats ?? []) lines.push(`${bullet}caveat, ${run.name}: ${c.text}`);
  }
  for (const c of report.comparisons) {
    for (const n of c.notes ?? []) lines.push(`${bullet}${n}`);
    const prefix = report.comparisons.length > 1 ? `${c.candidate.name}: ` : '';
    for (const w of whyLines(c, prefix)) lines.push(`${bullet}${w}`);
    for (const d of c.differences) lines.push(`${bullet}${c.candidate.name} differs: ${describeDiff(d)}`);
    for (const h of c.hints) lines.push(`${bullet}${c.candidate.name}: ${h}`);
  }
  return lines;
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
  out.push(
    '',
    `95% intervals: bootstrap (${report.resamples} resamples, seed ${report.seed}) for percentiles, ` +
      'Mann–Whitney U for medians, Newcombe for proportions (pp), log rate ratio for throughput; ' +
      `changes under ${report.minEffect * 100}% count as noise.`,
  );
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
  out.push(
    '',
    `_95% intervals: bootstrap (${report.resamples} resamples, seed ${report.seed}) for percentiles, ` +
      'Mann–Whitney U for medians, Newcombe for proportions (pp), log rate ratio for throughput; ' +
      `changes under ${report.minEffect * 100}% count as noise._`,
  );
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
];

/**
 * The comparison as CSV (RFC 4180): one row per candidate and metric, values in the metric's
 * unit, the change as a fraction (relative) or in points (proportions), its interval, the
 * verdict. Empty fields are what was not measured.
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
      ]);
    }
  }
  return out;
}
