/**
 * The report's headline tables as Markdown (for ADRs and PR comments): headline numbers, the
 * comparison, the sweep, diagnosis findings, then each run through the run renderer
 * (renderRunMarkdown). Returns a string.
 *
 * @module
 */

import { labelWithUnit, metric } from '../../metrics/index.js';
import { markdownCell } from '../../util/index.js';
import { fmtShort as fmtNum } from '../format.js';
import { buildImportedView, renderImportedMarkdown } from '../imported.js';
import { renderRunMarkdown } from '../markdown.js';
import { headlines } from './facts.js';
import type { HtmlReportInput } from './model.js';

/** The sweep table's columns after the load, by catalogue id. */
const SWEEP_TABLE_IDS = ['output_throughput', 'request_throughput', 'ttft_p99', 'e2el_p99'] as const;

/** Moves every ATX heading one level down (## → ###), so that a run nests under its label. */
export function demoteHeadings(markdown: string): string {
  return markdown.replace(/^(#{1,5}) /gm, '#$1 ');
}

/** Escapes a Markdown table cell (HTML, pipes, line breaks). */
export const mdCell = markdownCell;

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map(mdCell).join(' | ')} |`;
  return [line(head), `|${head.map(() => ' --- ').join('|')}|`, ...rows.map(line)].join('\n');
}

/** Renders the report's tables as GitHub-flavoured Markdown. */
export function renderReportMarkdown(input: HtmlReportInput): string {
  const { runs } = input;
  const out: string[] = [`# ${mdCell(input.title)}`, ''];
  if (runs.length > 0) {
    const heads = headlines(runs[0]!.summary).map((h) => h.label);
    out.push('## Headline numbers', '');
    out.push(
      table(
        ['Run', ...heads],
        runs.map((r) => [r.label, ...headlines(r.summary).map((h) => h.text)]),
      ),
      '',
    );
  }

  if (input.comparison) {
    const c = input.comparison;
    out.push(`## Comparison against ${mdCell(c.baseline)}`, '');
    for (const v of c.verdicts ?? []) out.push(`- **${mdCell(v.run)}**: ${mdCell(v.verdict)}`);
    if (c.verdicts?.length) out.push('');
    out.push(
      table(
        ['Metric', ...c.columns],
        c.rows.map((r) => [r.metric, ...r.cells.map((x) => x.text)]),
      ),
      '',
    );
    if (c.note) out.push(`_${mdCell(c.note)}_`, '');
  }

  if (input.sweep && input.sweep.points.length > 0) {
    const s = input.sweep;
    out.push('## Sweep', '');
    out.push(
      table(
        [s.loadLabel, ...SWEEP_TABLE_IDS.map((id) => labelWithUnit(metric(id)))],
        s.points.map((p) => [fmtNum(p.load), ...SWEEP_TABLE_IDS.map((id) => fmtNum(p.values[id]))]),
      ),
      '',
    );
    if (s.saturationLoad !== undefined)
      out.push(`Saturation at ${mdCell(s.loadLabel)} ${fmtNum(s.saturationLoad)}.`);
    if (s.capacityAtSloLoad !== undefined)
      out.push(`Capacity at SLO: ${mdCell(s.loadLabel)} ${fmtNum(s.capacityAtSloLoad)}.`);
    if (s.caveats?.length) out.push('', '**Caveats**', '', ...s.caveats.map((c) => `- ⚠ ${mdCell(c)}`));
    out.push('');
  }

  const findings = runs.flatMap((r) =>
    (r.summary.diagnosis ?? [])
      .slice()
      .sort((a, b) => b.score - a.score)
      .map((f) => ({ run: r.label, f })),
  );
  if (findings.length > 0) {
    out.push('## Diagnosis', '');
    for (const { run, f } of findings) {
      out.push(
        `- **${mdCell(f.title)}** (${mdCell(run)}, ${f.kind}): ${mdCell(f.evidence)} Knob: ${mdCell(f.knob)}.`,
      );
    }
    out.push('');
  }

  // Each run in full (context, latency, throughput, goodput, requests, errors with cause and
  // fix, server, prompt buckets): the run renderer's own Markdown, one heading level down.
  for (const r of runs) {
    out.push(`## ${mdCell(r.label)}`, '', demoteHeadings(renderRunMarkdown(r.summary)).trimEnd(), '');
  }
  // Other tools' results: the figures they state, what they do not, and how they were read.
  for (const r of input.imported ?? []) {
    out.push(renderImportedMarkdown(buildImportedView(r.summary, r.label)).trimEnd(), '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
