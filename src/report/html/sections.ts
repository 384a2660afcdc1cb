/**
 * HTML fragments of the report's static parts: run facts, headline numbers, the comparison,
 * errors by code, diagnosis findings. Strings in, strings out; every text is escaped.
 *
 * @module
 */

import { REQUEST_ERRORS } from '../../errors.js';
import { latencyDef, runCaveats } from '../../metrics/index.js';
import type { RunSummary, SummaryLatencyName } from '../../types.js';
import { escapeHtml as e } from '../../util/index.js';
import { efficiencyLines } from '../efficiency-view.js';
import { fmtShortMs as fmtMs, fmtShort as fmtNum, fmtPct } from '../format.js';
import { headlines, runFacts } from './facts.js';
import type { ComparisonView, ReportRun, SweepView } from './model.js';

/** Colour of run i in every chart and legend (also used by the chart script). */
export const RUN_COLORS = [
  '#2563eb',
  '#dc2626',
  '#16a34a',
  '#9333ea',
  '#ea580c',
  '#0891b2',
  '#be185d',
  '#4d7c0f',
  // then Kelly's colours of maximum contrast, each the farthest from those before it
  '#c2b280',
  '#000000',
  '#dcd300',
  '#a1caf1',
  '#604e97',
  '#882d17',
  '#8db600',
  '#2b3d26',
  '#848482',
  '#e68fac',
];

/**
 * The colour of run i: the 18 of the palette above (no two closer than 55 in RGB), then hues
 * spread by the golden angle with lightness alternating, so a report of many runs never repeats one.
 */
export function runColor(i: number): string {
  if (i < RUN_COLORS.length) return RUN_COLORS[i]!;
  const k = i - RUN_COLORS.length;
  const hue = (17 + k * 137.508) % 360;
  const lightness = k % 2 === 0 ? 0.42 : 0.3;
  return hslHex(hue, 0.75, lightness);
}

