/**
 * ServerSample[] → ServerSummary: what the engine saw during the run. Pure.
 *
 * - series: min / mean / max / last of every normalised series (the cumulative sums and
 *   counts of server-side histograms are left out; their means are reported instead);
 * - counters (preemptions, generated tokens, prefix-cache queries and hits) are reported as
 *   deltas between the first and last sample, robust to a counter reset (a server restart):
 *   a decrease counts the new value as the increment;
 * - prefix-cache hit rate = Δhits / Δqueries;
 * - speculative decoding (vLLM): acceptance rate = Δaccepted / Δdraft tokens, mean accepted
 *   length = 1 + Δaccepted / Δdrafts (vLLM's definition: the bonus token counts); per draft
 *   position k, Δaccepted at k / Δdrafts (vLLM's per-position acceptance rate);
 * - fragmentation: the server's own gauge when exposed, else derived (fragmentation.ts),
 *   averaged over samples where KV blocks were allocated;
 * - wasted tokens = Δ generation tokens − output tokens of successful responses − output tokens
 *   of requests the run itself interrupted (all records of the scrape window, warmup included,
 *   since the server counted their tokens too): the run's goodput uses the same definition
 *   (metrics/definitions.ts); without records, the server's own wasted-token counter when exposed.
 *
 * @module
 */

import type { RequestRecord, SeriesStats, ServerSample, ServerSeriesName, ServerSummary } from '../types.js';
import {
  type ClientSpan,
  derivedFragmentation,
  emptyHeld,
  foldSpan,
  type HeldAtSample,
  spanOf,
} from './fragmentation.js';

const HISTOGRAM_PARTS = new Set<ServerSeriesName>([
  'serverTtftSecondsSum',
  'serverTtftCount',
  'serverItlSecondsSum',
  'serverItlCount',
]);

/** What the server summary needs of the client's records, kept compact for long runs. */
export interface ClientView {
  /** Spans not folded yet (all of them when the builder had no samples to fold into). */
  spans: ClientSpan[];
  /** Per sample time (tMs): what the folded spans hold there. */
  folded?: ReadonlyMap<number, HeldAtSample>;
  /** Output tokens of successful responses (warmup included). */
  usefulTokens: number;
  /** Output tokens received by warmup requests. */
  warmupTokens: number;
  /** Output tokens of requests the run itself interrupted: neither useful nor wasted. */
  interruptedTokens?: number;
}

/** Spans kept before folding them into the samples they cover. */
const FOLD_EVERY = 1024;

/**
 * Builds a ClientView record by record, as the run goes. Given the live array of scraped
 * samples, it folds ended spans into per-sample sums (every sample a span covers has been
 * taken once a later sample exists), so memory follows the number of samples, not of requests.
 */
export class ClientViewBuilder {
  private spans: ClientSpan[] = [];
  private readonly folded = new Map<number, HeldAtSample>();
  private usefulTokens = 0;
  private warmupTokens = 0;
  private interruptedTokens = 0;

  constructor(private readonly samples?: readonly ServerSample[]) {}

  add(r: RequestRecord): void {
    this.spans.push(spanOf(r));
    // One definition with the run's goodput (metrics/definitions.ts): tokens of requests the run
    // itself interrupted are neither useful nor wasted.
    if (r.outcome === 'success') this.usefulTokens += r.outputTokens;
    else if (r.error?.code === 'INTERRUPTED') this.interruptedTokens += r.outputTokens;
    if (r.warmup) this.warmupTokens += r.outputTokens;
    if (this.samples && this.spans.length >= FOLD_EVERY) this.fold(this.samples);
  }

