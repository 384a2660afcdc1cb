/**
 * `goodput trace analyze` as text and as JSON (both from one TraceAnalysis, so `--json`
 * gives the same numbers the table shows).
 *
 * @module
 */

import type { LengthDistribution, TraceAnalysis } from './analyze.js';

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const secs = (ms: number) =>
  ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : `${(ms / 1000).toFixed(ms >= 1000 ? 1 : 3)} s`;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function bar(value: number, max: number, width: number): string {
  const n = max > 0 ? Math.round((value / max) * width) : 0;
  return '█'.repeat(n).padEnd(width, ' ');
}

function lengthRow(name: string, d: LengthDistribution): string {
  const cells = [d.min, d.mean, d.p50, d.p90, d.p99, d.max].map((v) => int(v).padStart(9));
  return `  ${name.padEnd(14)}${cells.join('')}`;
}

function histogram(name: string, d: LengthDistribution): string[] {
  const most = Math.max(...d.histogram.map((b) => b.requests));
  return [
    `${name} (requests per length bucket)`,
    ...d.histogram.map(
      (b) => `  ≤ ${int(b.upTo).padStart(9)}  ${bar(b.requests, most, 30)} ${int(b.requests)}`,
    ),
  ];
}

/** The analysis as a terminal table. */
export function renderTraceAnalysis(a: TraceAnalysis): string {
  const out: string[] = [
    `trace ${a.path} (${a.format}, sha256 ${a.sha256.slice(0, 12)}…)`,
    `  requests      ${int(a.requests)}`,
    `  duration      ${secs(a.durationMs)}`,
    `  mean rate     ${a.meanRate === undefined ? 'all at once' : `${a.meanRate.toFixed(2)} req/s`}`,
    `  peak rate     ${a.peakRate.toFixed(2)} req/s (${secs(a.binMs)} bins)`,
  ];
  if (a.sessions > 0) out.push(`  sessions      ${int(a.sessions)}`);
  out.push('', `rate over time (${secs(a.binMs)} bins)`);
  for (const b of a.rateOverTime) {
    out.push(`  ${secs(b.startMs).padStart(9)}  ${bar(b.rate, a.peakRate, 30)} ${b.rate.toFixed(2)}/s`);
  }
  out.push(
    '',
    `  ${'tokens'.padEnd(14)}${['min', 'mean', 'p50', 'p90', 'p99', 'max'].map((h) => h.padStart(9)).join('')}`,
  );
  out.push(lengthRow('input', a.input), lengthRow('output', a.output), '');
  out.push(...histogram('input tokens', a.input), '', ...histogram('output tokens', a.output), '');
  const p = a.prefixCache;
  if (p) {
    out.push(
      `prefix cache: best possible hit rate ${pct(p.hitRate)} at ${p.blockSize}-token blocks`,
      `  ${int(p.hitTokens)} of ${int(p.promptTokens)} prompt tokens reusable by an unbounded cache of ${int(p.uniqueBlocks)} hash blocks (${p.traceBlockSize} tokens each)`,
    );
  } else {
    out.push('prefix cache: the trace names no hash_ids, so it says nothing of shared prefixes');
  }
  return `${out.join('\n')}\n`;
}

/** The analysis as the JSON document of `--json`. */
export function traceAnalysisJson(a: TraceAnalysis): string {
  return `${JSON.stringify({ schemaVersion: 1, kind: 'goodput.trace-analysis', ...a }, null, 2)}\n`;
}
