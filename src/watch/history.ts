/**
 * Renderers of `goodput history`: the trend table (one line per window: rounds, attainment,
 * errors, p50/p99 of TTFT, TPOT, ITL and E2EL recomputed from merged histograms), its JSON,
 * and a self-contained HTML page with uPlot charts (the report module's inlined uPlot).
 * Renderers return strings.
 *
 * @module
 */

import type { StoredRollback, WindowFigures } from '../store/index.js';

function fmt(ms: number, count: number): string {
  if (count === 0) return '-';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : ms.toFixed(1);
}

/** The trend table as text. */
export function renderHistoryTable(windows: WindowFigures[], rollbacks: StoredRollback[]): string {
  if (windows.length === 0) return 'no rounds in the store for this period\n';
  const head = [
    'target',
    'window start (UTC)',
    'rounds',
    'attain',
    'errors',
    'ttft p50',
    'ttft p99',
    'tpot p50',
    'tpot p99',
    'itl p99',
    'e2el p99',
  ];
  const rows = windows.map((w) => {
    const errs = Object.values(w.errors).reduce((a, b) => a + (b ?? 0), 0);
    return [
      w.target,
      new Date(w.start).toISOString().slice(0, 16).replace('T', ' '),
      w.invalidRounds > 0 ? `${w.rounds} (${w.invalidRounds} inv)` : String(w.rounds),
      Number.isNaN(w.attainment) ? '-' : `${(w.attainment * 100).toFixed(1)}%`,
      String(errs),
      fmt(w.latency.ttft.p50, w.latency.ttft.count),
      fmt(w.latency.ttft.p99, w.latency.ttft.count),
      fmt(w.latency.tpot.p50, w.latency.tpot.count),
      fmt(w.latency.tpot.p99, w.latency.tpot.count),
      fmt(w.latency.itl.p99, w.latency.itl.count),
      fmt(w.latency.e2el.p99, w.latency.e2el.count),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [line(head), ...rows.map(line)];
  for (const r of rollbacks) {
    out.push(
      `rollback: ${r.target} at ${new Date(r.at).toISOString()} (round ${r.round}) ${r.rule}${r.adrId ? ` [${r.adrId}]` : ''}${r.exitCode !== undefined ? ` → exit ${r.exitCode}` : ''}`,
    );
  }
  return `${out.join('\n')}\nlatencies in ms; percentiles recomputed from each window's merged histograms\n`;
}

/** The history as JSON (schemaVersion'd). */
export function renderHistoryJson(
  windows: WindowFigures[],
  rollbacks: StoredRollback[],
  windowMs: number,
): string {
  const clean = windows.map((w) => ({ ...w, attainment: Number.isNaN(w.attainment) ? null : w.attainment }));
  return `${JSON.stringify({ schemaVersion: 1, kind: 'goodput.history', windowMs, windows: clean, rollbacks }, null, 2)}\n`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A self-contained trend page: per target, p50/p99 charts of TTFT and TPOT, attainment, rollbacks. */
export function renderHistoryHtml(
  windows: WindowFigures[],
  rollbacks: StoredRollback[],
  assets: { uplotJs: string; uplotCss: string },
): string {
  const targets = [...new Set(windows.map((w) => w.target))];
  const data = targets.map((t) => {
    const ws = windows.filter((w) => w.target === t);
    const x = ws.map((w) => w.start / 1000);
    const nz = (v: number, n: number) => (n === 0 ? null : v);
    return {
      target: t,
      charts: [
        {
          title: 'TTFT (ms)',
          x,
          series: [
            ['p50', ws.map((w) => nz(w.latency.ttft.p50, w.latency.ttft.count))],
            ['p99', ws.map((w) => nz(w.latency.ttft.p99, w.latency.ttft.count))],
          ],
        },
        {
          title: 'TPOT (ms)',
          x,
          series: [
            ['p50', ws.map((w) => nz(w.latency.tpot.p50, w.latency.tpot.count))],
            ['p99', ws.map((w) => nz(w.latency.tpot.p99, w.latency.tpot.count))],
          ],
        },
        {
          title: 'SLO attainment',
          x,
          series: [['attainment', ws.map((w) => (Number.isNaN(w.attainment) ? null : w.attainment))]],
        },
      ],
      rollbacks: rollbacks.filter((r) => r.target === t).map((r) => r.at / 1000),
    };
  });
  const table = renderHistoryTable(windows, rollbacks);
  // JSON inside <script>: escape '<' so no '</script>' can end the block early.
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>goodput history</title>
<style>${assets.uplotCss}
body{font:14px system-ui,sans-serif;margin:24px;color:#222}h2{margin-top:32px}.chart{margin:12px 0}pre{background:#f6f6f6;padding:12px;overflow:auto}</style>
</head><body>
<h1>goodput history</h1>
<div id="charts"></div>
<h2>Windows</h2><pre>${escapeHtml(table)}</pre>
<script>${assets.uplotJs}</script>
<script>
const DATA = ${json};
const colors = ['#1f77b4', '#d62728', '#2ca02c'];
const root = document.getElementById('charts');
for (const t of DATA) {
  const h = document.createElement('h2'); h.textContent = t.target; root.appendChild(h);
  for (const c of t.charts) {
    const div = document.createElement('div'); div.className = 'chart'; root.appendChild(div);
    const rb = t.rollbacks;
    new uPlot({
      title: c.title, width: Math.min(1000, window.innerWidth - 60), height: 240,
      series: [{}, ...c.series.map((s, i) => ({ label: s[0], stroke: colors[i % colors.length], width: 2, spanGaps: false }))],
      hooks: { draw: [(u) => { const ctx = u.ctx; ctx.save(); ctx.strokeStyle = '#ff7f0e'; ctx.lineWidth = 2;
        for (const x of rb) { const px = u.valToPos(x, 'x', true); ctx.beginPath(); ctx.moveTo(px, u.bbox.top); ctx.lineTo(px, u.bbox.top + u.bbox.height); ctx.stroke(); }
        ctx.restore(); }] },
    }, [c.x, ...c.series.map((s) => s[1])], div);
  }
}
</script>
</body></html>
`;
}
