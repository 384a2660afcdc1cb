/**
 * The report's stylesheet: a quiet, readable page that prints well.
 *
 * @module
 */

export const REPORT_CSS = `
:root { --fg:#111827; --muted:#6b7280; --line:#e5e7eb; --bg:#f8fafc; --card:#fff; --good:#15803d; --bad:#b91c1c; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg); font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif; }
header.page { background:#0f172a; color:#f8fafc; padding:20px 32px; }
header.page h1 { margin:0 0 4px; font-size:22px; font-weight:600; }
header.page .sub { color:#cbd5e1; font-size:13px; }
main { max-width:1280px; margin:0 auto; padding:8px 32px 48px; }
h2 { font-size:17px; font-weight:600; margin:28px 0 12px; }
h3 { font-size:15px; font-weight:600; margin:0 0 8px; }
section { margin-bottom:8px; }
.grid { display:grid; grid-template-columns:repeat(auto-fit,minmax(420px,1fr)); gap:16px; }
.charts { display:grid; grid-template-columns:repeat(2,minmax(0,1fr)); gap:16px; }
.charts.wide { grid-template-columns:minmax(0,1fr); }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:14px 16px; min-width:0; }
.chart { min-width:0; overflow:hidden; }
.chart h3 { font-size:14px; }
.facts table { border-collapse:collapse; width:100%; }
.facts th { text-align:left; color:var(--muted); font-weight:500; padding:3px 12px 3px 0; vertical-align:top; white-space:nowrap; width:1%; }
.facts td { padding:3px 0; word-break:break-word; }
.facts table.latency th.num, .facts table.latency td.num { text-align:right; width:auto; padding:3px 0 3px 12px; }
.tiles { display:grid; grid-template-columns:repeat(auto-fit,minmax(118px,1fr)); gap:10px; margin-top:20px; }
.tile { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px 12px; }
.tile-label { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.03em; }
.tile-value { font-size:20px; font-weight:600; font-variant-numeric:tabular-nums; margin-top:2px; }
.scroll { overflow-x:auto; }
table.data { border-collapse:collapse; width:100%; background:var(--card); border:1px solid var(--line); border-radius:8px; }
table.data th, table.data td { padding:6px 10px; border-bottom:1px solid var(--line); text-align:left; vertical-align:top; }
table.data thead th { background:#f1f5f9; font-weight:600; font-size:13px; white-space:nowrap; }
table.data tbody th { font-weight:500; white-space:nowrap; }
td.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
td.better, .verdict.better { color:var(--good); font-weight:600; }
td.worse, .verdict.worse { color:var(--bad); font-weight:600; }
.verdicts { list-style:none; padding:0; margin:0 0 10px; }
.verdict { display:inline-block; min-width:96px; }
.muted { color:var(--muted); }
.swatch { display:inline-block; width:10px; height:10px; border-radius:2px; margin-right:6px; vertical-align:baseline; }
.badge { display:inline-block; font-size:12px; padding:1px 8px; border-radius:10px; margin:0 6px 8px 0; }
.badge.warn { background:#fef3c7; color:#92400e; }
.caveats { background:#fef3c7; color:#92400e; border-radius:6px; padding:6px 10px; margin:0 0 8px; font-size:13px; }
.caveats ul { margin:4px 0 0; padding-left:18px; }
.caveats li.info { color:#555; }
.finding { background:var(--card); border:1px solid var(--line); border-left:4px solid #f59e0b; border-radius:6px; padding:10px 14px; margin-bottom:10px; }
.finding-head { margin-bottom:4px; }
.finding .kind { font-size:12px; color:var(--muted); text-transform:uppercase; letter-spacing:.03em; margin-right:6px; }
.finding .score { float:right; color:var(--muted); font-size:12px; }
.finding .knob { color:var(--muted); margin-top:4px; }
code { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:12.5px; }
table.errors td:nth-child(n+3) { max-width:340px; }
.uplot { font-family:inherit; }
.uplot .u-legend { font-size:12px; }
.uplot .u-legend .u-marker { width:10px; height:10px; }
.chart-label { position:absolute; white-space:nowrap; font-size:11px; line-height:14px; padding:0 3px; background:rgba(255,255,255,.85); border-radius:2px; pointer-events:none; }
footer { color:var(--muted); font-size:12px; margin-top:32px; }
@media print { header.page { background:none; color:var(--fg); } .card, .tile { break-inside:avoid; } }
@media (max-width: 900px) { .charts { grid-template-columns:minmax(0,1fr); } main { padding:8px 12px 32px; } }
`;
