/**
 * What a report says about another tool's result (an ImportedSummary), decided once: where it
 * came from, what the tool says was run, the latency figures it states (— for each one it
 * does not), its throughputs and counts, and what is missing. Terminal and Markdown layouts
 * here; the HTML report lays out the same view. Strings only, pure.
 *
 * @module
 */

import {
  importedValue,
  LATENCIES,
  type LatencyStatKey,
  METRICS,
  metric,
  metricById,
  TOOL_DESCRIPTIONS,
  TOOL_NAMES,
} from '../metrics/index.js';
import type { ImportedSummary } from '../types.js';
import { markdownCell as cell } from '../util/index.js';
import { layoutColumns } from './format.js';
import type { ViewTable } from './run-view.js';

/** Everything a report shows of an imported result, already formatted. */
export interface ImportedView {
  title: string;
  /** Source, file, sha256, model, date, and what the tool says was run. */
  context: Array<[string, string]>;
  /** TTFT, TPOT, ITL, E2EL rows: the statistics the source states, — for the others. */
  latency: ViewTable;
  /** Throughputs and counts the source states. */
  figures: Array<[string, string]>;
  /** Catalogue figures the source does not state, grouped: "TPOT (all statistics)", "goodput", …. */
  missing: string[];
  notes: string[];
}

const LATENCY_ROWS = ['ttft', 'tpot', 'itl', 'e2el'] as const;
const STAT_COLUMNS: ReadonlyArray<[LatencyStatKey, string]> = [
  ['mean', 'mean'],
  ['p50', 'p50'],
  ['p90', 'p90'],
  ['p95', 'p95'],
  ['p99', 'p99'],
  ['p999', 'p99.9'],
  ['max', 'max'],
];
const SCALAR_IDS = [
  'request_throughput',
  'output_throughput',
  'total_token_throughput',
  'request_goodput',
  'completed',
  'failed',
];

/** A figure compactly, in its unit: "342.3 ms", "13.25 req/s", "200". */
export function fmtFigure(v: number | undefined, unit: string): string {
  if (v === undefined) return '—';
  const a = Math.abs(v);
  const text = Number.isInteger(v)
    ? String(v)
    : a >= 1000
      ? v.toFixed(0)
      : a >= 100
        ? v.toFixed(1)
        : v.toFixed(2);
  return unit === 'count' || unit === 'ratio' ? text : `${text} ${unit}`;
}

function latencyLabel(text: string): string {
  return LATENCIES.find((l) => l.text === text)?.label ?? text;
}

/** The missing catalogue figures, grouped by latency (all or some statistics) and named one by one otherwise. */
function missingGroups(imported: ImportedSummary): string[] {
  const missing = new Set(imported.missing);
  const out: string[] = [];
  for (const { text, label } of LATENCIES) {
    const ids = METRICS.filter((m) => m.latency?.text === text).map((m) => m.id);
    const gone = ids.filter((id) => missing.has(id));
    if (gone.length === ids.length) out.push(`${label} (every statistic)`);
    else if (gone.length > 0)
      out.push(`${label} ${gone.map((id) => metricById(id)?.latency?.stat).join(', ')}`);
  }
  for (const m of METRICS) if (!m.latency && missing.has(m.id)) out.push(m.label);
  return out;
}

/** The view of one imported result (a sweep's benchmark included), named `label`. */
export function buildImportedView(imported: ImportedSummary, label: string): ImportedView {
  const s = imported.source;
  const context: Array<[string, string]> = [
    [
      'source',
      `${TOOL_DESCRIPTIONS[s.tool]}${s.benchmark ? `, benchmark ${s.benchmark.index} of ${s.benchmark.count} (${s.benchmark.label})` : ''}`,
    ],
    ['file', s.path],
    ['sha256', s.sha256],
  ];
  if (imported.model) context.push(['model', imported.model]);
  if (imported.date) context.push(['date', imported.date]);
  if (imported.importedAt) context.push(['imported', imported.importedAt]);
  context.push(...imported.context);
  const rows = LATENCY_ROWS.map((text) => [
    latencyLabel(text),
    ...STAT_COLUMNS.map(([stat]) => {
      const id = `${text}_${stat}`;
      const v = importedValue(imported, metric(id));
      return v === undefined ? '—' : fmtFigure(v, 'count');
    }),
  ]);
  const figures = SCALAR_IDS.map((id): [string, string] => {
    const def = metric(id);
    return [def.label, fmtFigure(importedValue(imported, def), def.unit)];
  });
  return {
    title: `${label} · ${TOOL_NAMES[s.tool]} result${imported.model ? ` · ${imported.model}` : ''}`,
    context,
    latency: {
      header: ['latency (ms)', ...STAT_COLUMNS.map(([, l]) => l)],
      rows,
      align: ['l', ...STAT_COLUMNS.map(() => 'r' as const)],
    },
    figures,
    missing: missingGroups(imported),
    notes: [
      'no per-request records: no distribution beyond the statistics stated, no timeline, no confidence interval',
      ...imported.notes,
    ],
  };
}

function pairs(rows: Array<[string, string]>, indent = '  '): string[] {
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${indent}${k.padEnd(width)}  ${v}`);
}

/** An imported result as a plain-text report for the terminal. */
export function renderImportedTable(view: ImportedView): string {
  const out = [view.title, ...pairs(view.context), ''];
  out.push(...layoutColumns(view.latency.header, view.latency.rows, view.latency.align), '');
  out.push('Throughput and requests', ...pairs(view.figures), '');
  if (view.missing.length > 0)
    out.push('Not stated by the source (shown as —, never estimated)', `  ${view.missing.join('; ')}`, '');
  out.push('Notes', ...view.notes.map((n) => `  - ${n}`));
  return `${out.join('\n').trimEnd()}\n`;
}

/** An imported result as Markdown. */
export function renderImportedMarkdown(view: ImportedView): string {
  const table = (t: ViewTable) => {
    const rule = t.align.map((a) => (a === 'r' ? '---:' : ':---'));
    return [t.header, rule, ...t.rows].map((r, i) => `| ${(i === 1 ? r : r.map(cell)).join(' | ')} |`);
  };
  const out = [`## ${cell(view.title)}`, ''];
  out.push(...view.context.map(([k, v]) => `- **${cell(k)}**: ${cell(v)}`), '');
  out.push('### Latency', '', ...table(view.latency), '');
  out.push(
    '### Throughput and requests',
    '',
    ...table({ header: ['metric', 'value'], rows: view.figures, align: ['l', 'r'] }),
    '',
  );
  if (view.missing.length > 0)
    out.push(
      '### Not stated by the source',
      '',
      `Shown as —, never estimated: ${cell(view.missing.join('; '))}.`,
      '',
    );
  out.push('### Notes', '', ...view.notes.map((n) => `- ${cell(n)}`));
  return `${out.join('\n').trimEnd()}\n`;
}
