/**
 * The analysis as a terminal table and as Markdown: the documents' columns (configuration,
 * TTFT P99, TPOT P99, goodput and SLO attainment, KV fragmentation, conclusion) plus output
 * throughput and per-user tokens/s, then the reading, the winner and the notes; Markdown adds
 * the per-metric detail (mean, std, CV, interval, difference, runs needed, within-run).
 * Renderers return strings and decide nothing.
 *
 * @module
 */

import { labelWithUnit, metric } from '../../metrics/index.js';
import { markdownCell, markdownText } from '../../util/index.js';
import { describeChange, formatDifference, formatSpread, formatValue } from './format.js';
import { HEADLINE_MATRIX_IDS } from './metrics.js';
import type { ConfigurationAnalysis, ExperimentAnalysis, MatrixCell, WithinRunTally } from './types.js';

/** "Exp-1 (mnbt-2048)", "Baseline", with " ★" on the winner. */
export function rowName(a: ExperimentAnalysis, r: ConfigurationAnalysis): string {
  const name = r.name === r.label ? r.label : `${r.label} (${r.name})`;
  return a.winner.name === r.name ? `${name} ★` : name;
}

function mainTable(a: ExperimentAnalysis): { header: string[]; rows: string[][] } {
  const header = [
    'Configuration',
    ...HEADLINE_MATRIX_IDS.map((id) => labelWithUnit(metric(id))),
    'Conclusion',
  ];
  const rows = a.configurations.map((r) => [
    rowName(a, r),
    ...HEADLINE_MATRIX_IDS.map((id) =>
      r.status === 'failed' ? '—' : formatSpread(r.cells[id], metric(id).unit),
    ),
    r.conclusion,
  ]);
  return { header, rows };
}

/**
 * One row per configuration and traffic class: the class's figures across runs (against its
 * own SLO) and its significant changes from the baseline's same class. Empty without classes.
 */
function classTable(a: ExperimentAnalysis): { header: string[]; rows: string[][] } {
  const metrics = a.classMetrics ?? [];
  const header = [
    'Configuration',
    'Class',
    ...metrics.map((m) => labelWithUnit(metric(m.id))),
    'vs baseline',
  ];
  const rows = a.configurations.flatMap((r) =>
    (r.classes ?? []).map((c) => {
      const changes = metrics
        .filter((m) => {
          const v = c.cells[m.id]?.vsBaseline?.verdict;
          return v === 'better' || v === 'worse';
        })
        .map((m) => `${c.cells[m.id]!.vsBaseline!.verdict}: ${describeChange(m, c.cells[m.id]!)}`);
      return [
        rowName(a, r),
        c.name,
        ...metrics.map((m) => formatSpread(c.cells[m.id], m.unit)),
        r.baseline ? 'baseline' : changes.length > 0 ? changes.join('; ') : 'no significant change',
      ];
    }),
  );
  return { header, rows };
}

const CLASS_TITLE = "Per traffic class (each class's requests, against its own SLO):";

function footnote(a: ExperimentAnalysis): string {
  return (
    `Mean ± half the Student-t 95% interval across ${a.runsPerConfiguration} runs per configuration; ` +
    "a configuration is better or worse than the baseline only when Welch's 95% interval of the difference " +
    'excludes zero, otherwise "no significant change" with the runs per side that would resolve it.'
  );
}

function readingLines(a: ExperimentAnalysis): string[] {
  const out: string[] = [];
  for (const r of a.configurations) {
    for (const h of r.hypotheses) {
      out.push(
        `${rowName(a, r)}: ${h.text} (${h.evidence.join('; ')})${h.diagnosis ? `; diagnosis: ${h.diagnosis}` : ''}`,
      );
    }
  }
  return out;
}

function winnerLine(a: ExperimentAnalysis): string {
  const row = a.configurations.find((r) => r.name === a.winner.name);
  return row ? `Winner: ${rowName(a, row)}: ${a.winner.reason}.` : `Winner: ${a.winner.reason}.`;
}

/** A terminal table: text columns (the first `left`, and the last) left-aligned, figures right-aligned. */
function terminalTable(header: string[], rows: string[][], left: number): string[] {
  const widths = header.map((h, col) => Math.max(h.length, ...rows.map((r) => (r[col] ?? '').length)));
  const last = header.length - 1;
  const line = (cells: string[]) =>
    cells
      .map((c, col) =>
        col < left || col === last ? c.padEnd(widths[col] ?? 0) : c.padStart(widths[col] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)];
}

