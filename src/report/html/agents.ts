/**
 * The agent part of a run's HTML report (`--agents`): the terminal's Agents table and notes
 * (agents-view.ts: one definition of the rows) for each run that had agent runs. A string.
 *
 * @module
 */

import { escapeHtml as e } from '../../util/index.js';
import { agentsView } from '../agents-view.js';
import type { ReportRun } from './model.js';
import { dataTable } from './table.js';

/** The agents section; empty when no run had agent runs. */
export function agentsSection(runs: readonly ReportRun[]): string {
  const parts = runs
    .map((run) => {
      const view = agentsView(run.summary);
      if (!view) return '';
      return (
        (runs.length > 1 ? `<h3>${e(run.label)}</h3>` : '') +
        dataTable(view.table.header, view.table.rows) +
        dataTable(['figure', 'value'], view.notes)
      );
    })
    .filter((p) => p !== '');
  if (parts.length === 0) return '';
  return `<section id="agents"><h2>Agents</h2><p class="muted">By step kind (model call, tool wait) and by agent run (sub-agents included); the time waiting on the model and on tools is summed over agents.</p>${parts.join('')}</section>`;
}
