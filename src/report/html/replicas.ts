/**
 * The report's Replicas section: for each run that read several replicas, the per-replica
 * table of the terminal and Markdown reports (report/replicas-view.ts). Empty otherwise.
 *
 * @module
 */

import { escapeHtml as e } from '../../util/index.js';
import { buildReplicasView } from '../replicas-view.js';
import type { ReportRun } from './model.js';
import { dataTable } from './table.js';

export function replicasSection(runs: readonly ReportRun[]): string {
  const parts = runs.flatMap((run) => {
    const view = buildReplicasView(run.summary);
    if (!view) return [];
    const title = runs.length > 1 ? `<h3>${e(run.label)}</h3>` : '';
    return [`${title}${dataTable(view.header, view.rows)}`];
  });
  if (parts.length === 0) return '';
  return `<section id="replicas"><h2>Replicas</h2><p class="muted">Each replica's own server metrics; the last row is the totals of the server block (counters summed, queue depths summed per scrape round, KV usage averaged across replicas, with the highest any one reached).</p>${parts.join('')}</section>`;
}
