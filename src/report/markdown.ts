/**
 * The run summary as Markdown (for PR comments, ADRs, READMEs): the same headline tables as
 * the terminal report. Layout only: what to show is decided by buildRunView. Every text is
 * escaped (no HTML element can be opened by a server's or a user's string).
 *
 * @module
 */

import type { RunSummary } from '../types.js';
import { markdownCell as cell } from '../util/index.js';
import { buildRunView, type ViewTable } from './run-view.js';

function mdTable(t: ViewTable): string[] {
  const rule = t.align.map((a) => (a === 'r' ? '---:' : ':---'));
  return [t.header, rule, ...t.rows].map((r, i) => `| ${(i === 1 ? r : r.map(cell)).join(' | ')} |`);
}

function mdPairs(title: [string, string], rows: Array<[string, string]>): string[] {
  return mdTable({ header: title, rows, align: ['l', 'r'] });
}

/**
 * The run summary as Markdown: context, latency table, throughput, goodput, requests,
 * errors with cause and fix, warnings, server block and prompt buckets when present.
 */
export function renderRunMarkdown(summary: RunSummary): string {
  const v = buildRunView(summary);
  const out: string[] = [`## ${cell(v.title)}`, ''];
  out.push(...v.context.map(([k, val]) => `- **${cell(k)}**: ${cell(val)}`), '');
  out.push('### Latency', '', ...mdTable(v.latency), '');
  out.push('### Throughput', '', ...mdPairs(['metric', 'value'], v.throughput), '');
  out.push('### Goodput', '', `SLO: ${cell(v.sloText)}`, '', ...mdPairs(['metric', 'value'], v.goodput), '');
  if (v.classes)
    out.push('### By traffic class', '', 'Each class against its own SLO.', '', ...mdTable(v.classes), '');
  if (v.efficiency.length > 0)
    out.push('### Energy and cost', '', ...mdPairs(['figure', 'value'], v.efficiency), '');
  out.push('### Requests', '', ...mdPairs(['count', 'value'], [...v.counts, ...v.load]), '');
  if (v.errors.length > 0) {
    out.push('### Errors', '');
    out.push(
      ...mdTable({
        header: ['code', 'count', 'example', 'cause', 'fix'],
        rows: v.errors.map((e) => [
          e.code + (e.httpStatus ? ` (HTTP ${e.httpStatus})` : ''),
          e.count,
          e.example,
          e.cause,
          e.fix,
        ]),
        align: ['l', 'r', 'l', 'l', 'l'],
      }),
      '',
    );
  }
  if (v.warnings.length > 0) out.push('### Warnings', '', ...v.warnings.map((w) => `- ⚠ ${cell(w)}`), '');
  if (v.server) {
    out.push(`### ${cell(v.server.title)}`, '');
    if (v.server.table.rows.length > 0) out.push(...mdTable(v.server.table), '');
    if (v.server.notes.length > 0) out.push(...mdPairs(['metric', 'value'], v.server.notes), '');
  }
  if (v.replicas) out.push('### Replicas', '', ...mdTable(v.replicas), '');
  if (v.turns) {
    out.push('### By turn (sessions)', '', ...mdTable(v.turns.table), '');
    out.push(...mdPairs(['figure', 'value'], v.turns.notes), '');
  }
  if (v.agents) {
    out.push('### Agents', '', ...mdTable(v.agents.table), '');
    out.push(...mdPairs(['figure', 'value'], v.agents.notes), '');
  }
  if (v.buckets) out.push('### Prompt-length buckets', '', ...mdTable(v.buckets), '');
  return `${out.join('\n').trimEnd()}\n`;
}
