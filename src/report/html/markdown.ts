/**
 * The report's headline tables as Markdown (for ADRs and PR comments): run facts, headline
 * numbers, the comparison, errors by code and diagnosis findings. Returns a string.
 *
 * @module
 */

import { REQUEST_ERRORS } from '../../errors.js';
import { fmtNum, headlines, runFacts } from './format.js';
import type { HtmlReportInput } from './model.js';

/** Escapes the characters that break a Markdown table cell. */
export function mdCell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map(mdCell).join(' | ')} |`;
  return [line(head), `|${head.map(() => ' --- ').join('|')}|`, ...rows.map(line)].join('\n');
}

/** Renders the report's tables as GitHub-flavoured Markdown. */
export function renderReportMarkdown(input: HtmlReportInput): string {
  const { runs } = input;
  const out: string[] = [`# ${input.title}`, ''];
  const heads = headlines(runs[0]!.summary).map((h) => h.label);
  out.push('## Headline numbers', '');
  out.push(
    table(
      ['Run', ...heads],
      runs.map((r) => [r.label, ...headlines(r.summary).map((h) => h.text)]),
    ),
    '',
  );

  if (input.comparison) {
    const c = input.comparison;
    out.push(`## Comparison against ${c.baseline}`, '');
    for (const v of c.verdicts ?? []) out.push(`- **${v.verdict}**: ${v.run}`);
    if (c.verdicts?.length) out.push('');
    out.push(
      table(
        ['Metric', ...c.columns],
        c.rows.map((r) => [r.metric, ...r.cells.map((x) => x.text)]),
      ),
      '',
    );
    if (c.note) out.push(`_${c.note}_`, '');
  }

  if (input.sweep && input.sweep.points.length > 0) {
    const s = input.sweep;
    out.push('## Sweep', '');
    out.push(
      table(
        [s.loadLabel, 'output tok/s', 'req/s', 'p99 TTFT (ms)', 'p99 E2EL (ms)'],
        s.points.map((p) => [
          fmtNum(p.load),
          fmtNum(p.outputTokensPerS),
          fmtNum(p.requestsPerS),
          fmtNum(p.p99TtftMs),
          fmtNum(p.p99E2elMs),
        ]),
      ),
      '',
    );
    if (s.saturationLoad !== undefined) out.push(`Saturation at ${s.loadLabel} ${fmtNum(s.saturationLoad)}.`);
    if (s.capacityAtSloLoad !== undefined)
      out.push(`Capacity at SLO: ${s.loadLabel} ${fmtNum(s.capacityAtSloLoad)}.`);
    out.push('');
  }

  const errorRows = runs.flatMap((r) =>
    (r.summary.errors ?? []).map((e) => [
      r.label,
      e.code,
      String(e.count),
      e.example,
      (REQUEST_ERRORS[e.code] ?? REQUEST_ERRORS.UNKNOWN).hint,
    ]),
  );
  out.push('## Errors', '');
  out.push(
    errorRows.length > 0
      ? table(['Run', 'Code', 'Count', 'Example', 'Fix'], errorRows)
      : 'No request failed.',
    '',
  );

  const findings = runs.flatMap((r) =>
    (r.summary.diagnosis ?? [])
      .slice()
      .sort((a, b) => b.score - a.score)
      .map((f) => ({ run: r.label, f })),
  );
  if (findings.length > 0) {
    out.push('## Diagnosis', '');
    for (const { run, f } of findings) {
      out.push(`- **${f.title}** (${run}, ${f.kind}): ${f.evidence} Knob: ${f.knob}.`);
    }
    out.push('');
  }

  out.push('## Runs', '');
  for (const r of runs) {
    out.push(`### ${r.label}`, '', table(['', ''], runFacts(r.summary)), '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
