/**
 * What the diagnosis could not judge, and why, in a line or two: a run without server metrics
 * cannot see queues or the KV cache at all; a run whose server was scraped can still lack a
 * figure because the engine does not publish it (llama.cpp has no preemption counter and no
 * prefix-cache counters), which is "not published by llama.cpp", not "no server metrics".
 * Read from the summary alone, so every reader of a summary.json can say it. Pure.
 *
 * @module
 */

import { type EngineId, engineLabel } from '../engines/index.js';
import { timingsPrefixCacheHitRate } from '../metrics/index.js';
import type { RunSummary, ServerSeriesName } from '../types.js';

/** The summary fields the lines read. */
export type UnmeasuredView = Partial<Pick<RunSummary, 'server' | 'serverTimings'>> & {
  meta?: { target?: { embedded?: boolean } };
};

/** A server figure the diagnosis reads, its name in text, and what lacks without it. */
const FIGURES: ReadonlyArray<{ series: ServerSeriesName; name: string; feeds: string }> = [
  { series: 'waiting', name: 'queue depth', feeds: 'queueing' },
  { series: 'running', name: 'running requests', feeds: 'decode-bound' },
  { series: 'kvUsage', name: 'KV-cache usage', feeds: 'KV pressure' },
  { series: 'preemptionsTotal', name: 'preemptions', feeds: 'KV pressure' },
];

/**
 * Lines naming what the diagnosis could not judge: with no server metrics, the findings that
 * need them; with server metrics, each figure the engine did not publish and the findings left
 * without evidence. Empty when nothing is missing.
 *
 * @param engine the engine when known otherwise (e.g. from llama.cpp's per-response timings)
 */
export function unmeasuredLines(view: UnmeasuredView, engine?: EngineId): string[] {
  const server = view.server;
  // Only llama.cpp's server sends per-response timings.
  const known = engine ?? (view.serverTimings ? 'llamacpp' : undefined);
  if (!server || server.samples === 0) {
    // The embedded engine in virtual time has no /metrics to scrape: nothing a flag would add.
    if (view.meta?.target?.embedded) return [];
    const fix =
      known === 'llamacpp'
        ? 'start llama-server with --metrics and give goodput --metrics-url http://HOST:PORT/metrics'
        : 'give --metrics-url http://HOST:PORT/metrics';
    return [`Not judged without server metrics (${fix}): queueing, KV pressure, decode-bound.`];
  }
  const label = engineLabel(server.engine === 'unknown' ? known : server.engine);
  const missing = FIGURES.filter((f) => server.series[f.series] === undefined);
  // llama.cpp's metrics have no prefix-cache counter, but its responses' timings give the rate.
  const hitRate = server.prefixCacheHitRate ?? timingsPrefixCacheHitRate(view);
  if (hitRate === undefined && server.series.prefixCacheQueriesTotal === undefined) {
    missing.push({ series: 'prefixCacheHitsTotal', name: 'prefix-cache hits', feeds: '' });
  }
  if (missing.length === 0) return [];
  const lines = [`Not published by ${label}: ${missing.map((f) => f.name).join(', ')}.`];
  const present = new Set(FIGURES.filter((f) => !missing.includes(f)).map((f) => f.feeds));
  const blind = [...new Set(missing.map((f) => f.feeds))].filter((f) => f !== '' && !present.has(f));
  const partial = [...new Set(missing.map((f) => f.feeds))].filter((f) => f !== '' && present.has(f));
  if (blind.length > 0) lines.push(`Not judged for want of them: ${blind.join(', ')}.`);
  if (partial.length > 0) lines.push(`Judged on part of the evidence: ${partial.join(', ')}.`);
  return lines;
}
