/**
 * ServerSample[] → ServerSummary: what the engine saw during the run. Pure.
 *
 * - series: min / mean / max / last of every normalised series (the cumulative sums and
 *   counts of server-side histograms are left out; their means are reported instead);
 * - counters (preemptions, generated tokens, prefix-cache queries and hits) are reported as
 *   deltas between the first and last sample, robust to a counter reset (a server restart):
 *   a decrease counts the new value as the increment;
 * - prefix-cache hit rate = Δhits / Δqueries;
 * - fragmentation: the server's own gauge when exposed, else derived (fragmentation.ts),
 *   averaged over samples where KV blocks were allocated;
 * - wasted tokens = Δ generation tokens − output tokens delivered to clients that did not
 *   cancel (all records of the scrape window, warmup included, since the server counted
 *   their tokens too); without records, the server's own wasted-token counter when exposed.
 *
 * @module
 */

import type { RequestRecord, SeriesStats, ServerSample, ServerSeriesName, ServerSummary } from '../types.js';
import { type ClientSpan, derivedFragmentation, spanOf } from './fragmentation.js';

const HISTOGRAM_PARTS = new Set<ServerSeriesName>([
  'serverTtftSecondsSum',
  'serverTtftCount',
  'serverItlSecondsSum',
  'serverItlCount',
]);

/** What the server summary needs of the client's records, kept compact for long runs. */
export interface ClientView {
  spans: ClientSpan[];
  /** Output tokens delivered to clients that did not cancel (warmup included). */
  usefulTokens: number;
  /** Output tokens received by warmup requests. */
  warmupTokens: number;
}

/** Builds a ClientView record by record, as the run goes. */
export class ClientViewBuilder {
  private readonly view: ClientView = { spans: [], usefulTokens: 0, warmupTokens: 0 };

  add(r: RequestRecord): void {
    this.view.spans.push(spanOf(r));
    if (r.outcome !== 'cancelled') this.view.usefulTokens += r.outputTokens;
    if (r.warmup) this.view.warmupTokens += r.outputTokens;
  }

  build(): ClientView {
    return this.view;
  }
}

/** The ClientView of a list of records. */
export function clientViewOf(records: readonly RequestRecord[]): ClientView {
  const b = new ClientViewBuilder();
  for (const r of records) b.add(r);
  return b.build();
}

export interface SummarizeServerOptions {
  metricsUrl: string;
  /** The run's records (warmup included) or their compact view: for wasted tokens and derived fragmentation. */
  records?: readonly RequestRecord[] | ClientView;
  scrapeFailures?: number;
}

/** Increase of a cumulative counter over the samples; undefined when fewer than one value. */
export function counterDelta(samples: readonly ServerSample[], series: ServerSeriesName): number | undefined {
  let prev: number | undefined;
  let delta = 0;
  let seen = 0;
  for (const s of samples) {
    const v = s.values[series];
    if (v === undefined || !Number.isFinite(v)) continue;
    seen++;
    if (prev !== undefined) delta += v >= prev ? v - prev : v;
    prev = v;
  }
  return seen === 0 ? undefined : delta;
}

/** min / mean / max / last of one series over the samples that carry it. */
export function seriesStats(
  samples: readonly ServerSample[],
  series: ServerSeriesName,
): SeriesStats | undefined {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let sum = 0;
  let count = 0;
  let last = 0;
  for (const s of samples) {
    const v = s.values[series];
    if (v === undefined || !Number.isFinite(v)) continue;
    min = Math.min(min, v);
    max = Math.max(max, v);
    sum += v;
    last = v;
    count++;
  }
  return count === 0 ? undefined : { min, mean: sum / count, max, last };
}

/**
 * The server's generated tokens attributable to measured (non-warmup) requests: the
 * generation delta minus what warmup requests received. This is what the token goodput
 * ratio divides by (`extras.serverGeneratedTokens`).
 */
