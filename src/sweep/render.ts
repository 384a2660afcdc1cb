/**
 * A sweep as a terminal table: one row per point in load order, then the knee, the
 * capacity at SLO and the diagnosis. Returns a string.
 *
 * @module
 */

import { renderFindings } from '../diagnosis/index.js';
import { caveatedPointPhrase } from '../metrics/index.js';
import type { SweepPointSummary, SweepResult } from '../types.js';
import { loadText } from './analysis.js';

function pad(s: string, n: number, right = false): string {
  return right ? s.padStart(n) : s.padEnd(n);
}

const f0 = (x: number) => (Number.isFinite(x) ? Math.round(x).toString() : '-');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');

/** The sweep as text. */
export function renderSweep(result: SweepResult): string {
  const sessions = result.unit === 'sessions';
  const head = [
    'phase',
    'load',
    'req/s',
    'out tok/s',
    'mean TTFT',
    'p99 TTFT',
    'mean TPOT',
    'mean E2EL',
    'attain',
    'err%',
    'SLO',
  ];
  const widths = [12, 12, 8, 10, 10, 10, 10, 10, 7, 6, 4];
  if (sessions) {
    head.splice(3, 0, 'sess/s');
    widths.splice(3, 0, 8);
  }
  const name = (p: SweepPointSummary) =>
    `${p.mode === 'concurrency' ? (sessions ? 's=' : 'c=') : sessions ? 'sr=' : 'r='}${p.load}`;
  const points = [...(result.anchors ?? []), ...result.points].sort((a, b) =>
    a.mode === b.mode ? a.load - b.load : a.mode === 'concurrency' ? -1 : 1,
  );
  // A column of caveat ids only when some point has one (its sentences follow the table).
  const anyCaveat = points.some((p) => p.caveats && p.caveats.length > 0);
  if (anyCaveat) {
    head.push('caveats');
    widths.push(0);
  }
  const rows = points.map((p) => [
    p.phase,
    name(p),
    f2(p.requestThroughput),
    ...(sessions ? [f2(p.sessionThroughput ?? Number.NaN)] : []),
    f0(p.outputThroughput),
    `${f0(p.meanTtftMs)} ms`,
    `${f0(p.p99TtftMs)} ms`,
    `${f2(p.meanTpotMs)} ms`,
    `${f0(p.meanE2elMs)} ms`,
    f2(p.attainment),
    (p.errorRate * 100).toFixed(0),
    p.passes ? 'ok' : 'miss',
    ...(anyCaveat ? [(p.caveats ?? []).map((c) => c.id).join(',')] : []),
  ]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => pad(c, widths[i]!, i > 1 && !(anyCaveat && i === cells.length - 1)))
      .join(' ')
      .trimEnd();
  const what = sessions
    ? result.mode === 'concurrency'
      ? 'sessions at once (s=)'
      : 'new sessions per second (sr=)'
    : result.mode;
  const of = result.trace ? `, replaying ${result.trace.path}` : '';
  const out = [`Sweep (${what}${of}), SLO attainment target ${result.minAttainment}`, line(head)];
  for (const r of rows) out.push(line(r));
  if (anyCaveat) {
    out.push('', 'Caveats (their figures may not be what the server can do):');
    for (const p of points) for (const c of p.caveats ?? []) out.push(`  ${name(p)}  ${c.id}: ${c.text}`);
  }
  out.push('');
  const from = (ids: readonly string[] | undefined) =>
    ids && ids.length > 0 ? ` (from ${caveatedPointPhrase(ids)})` : '';
  const at = (load: number) => loadText(result.mode, load, sessions);
  out.push(
    result.knee
      ? `Saturation point (knee): ${at(result.knee.load)} — ${f2(result.knee.requestThroughput)} req/s at mean E2EL ${f0(result.knee.meanE2elMs)} ms${from(result.knee.caveats)}`
      : 'Saturation point (knee): not reached (fewer than 3 points, or latency did not bend upward)',
  );
  const c = result.capacity;
  if (c) {
    const bound =
      c.firstFailingLoad === undefined
        ? ' (no load missed: capacity is at least this)'
        : `; ${c.firstFailingLoad} misses${c.resolved ? '' : ' (not fully bisected)'}`;
    out.push(`Capacity at SLO: ${at(c.load)} (attainment ${f2(c.attainment)})${bound}${from(c.caveats)}`);
  } else {
    out.push('Capacity at SLO: none — the lowest load already misses the attainment target');
  }
  if (result.stoppedEarly) out.push(`Stopped early: ${result.stoppedEarly}`);
  if (result.interrupted) out.push('Interrupted: the points above are what was measured');
  if (result.diagnosis && result.diagnosis.length > 0) {
    out.push('', `At ${result.diagnosisOf}:`, renderFindings(result.diagnosis).trimEnd());
  }
  return `${out.join('\n')}\n`;
}