/** The matrix as a terminal table, the reading, the winner and the notes. */
export function renderExperimentTable(a: ExperimentAnalysis): string {
  const { header, rows } = mainTable(a);
  const out = [`Experiment ${a.name}`, '', ...terminalTable(header, rows, 1)];
  const classes = classTable(a);
  if (classes.rows.length > 0) out.push('', CLASS_TITLE, ...terminalTable(classes.header, classes.rows, 2));
  const reading = readingLines(a);
  if (reading.length > 0)
    out.push('', 'Reading (from significant changes only):', ...reading.map((l) => `  ${l}`));
  out.push('', winnerLine(a));
  for (const n of a.notes) out.push(`note: ${n}`);
  out.push('', footnote(a));
  return `${out.join('\n')}\n`;
}

function withinText(t: WithinRunTally | undefined): string {
  if (!t || t.pairs === 0) return '—';
  const parts = (['better', 'worse', 'unchanged', 'untested'] as const)
    .filter((k) => t[k] > 0)
    .map((k) => `${k === 'unchanged' ? 'no change' : k === 'untested' ? 'untested' : k} ${t[k]}/${t.pairs}`);
  return parts.join(', ');
}

function ciText(cell: MatrixCell, unit: Parameters<typeof formatValue>[1]): string {
  const ci = cell.spread.ci;
  return ci ? `[${formatValue(ci[0], unit)}, ${formatValue(ci[1], unit)}]` : '—';
}

/** One row per configuration and metric: the statistics behind the main table. */
export function detailRows(a: ExperimentAnalysis): string[][] {
  const rows: string[][] = [];
  for (const m of a.metrics) {
    for (const r of a.configurations) {
      const cell = r.cells[m.id];
      if (!cell) continue;
      const vs = cell.vsBaseline;
      rows.push([
        labelWithUnit(metric(m.id)),
        rowName(a, r),
        formatValue(cell.spread.mean, m.unit),
        formatValue(cell.spread.std, m.unit),
        cell.spread.cv === undefined ? '—' : `${(cell.spread.cv * 100).toFixed(1)}%`,
        ciText(cell, m.unit),
        vs ? formatDifference(vs, m.unit) : '—',
        vs ? vs.verdict : '—',
        vs?.runsNeeded === undefined ? '—' : String(vs.runsNeeded),
        withinText(cell.withinRun),
      ]);
    }
  }
  return rows;
}

export const DETAIL_HEADER = [
  'Metric',
  'Configuration',
  'Mean',
  'Std',
  'CV',
  '95% interval',
  'Δ vs baseline [95%]',
  'Across runs',
  'Runs needed',
  'Within-run (run vs run)',
];

function markdownTable(header: string[], rows: string[][], align: (col: number) => string): string[] {
  return [
    `| ${header.map(markdownCell).join(' | ')} |`,
    `|${header.map((_, i) => ` ${align(i)} `).join('|')}|`,
    ...rows.map((r) => `| ${r.map(markdownCell).join(' | ')} |`),
  ];
}

/** The matrix as Markdown (main table, reading, winner, notes), with the per-metric detail when asked. */
export function renderExperimentMarkdown(a: ExperimentAnalysis, options: { details?: boolean } = {}): string {
  const { header, rows } = mainTable(a);
  const last = header.length - 1;
  const out = markdownTable(header, rows, (i) => (i === 0 || i === last ? '---' : '---:'));
  const classes = classTable(a);
  if (classes.rows.length > 0) {
    const end = classes.header.length - 1;
    out.push('', CLASS_TITLE, '');
    out.push(...markdownTable(classes.header, classes.rows, (i) => (i < 2 || i === end ? '---' : '---:')));
  }
  const reading = readingLines(a);
  if (reading.length > 0)
    out.push(
      '',
      'Reading (from significant changes only):',
      '',
      ...reading.map((l) => `- ${markdownText(l)}`),
    );
  out.push('', markdownText(winnerLine(a)));
  for (const n of a.notes) out.push('', `_Note: ${markdownText(n)}_`);
  out.push('', `_${markdownText(footnote(a))}_`);
  if (options.details !== false) {
    out.push('', '<details><summary>Every metric across runs</summary>', '');
    out.push(...markdownTable(DETAIL_HEADER, detailRows(a), (i) => (i < 2 || i >= 7 ? '---' : '---:')));
    out.push(
      '',
      `Within-run: \`goodput compare\`'s bootstrap (${a.withinRunResamples} resamples) of run k against the baseline's run k (one run vs one run: blind to drift between runs).`,
      '',
      '</details>',
    );
  }
  return `${out.join('\n')}\n`;
}
