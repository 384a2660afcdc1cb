/**
 * The run summary as a terminal table (`goodput run`'s default output). Layout only: what to
 * show is decided by buildRunView. ANSI colour only when asked.
 *
 * @module
 */

import type { RunSummary } from '../types.js';
import { layoutColumns } from './format.js';
import { buildRunView, type ViewTable } from './run-view.js';

/** Options of the text renderers. */
export interface RunRenderOptions {
  /** Emit ANSI colours (headings bold, warnings yellow, errors red). Default false. */
  color?: boolean;
}

const ANSI = { bold: '\x1b[1m', dim: '\x1b[2m', red: '\x1b[31m', yellow: '\x1b[33m', reset: '\x1b[0m' };
type Style = keyof Omit<typeof ANSI, 'reset'>;

function painter(color: boolean) {
  return (text: string, style: Style) => (color ? `${ANSI[style]}${text}${ANSI.reset}` : text);
}

function pairs(rows: Array<[string, string]>, indent = '  '): string[] {
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${indent}${k.padEnd(width)}  ${v}`);
}

function table(t: ViewTable, indent = '  '): string[] {
  return layoutColumns(t.header, t.rows, t.align).map((l) => indent + l);
}

/**
 * The run summary as a plain-text report for the terminal: latency table (mean, p50, p90,
 * p95, p99, p99.9, max), throughput, goodput with its SLOs, counts, errors with cause and fix,
 * load honesty and warnings, server block and prompt buckets when present.
 *
 * @example
 * process.stdout.write(renderRunTable(summary, { color: process.stdout.isTTY }));
 */
export function renderRunTable(summary: RunSummary, options: RunRenderOptions = {}): string {
  const paint = painter(options.color ?? false);
  const v = buildRunView(summary);
  const out: string[] = [paint(v.title, 'bold'), ...pairs(v.context), ''];
  const [head = '', ...rows] = table(v.latency, '');
  out.push(paint(head, 'bold'), ...rows, '');
  out.push(paint('Throughput', 'bold'), ...pairs(v.throughput), '');
  out.push(`${paint('Goodput', 'bold')}  SLO: ${v.sloText}`, ...pairs(v.goodput), '');
  if (v.classes)
    out.push(paint('By traffic class (each against its own SLO)', 'bold'), ...table(v.classes), '');
  if (v.efficiency.length > 0) out.push(paint('Energy and cost', 'bold'), ...pairs(v.efficiency), '');
  out.push(paint('Requests', 'bold'), ...pairs(v.counts), '');
  out.push(paint('Load', 'bold'), ...pairs(v.load), '');
  if (v.errors.length > 0) {
    out.push(paint('Errors', 'bold'));
    for (const e of v.errors) {
      const status = e.httpStatus ? ` (HTTP ${e.httpStatus})` : '';
      out.push(`  ${paint(`${e.code} ×${e.count}`, 'red')}${status}${e.example ? `: ${e.example}` : ''}`);
      out.push(`    cause: ${e.cause}`, `    fix:   ${e.fix}`);
    }
    out.push('');
  }
  if (v.server) {
    out.push(paint(v.server.title, 'bold'));
    if (v.server.table.rows.length > 0) out.push(...table(v.server.table), '');
    if (v.server.notes.length > 0) out.push(...pairs(v.server.notes), '');
  }
  if (v.replicas) out.push(paint('Replicas', 'bold'), ...table(v.replicas), '');
  if (v.turns)
    out.push(paint('By turn (sessions)', 'bold'), ...table(v.turns.table), ...pairs(v.turns.notes), '');
  if (v.agents) out.push(paint('Agents', 'bold'), ...table(v.agents.table), ...pairs(v.agents.notes), '');
  if (v.buckets) out.push(paint('Prompt-length buckets', 'bold'), ...table(v.buckets), '');
  if (v.warnings.length > 0) {
    out.push(paint('Warnings', 'bold'), ...v.warnings.map((w) => paint(`  ! ${w}`, 'yellow')), '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