/** #rrggbb of an HSL colour (hue in degrees, saturation and lightness 0..1). */
function hslHex(h: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + h / 30) % 12;
    const v = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(v * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

function swatch(i: number): string {
  return `<span class="swatch" style="background:${runColor(i)}"></span>`;
}

/** A run's or a sweep's caveats as one list (empty when there are none). */
function caveatBlock(items: ReadonlyArray<{ text: string; warn: boolean }>): string {
  if (items.length === 0) return '';
  const li = items.map((c) => `<li class="${c.warn ? 'warn' : 'info'}">${e(c.text)}</li>`).join('');
  return `<div class="caveats"><strong>Caveats</strong><ul>${li}</ul></div>`;
}

/** The facts of each run (target, model, workload, load, sampling, seed, tool, date). */
export function factsSection(runs: ReportRun[]): string {
  const cards = runs.map((run, i) => {
    const rows = runFacts(run.summary)
      .map(([k, v]) => `<tr><th>${e(k)}</th><td>${e(v)}</td></tr>`)
      .join('');
    const flags = caveatBlock(
      runCaveats(run.summary).map((c) => ({ text: c.text, warn: c.severity === 'warn' })),
    );
    return `<div class="card facts"><h3>${swatch(i)}${e(run.label)}</h3>${flags}<table>${rows}</table></div>`;
  });
  return `<section id="runs"><h2>Run${runs.length > 1 ? 's' : ''}</h2><div class="grid">${cards.join('')}</div></section>`;
}

/** Headline numbers: big tiles for one run, a table with one row per run for several. */
export function headlineSection(runs: ReportRun[]): string {
  if (runs.length === 1) {
    const s = runs[0]!.summary;
    const tiles = headlines(s)
      .map(
        (h) =>
          `<div class="tile"><div class="tile-label">${e(h.label)}</div><div class="tile-value">${e(h.text)}</div></div>`,
      )
      .join('');
    return `<section id="headline"><div class="tiles">${tiles}</div>${countsLine(s)}${efficiencyLine(s)}</section>`;
  }
  const heads = headlines(runs[0]!.summary).map((h) => `<th>${e(h.label)}</th>`);
  const rows = runs.map((run, i) => {
    const cells = headlines(run.summary).map((h) => `<td class="num">${e(h.text)}</td>`);
    return `<tr><th>${swatch(i)}${e(run.label)}</th>${cells.join('')}</tr>`;
  });
  return `<section id="headline"><h2>Headline numbers</h2><div class="scroll"><table class="data"><thead><tr><th>Run</th>${heads.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div></section>`;
}

/** Energy and cost per token, one line (the terminal report's lines, joined). */
function efficiencyLine(s: RunSummary): string {
  const lines = efficiencyLines(s.efficiency);
  if (lines.length === 0) return '';
  return `<p class="muted" id="efficiency">${e(lines.map(([k, v]) => `${k}: ${v}`).join(' · '))}</p>`;
}

function countsLine(s: RunSummary): string {
  const c = s.counts;
  if (!c) return '';
  const parts = [
    `${c.attempted} measured requests`,
    `${c.completed} completed`,
    `${c.failed} failed`,
    `${c.cancelled} cancelled`,
    `${c.warmup} warmup`,
    `duration ${fmtNum(s.duration)} s`,
    `peak ${fmtNum(s.throughput.peakOutputTokensPerS)} output tok/s`,
    `token goodput ${fmtPct(s.goodput.tokenGoodputRatio)}`,
  ];
  if (c.retries) parts.push(`${c.retries} retries`);
  if (c.usageMissing) parts.push(`${c.usageMissing} without usage (tokens counted)`);
  return `<p class="muted">${e(parts.join(' · '))}</p>`;
}

/** Latency percentiles of every run, one table per latency group. */
export function latencyTableSection(runs: ReportRun[]): string {
  const names: SummaryLatencyName[] = ['ttft', 'tpot', 'itl', 'e2el', 'queueWait'];
  const cols = ['mean', 'p50', 'p90', 'p95', 'p99', 'p999', 'max'] as const;
  const rows: string[] = [];
  for (const key of names) {
    // The latency table's label, its title and formula on hover.
    const { label, title, formula } = latencyDef(key);
    runs.forEach((run, i) => {
      const st = run.summary.latency[key];
      if (!st?.count) return;
      const who = runs.length > 1 ? `${swatch(i)}${e(run.label)}` : '';
      rows.push(
        `<tr><th title="${e(`${title}: ${formula}`)}">${e(label)}</th>${runs.length > 1 ? `<td>${who}</td>` : ''}${cols.map((c) => `<td class="num">${e(fmtMs(st[c]))}</td>`).join('')}<td class="num">${st.count}</td></tr>`,
      );
    });
  }
  const head = `<tr><th>Latency</th>${runs.length > 1 ? '<th>Run</th>' : ''}${cols.map((c) => `<th>${c === 'p999' ? 'p99.9' : c}</th>`).join('')}<th>n</th></tr>`;
  return `<section id="latency"><h2>Latency percentiles</h2><div class="scroll"><table class="data"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table></div></section>`;
}

/** The comparison matrix with verdicts (several runs only). */
export function comparisonSection(view: ComparisonView | undefined): string {
  if (!view) return '';
  const head = `<tr><th>Metric</th>${view.columns.map((c) => `<th>${e(c)}</th>`).join('')}</tr>`;
  const rows = view.rows
    .map(
      (r) =>
        `<tr><th>${e(r.metric)}</th>${r.cells.map((c) => `<td class="num ${c.tone}">${e(c.text)}</td>`).join('')}</tr>`,
    )
    .join('');
  const verdicts = (view.verdicts ?? [])
    .map(
      (v) => `<li><strong>${e(v.run)}</strong>: <span class="verdict ${v.tone}">${e(v.verdict)}</span></li>`,
    )
    .join('');
  return `<section id="comparison"><h2>Comparison against ${e(view.baseline)}</h2>${verdicts ? `<ul class="verdicts">${verdicts}</ul>` : ''}<div class="scroll"><table class="data"><thead>${head}</thead><tbody>${rows}</tbody></table></div>${view.note ? `<p class="muted">${e(view.note)}</p>` : ''}</section>`;
}

/** Errors by code across runs, with each code's usual cause and fix. */
export function errorsSection(runs: ReportRun[]): string {
  const rows: string[] = [];
  runs.forEach((run, i) => {
    for (const err of run.summary.errors ?? []) {
      const info = REQUEST_ERRORS[err.code] ?? REQUEST_ERRORS.UNKNOWN;
      rows.push(
        `<tr>${runs.length > 1 ? `<td>${swatch(i)}${e(run.label)}</td>` : ''}<td><code>${e(err.code)}</code>${err.httpStatus ? ` <span class="muted">HTTP ${err.httpStatus}</span>` : ''}</td><td class="num">${err.count}</td><td>${e(err.example)}</td><td>${e(info.cause)}</td><td>${e(info.hint)}</td></tr>`,
      );
    }
  });
  if (rows.length === 0)
    return `<section id="errors"><h2>Errors</h2><p class="muted">No request failed.</p></section>`;
  const head = `<tr>${runs.length > 1 ? '<th>Run</th>' : ''}<th>Code</th><th>Count</th><th>Example</th><th>Usual cause</th><th>Fix</th></tr>`;
  return `<section id="errors"><h2>Errors by code</h2><div class="scroll"><table class="data errors"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table></div></section>`;
}

/** Diagnosis findings, highest score first, when the runs carry them. */
export function diagnosisSection(runs: ReportRun[]): string {
  const items: string[] = [];
  runs.forEach((run, i) => {
    const findings = (run.summary.diagnosis ?? []).slice().sort((a, b) => b.score - a.score);
    for (const f of findings) {
      const window =
        f.fromMs !== undefined && f.toMs !== undefined
          ? ` · ${fmtNum(f.fromMs / 1000)}–${fmtNum(f.toMs / 1000)} s`
          : '';
      items.push(
        `<div class="finding"><div class="finding-head">${runs.length > 1 ? `${swatch(i)}${e(run.label)} · ` : ''}<span class="kind">${e(f.kind)}</span> <strong>${e(f.title)}</strong><span class="score" title="score">${fmtPct(f.score)}</span></div><div>${e(f.evidence)}${e(window)}</div><div class="knob">Knob: ${e(f.knob)}</div></div>`,
      );
    }
  });
  if (items.length === 0) return '';
  return `<section id="diagnosis"><h2>Diagnosis</h2>${items.join('')}</section>`;
}

/** Sweep facts under its chart. */
export function sweepNotes(sweep: SweepView | undefined): string {
  if (!sweep) return '';
  const facts: string[] = [];
  if (sweep.saturationLoad !== undefined)
    facts.push(`Saturation at ${sweep.loadLabel} ${fmtNum(sweep.saturationLoad)}`);
  if (sweep.capacityAtSloLoad !== undefined) {
    facts.push(`capacity at SLO: ${sweep.loadLabel} ${fmtNum(sweep.capacityAtSloLoad)}`);
  }
  facts.push(...sweep.notes);
  const caveats = caveatBlock((sweep.caveats ?? []).map((text) => ({ text, warn: true })));
  return (facts.length > 0 ? `<p class="muted">${e(facts.join(' · '))}</p>` : '') + caveats;
}
