/**
 * The HTML of other tools' results in a report: one card per result (a guidellm sweep's
 * benchmarks each get one) with where it came from, the latency statistics it states (— for
 * the others), its throughputs and counts, and what it does not state. Strings only.
 *
 * @module
 */

import { escapeHtml as e } from '../../util/index.js';
import { buildImportedView } from '../imported.js';
import type { ImportedReportRun } from './model.js';
import { runColor } from './sections.js';

function rowsOf(pairs: Array<[string, string]>): string {
  return pairs.map(([k, v]) => `<tr><th>${e(k)}</th><td>${e(v)}</td></tr>`).join('');
}

/** The imported results' section; `offset` is the number of goodput runs before them (for their colours). */
export function importedSection(imported: readonly ImportedReportRun[], offset: number): string {
  if (imported.length === 0) return '';
  const cards = imported.map((run, j) => {
    const v = buildImportedView(run.summary, run.label);
    // Numbers are right-aligned in their column, and so is each number column's header: a
    // left-aligned header over right-aligned numbers reads as the next column's.
    const head = `<tr>${v.latency.header.map((h, i) => (i === 0 ? `<th>${e(h)}</th>` : `<th class="num" scope="col">${e(h)}</th>`)).join('')}</tr>`;
    const body = v.latency.rows
      .map(
        (r) =>
          `<tr>${r.map((c, i) => (i === 0 ? `<th>${e(c)}</th>` : `<td class="num">${e(c)}</td>`)).join('')}</tr>`,
      )
      .join('');
    const missing =
      v.missing.length > 0
        ? `<p class="muted missing"><strong>Not stated by the source</strong> (shown as —, never estimated): ${e(v.missing.join('; '))}.</p>`
        : '';
    const notes = `<ul class="notes">${v.notes.map((n) => `<li>${e(n)}</li>`).join('')}</ul>`;
    return (
      `<div class="card facts imported"><h3><span class="swatch" style="background:${runColor(offset + j)}"></span>${e(v.title)}</h3>` +
      `<table>${rowsOf(v.context)}</table>` +
      `<h4>Latency (ms), as stated</h4><table class="latency"><thead>${head}</thead><tbody>${body}</tbody></table>` +
      `<h4>Throughput and requests</h4><table>${rowsOf(v.figures)}</table>${missing}${notes}</div>`
    );
  });
  const title = imported.length > 1 ? "Other tools' results" : "Another tool's result";
  return `<section id="imported"><h2>${title}</h2><p class="muted">Figures exactly as each file states them; on the latency charts each is drawn as points at the percentiles it states.</p><div class="grid">${cards.join('')}</div></section>`;
}