  private fold(samples: readonly ServerSample[]): void {
    const last = samples.at(-1)?.tMs;
    if (last === undefined) return;
    const keep: ClientSpan[] = [];
    for (const span of this.spans) {
      if (span.endMs >= last) {
        keep.push(span);
        continue;
      }
      // First sample at or after the span's send (samples are in time order).
      let lo = 0;
      let hi = samples.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (samples[mid]!.tMs < span.sentMs) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < samples.length && samples[i]!.tMs < span.endMs; i++) {
        const t = samples[i]!.tMs;
        let acc = this.folded.get(t);
        if (!acc) {
          acc = emptyHeld();
          this.folded.set(t, acc);
        }
        foldSpan(acc, span, t);
      }
    }
    this.spans = keep;
  }

  build(): ClientView {
    const view: ClientView = {
      spans: this.spans,
      usefulTokens: this.usefulTokens,
      warmupTokens: this.warmupTokens,
      interruptedTokens: this.interruptedTokens,
    };
    if (this.folded.size > 0) view.folded = this.folded;
    return view;
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
  /**
   * Several replicas (replicas.ts): each one's own samples, whose counter deltas add up; the
   * `samples` are then their combined scrape rounds, read for the gauges. Default: the samples.
   */
  counterSources?: readonly (readonly ServerSample[])[];
}

/** Increase of a cumulative counter read from each sample; undefined when no sample has a value. */
function cumulativeDelta(
  samples: readonly ServerSample[],
  read: (s: ServerSample) => number | undefined,
): number | undefined {
  let prev: number | undefined;
  let delta = 0;
  let seen = 0;
  for (const s of samples) {
    const v = read(s);
    if (v === undefined || !Number.isFinite(v)) {
      // A scrape that answered without the counter: a labelled counter appears on its first
      // increment (a histogram's count on its first request), so it stood at 0 there.
      if (prev === undefined && seen === 0 && v === undefined) prev = 0;
      continue;
    }
    seen++;
    if (prev !== undefined) delta += v >= prev ? v - prev : v;
    prev = v;
  }
  return seen === 0 ? undefined : delta;
}

/** The sum of what `read` gives for each item, undefined when it gives nothing for any. */
function sumDefined<T>(items: readonly T[], read: (item: T) => number | undefined): number | undefined {
  let sum: number | undefined;
  for (const item of items) {
    const v = read(item);
    if (v !== undefined) sum = (sum ?? 0) + v;
  }
  return sum;
}

/** Position-wise sums of several replicas' per-position counts (a shorter list counts 0 beyond its end). */
function sumByPosition(lists: readonly (number[] | undefined)[]): number[] | undefined {
  const given = lists.filter((l): l is number[] => l !== undefined);
  if (given.length <= 1) return given[0];
  const length = Math.max(...given.map((l) => l.length));
  return Array.from({ length }, (_, k) => given.reduce((acc, l) => acc + (l[k] ?? 0), 0));
}

/** Increase of a cumulative counter over the samples; undefined when fewer than one value. */
export function counterDelta(samples: readonly ServerSample[], series: ServerSeriesName): number | undefined {
  return cumulativeDelta(samples, (s) => s.values[series]);
}

/** Increase of each position of vLLM's per-position accepted-tokens counter; undefined when never exposed. */
function acceptedByPositionDelta(samples: readonly ServerSample[]): number[] | undefined {
  let positions = 0;
  for (const s of samples) positions = Math.max(positions, s.specAcceptedByPosition?.length ?? 0);
  if (positions === 0) return undefined;
  return Array.from(
    { length: positions },
    (_, k) => cumulativeDelta(samples, (s) => s.specAcceptedByPosition?.[k]) ?? 0,
  );
}

/**
 * Speculative decoding's figures from counts over the run (vLLM's definitions): acceptance
 * rate = accepted / draft tokens, mean accepted length = 1 + accepted / drafts (the bonus
 * token included), per position = accepted at that position / drafts. Each only when its
 * divisor is positive. The embedded engine in virtual time passes its own counters.
 */
