/**
 * The per-turn part of a multi-turn (sessions) run's HTML report: the terminal's by-turn view
 * (turns-view.ts: one definition of the rows and notes) as a table per run, and a chart of
 * TTFT p50/p99 by turn beside the prompt the turn carried (the conversation so far), so the
 * prefix-cache effect shows. Strings and chart specs only.
 *
 * @module
 */

import type { RunSummary } from '../../types.js';
import { escapeHtml as e } from '../../util/index.js';
import { describeSessions, turnsView } from '../turns-view.js';
import type { ChartSeries, ChartSpec } from './charts.js';
import { compact } from './compact.js';
import type { XY } from './lttb.js';
import type { ReportRun } from './model.js';
import { runColor } from './sections.js';
import { dataTable } from './table.js';

const hasTurns = (s: RunSummary) => (s.turns?.length ?? 0) > 0;

/** TTFT p50 and p99 (ms) by turn on the left axis, mean prompt tokens by turn on the right. */
export function turnCharts(runs: readonly ReportRun[]): ChartSpec[] {
  const withTurns = runs.filter((r) => hasTurns(r.summary));
  if (withTurns.length === 0) return [];
  const several = withTurns.length > 1;
  // One tick per turn index (a category each: "3", or "32+" for the row of every later turn).
  const turns = [...new Set(withTurns.flatMap((r) => (r.summary.turns ?? []).map((t) => t.turn)))].sort(
    (a, b) => a - b,
  );
  const later = new Set(
    withTurns.flatMap((r) => (r.summary.turns ?? []).filter((t) => t.andLater).map((t) => t.turn)),
  );
  const series: ChartSeries[] = withTurns.flatMap((run) => {
    const i = runs.indexOf(run);
    const rows = (run.summary.turns ?? []).filter((t) => t.ttft.count > 0);
    const pick = (f: (t: (typeof rows)[number]) => number): XY => ({
      x: rows.map((t) => turns.indexOf(t.turn)),
      y: rows.map(f),
    });
    const who = several ? `${run.label}: ` : '';
    return [
      { label: `${who}TTFT p50 (ms)`, color: runColor(i), data: compact(pick((t) => t.ttft.p50)) },
      {
        label: `${who}TTFT p99 (ms)`,
        color: runColor(i),
        data: compact(pick((t) => t.ttft.p99)),
        style: 'dashed' as const,
      },
      {
        label: `${who}prompt tokens (mean)`,
        color: several ? runColor(i) : '#6b7280',
        data: compact(pick((t) => t.promptTokens.mean)),
        style: 'dots' as const,
        axis: 1 as const,
      },
    ];
  });
  return [
    {
      id: 'chart-turns',
      title: 'TTFT by turn',
      group: 'turns',
      xLabel: 'turn',
      yLabel: 'TTFT (ms)',
      y2Label: 'prompt tokens (mean)',
      xCategories: turns.map((t) => `${t}${later.has(t) ? '+' : ''}`),
      series: series.filter((s) => s.data.x.length > 0),
      markers: [],
    },
  ];
}

/** The per-turn section: how sessions were run, the by-turn table and notes of each run, and the chart. */
export function turnsSection(runs: readonly ReportRun[], chartCards: string): string {
  const parts = runs
    .map((run) => {
      const view = turnsView(run.summary);
      if (!view) return '';
      const how = describeSessions(run.summary);
      const notes = view.notes.map(([k, v]) => `${k}: ${v}`).join(' · ');
      return (
        (runs.length > 1 ? `<h3>${e(run.label)}</h3>` : '') +
        (how ? `<p class="muted">${e(how)}</p>` : '') +
        dataTable(view.table.header, view.table.rows) +
        (notes ? `<p class="muted">${e(notes)}</p>` : '')
      );
    })
    .filter((p) => p !== '');
  if (parts.length === 0) return '';
  return `<section id="turns"><h2>Turns</h2><p class="muted">Multi-turn sessions: each turn index's requests (a later turn carries the conversation so far), its TTFT, and the ratio to turn 1 (below 1: the server's prefix cache kept the conversation).</p>${chartCards ? `<div class="charts wide">${chartCards}</div>` : ''}${parts.join('')}</section>`;
}