export function measuredServerGeneratedTokens(
  server: ServerSummary,
  records: readonly RequestRecord[] | ClientView,
): number | undefined {
  if (server.generatedTokens === undefined) return undefined;
  return Math.max(0, server.generatedTokens - toView(records).warmupTokens);
}

function toView(records: readonly RequestRecord[] | ClientView): ClientView {
  return Array.isArray(records) ? clientViewOf(records as readonly RequestRecord[]) : (records as ClientView);
}

/** Summarises the scraped samples of one run. */
export function summarizeServer(
  samples: readonly ServerSample[],
  opts: SummarizeServerOptions,
): ServerSummary {
  const engine = samples.find((s) => s.engine !== 'unknown')?.engine ?? samples[0]?.engine ?? 'unknown';
  const summary: ServerSummary = { engine, metricsUrl: opts.metricsUrl, samples: samples.length, series: {} };
  if (opts.scrapeFailures !== undefined) summary.scrapeFailures = opts.scrapeFailures;

  const names = new Set<ServerSeriesName>();
  for (const s of samples) for (const k of Object.keys(s.values) as ServerSeriesName[]) names.add(k);
  for (const name of names) {
    if (HISTOGRAM_PARTS.has(name)) continue;
    const stats = seriesStats(samples, name);
    if (stats) summary.series[name] = stats;
  }

  const preemptions = counterDelta(samples, 'preemptionsTotal');
  if (preemptions !== undefined) {
    summary.preemptions = preemptions;
    const windowMs = samples.length >= 2 ? samples.at(-1)!.tMs - samples[0]!.tMs : 0;
    if (windowMs > 0) summary.preemptionsPerS = preemptions / (windowMs / 1000);
  }

  const queries = counterDelta(samples, 'prefixCacheQueriesTotal');
  const hits = counterDelta(samples, 'prefixCacheHitsTotal');
  if (queries !== undefined && hits !== undefined && queries > 0) summary.prefixCacheHitRate = hits / queries;

  const ttftSum = counterDelta(samples, 'serverTtftSecondsSum');
  const ttftCount = counterDelta(samples, 'serverTtftCount');
  if (ttftSum !== undefined && ttftCount) summary.serverTtftMeanMs = (ttftSum / ttftCount) * 1000;
  const itlSum = counterDelta(samples, 'serverItlSecondsSum');
  const itlCount = counterDelta(samples, 'serverItlCount');
  if (itlSum !== undefined && itlCount) summary.serverItlMeanMs = (itlSum / itlCount) * 1000;

  const client = opts.records ? toView(opts.records) : undefined;
  const fragmentation = meanFragmentation(samples, client?.spans);
  if (fragmentation) {
    summary.kvFragmentation = fragmentation.value;
    summary.fragmentationSource = fragmentation.source;
  }

  const generated = counterDelta(samples, 'generationTokensTotal');
  if (generated !== undefined && samples.length >= 2) {
    summary.generatedTokens = generated;
    if (client) summary.wastedTokens = Math.max(0, generated - client.usefulTokens);
  }
  if (summary.wastedTokens === undefined) {
    const wasted = counterDelta(samples, 'wastedTokensTotal');
    if (wasted !== undefined && samples.length >= 2) summary.wastedTokens = wasted;
  }
  return summary;
}

function meanFragmentation(
  samples: readonly ServerSample[],
  spans: readonly ClientSpan[] | undefined,
): { value: number; source: 'server' | 'derived' } | undefined {
  let sum = 0;
  let count = 0;
  const exposed = samples.some((s) => s.values.kvFragmentation !== undefined);
  for (const s of samples) {
    // Only samples with KV in use: an idle cache has no meaningful fragmentation.
    if (!(s.values.kvUsage === undefined || s.values.kvUsage > 0)) continue;
    const v = exposed ? s.values.kvFragmentation : spans ? derivedFragmentation(s, spans) : undefined;
    if (v === undefined || !Number.isFinite(v)) continue;
    sum += v;
    count++;
  }
  return count === 0 ? undefined : { value: sum / count, source: exposed ? 'server' : 'derived' };
}