export function specDecodeFigures(counts: {
  drafts: number | undefined;
  draftTokens: number | undefined;
  accepted: number | undefined;
  acceptedByPosition: readonly number[] | undefined;
}): Pick<ServerSummary, 'specAcceptanceRate' | 'specMeanAcceptedLength' | 'specAcceptanceRateByPosition'> {
  const { drafts, draftTokens, accepted, acceptedByPosition } = counts;
  const out: ReturnType<typeof specDecodeFigures> = {};
  if (accepted !== undefined && draftTokens) out.specAcceptanceRate = accepted / draftTokens;
  if (accepted !== undefined && drafts) out.specMeanAcceptedLength = 1 + accepted / drafts;
  if (acceptedByPosition && acceptedByPosition.length > 0 && drafts)
    out.specAcceptanceRateByPosition = acceptedByPosition.map((n) => n / drafts);
  return out;
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

  const sources = opts.counterSources ?? [samples];
  const delta = (series: ServerSeriesName): number | undefined =>
    sumDefined(sources, (l) => counterDelta(l, series));
  const preemptions = delta('preemptionsTotal');
  if (preemptions !== undefined) {
    summary.preemptions = preemptions;
    const windowMs = samples.length >= 2 ? samples.at(-1)!.tMs - samples[0]!.tMs : 0;
    if (windowMs > 0) summary.preemptionsPerS = preemptions / (windowMs / 1000);
  }

  const queries = delta('prefixCacheQueriesTotal');
  const hits = delta('prefixCacheHitsTotal');
  if (queries !== undefined && hits !== undefined && queries > 0) summary.prefixCacheHitRate = hits / queries;

  const ttftSum = delta('serverTtftSecondsSum');
  const ttftCount = delta('serverTtftCount');
  if (ttftSum !== undefined && ttftCount) summary.serverTtftMeanMs = (ttftSum / ttftCount) * 1000;
  const itlSum = delta('serverItlSecondsSum');
  const itlCount = delta('serverItlCount');
  if (itlSum !== undefined && itlCount) summary.serverItlMeanMs = (itlSum / itlCount) * 1000;

  const drafts = delta('specDraftsTotal');
  Object.assign(
    summary,
    specDecodeFigures({
      drafts,
      draftTokens: delta('specDraftTokensTotal'),
      accepted: delta('specAcceptedTokensTotal'),
      acceptedByPosition: drafts ? sumByPosition(sources.map(acceptedByPositionDelta)) : undefined,
    }),
  );

  const client = opts.records ? toView(opts.records) : undefined;
  const fragmentation = meanFragmentation(samples, client);
  if (fragmentation) {
    summary.kvFragmentation = fragmentation.value;
    summary.fragmentationSource = fragmentation.source;
  }

  const generated = delta('generationTokensTotal');
  if (generated !== undefined && samples.length >= 2) {
    summary.generatedTokens = generated;
    if (client)
      summary.wastedTokens = Math.max(0, generated - client.usefulTokens - (client.interruptedTokens ?? 0));
  }
  if (summary.wastedTokens === undefined) {
    const wasted = delta('wastedTokensTotal');
    if (wasted !== undefined && samples.length >= 2) summary.wastedTokens = wasted;
  }
  return summary;
}

function meanFragmentation(
  samples: readonly ServerSample[],
  client: ClientView | undefined,
): { value: number; source: 'server' | 'derived' } | undefined {
  let sum = 0;
  let count = 0;
  const exposed = samples.some((s) => s.values.kvFragmentation !== undefined);
  for (const s of samples) {
    // Only samples with KV in use: an idle cache has no meaningful fragmentation.
    if (!(s.values.kvUsage === undefined || s.values.kvUsage > 0)) continue;
    const v = exposed
      ? s.values.kvFragmentation
      : client
        ? derivedFragmentation(s, client.spans, client.folded?.get(s.tMs))
        : undefined;
    if (v === undefined || !Number.isFinite(v)) continue;
    sum += v;
    count++;
  }
  return count === 0 ? undefined : { value: sum / count, source: exposed ? 'server' : 'derived' };
}
