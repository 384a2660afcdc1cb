/**
 * The traffic-class part of a run's HTML report (`--class`): the terminal's by-class table
 * (classes-view.ts: one definition of the rows) for each run that had classes. A string.
 *
 * @module
 */

import { escapeHtml as e } from '../../util/index.js';
import { classesView } from '../classes-view.js';
import { describeSloText } from '../run-view.js';
import type { ReportRun } from './model.js';
import { dataTable } from './table.js';

/** The by-class section; empty when no run had classes. */
export function classesSection(runs: readonly ReportRun[]): string {
  const parts = runs
    .map((run) => {
      const view = classesView(run.summary, describeSloText);
      if (!view) return '';
      return (runs.length > 1 ? `<h3>${e(run.label)}</h3>` : '') + dataTable(view.header, view.rows);
    })
    .filter((p) => p !== '');
  if (parts.length === 0) return '';
  return `<section id="classes"><h2>Traffic classes</h2><p class="muted">Each class's requests, latencies and goodput against its own SLO; rates per second of the whole run, so the classes' add up to the run's.</p>${parts.join('')}</section>`;
}
