/**
 * Several replicas (or data-parallel ranks) scraped in one run: `--metrics-url` given more
 * than once, or a Prometheus server's series of several instances. Pure.
 *
 * Each replica's samples carry its name (`ServerSample.replica`). The run's server block is
 * then:
 * - each replica's own summary (`replicas`), from its samples alone (no client records: a
 *   router hides which replica served which request, so wasted tokens and derived
 *   fragmentation are the totals' only);
 * - the totals: counter deltas (tokens, preemptions, prefix-cache queries and hits, the
 *   server's latency histograms, speculative decoding) summed over the replicas, each replica's
 *   delta taken on its own samples, so the totals are exactly the sum of the replicas';
 * - gauges from scrape rounds (`combineRounds`): the samples of one tick of the scrape loop
 *   (or one step of a Prometheus range query) joined into one sample, queue depths and block
 *   counts summed, ratios (KV usage, fragmentation) averaged, block size the largest. A replica
 *   whose scrape failed in a round counts with its last value (stale by one interval, rather
 *   than a dip to zero);
 * - for the averaged ratios, the highest any replica reached and which (`replicaMax`).
 *
 * @module
 */

import type { ServerSample, ServerSeriesName, ServerSummary } from '../types.js';
import { counterDelta, type SummarizeServerOptions, seriesStats, summarizeServer } from './summarize.js';

/** How a series of several replicas combines in one scrape round. */
const MEAN_ACROSS_REPLICAS: ReadonlySet<ServerSeriesName> = new Set(['kvUsage', 'kvFragmentation']);
const MAX_ACROSS_REPLICAS: ReadonlySet<ServerSeriesName> = new Set(['blockSize']);

/** A replica scraped directly: its name and its metrics URL. */
export interface ReplicaEndpoint {
  name: string;
  url: string;
  /** The URL as printed and recorded (credential-looking query values redacted by the caller). */
  shownUrl?: string;
}

/**
 * Names for the endpoints of `--metrics-url` given several times: `NAME=URL` keeps NAME, else
 * the URL's host:port, with its path when two share a host:port, else `replica N`.
 *
 * @example
 * nameReplicas(['http://10.0.0.1:8000/metrics', 'b=http://10.0.0.2:8000/metrics'])
 * // [{ name: '10.0.0.1:8000', url: 'http://10.0.0.1:8000/metrics' }, { name: 'b', url: 'http://10.0.0.2:8000/metrics' }]
 */
export function nameReplicas(given: readonly string[]): ReplicaEndpoint[] {
  const parsed = given.map((g) => {
    const named = /^([A-Za-z0-9_.:-]{1,64})=(https?:\/\/.*)$/i.exec(g.trim());
    return named ? { name: named[1], url: named[2]! } : { name: undefined, url: g.trim() };
  });
  const hostOf = (url: string) => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  };
  const withPath = (url: string) => {
    try {
      const u = new URL(url);
      return `${u.host}${u.pathname}`;
    } catch {
      return url;
    }
  };
  const count = (names: string[], n: string) => names.filter((x) => x === n).length;
  const hosts = parsed.map((p) => hostOf(p.url));
  const paths = parsed.map((p) => withPath(p.url));
  const names = parsed.map((p, i) =>
    p.name !== undefined
      ? p.name
      : count(hosts, hosts[i]!) === 1
        ? hosts[i]!
        : count(paths, paths[i]!) === 1
          ? paths[i]!
          : `replica ${i + 1}`,
  );
  // A name given twice (or given and derived alike) gets its position.
  return parsed.map((p, i) => ({
    name: count(names, names[i]!) === 1 ? names[i]! : `${names[i]} #${i + 1}`,
    url: p.url,
  }));
}

/** The samples of each replica, in the order replicas first appear. */
export function samplesByReplica(samples: readonly ServerSample[]): Map<string, ServerSample[]> {
  const by = new Map<string, ServerSample[]>();
  for (const s of samples) {
    const name = s.replica ?? '';
    let list = by.get(name);
    if (!list) {
      list = [];
      by.set(name, list);
    }
    list.push(s);
  }
  return by;
}

/** Is this a scrape of several replicas? */
export function hasReplicas(samples: readonly ServerSample[]): boolean {
  return samples.some((s) => s.replica !== undefined);
}

function combineValues(parts: readonly ServerSample[]): ServerSample['values'] {
  const values: ServerSample['values'] = {};
  const counts: Partial<Record<ServerSeriesName, number>> = {};
  for (const part of parts) {
    for (const [key, v] of Object.entries(part.values) as [ServerSeriesName, number][]) {
      if (!Number.isFinite(v)) continue;
      const prev = values[key];
      if (MAX_ACROSS_REPLICAS.has(key)) values[key] = prev === undefined ? v : Math.max(prev, v);
      else values[key] = (prev ?? 0) + v;
      counts[key] = (counts[key] ?? 0) + 1;
    }
  }
  for (const key of MEAN_ACROSS_REPLICAS) {
    if (values[key] !== undefined) values[key] = values[key]! / counts[key]!;
  }
  return values;
}

/**
 * Joins scrape rounds of several replicas into one sample each, round after round: each
 * round's sample holds every replica seen so far at its latest values (see the module comment).
 */
export class RoundCombiner {
  private readonly latest = new Map<string, ServerSample>();

  /** One round (samples of distinct replicas, stamped alike) as one sample; undefined for an empty round. */
  add(round: readonly ServerSample[], tMs = round[0]?.tMs): ServerSample | undefined {
    if (round.length === 0 || tMs === undefined) return undefined;
    for (const s of round) this.latest.set(s.replica ?? '', s);
    const parts = [...this.latest.values()];
    const engine = parts.find((s) => s.engine !== 'unknown')?.engine ?? parts[0]!.engine;
    const sample: ServerSample = { tMs, engine, values: combineValues(parts) };
    const byPosition = parts.map((s) => s.specAcceptedByPosition).filter((l) => l !== undefined);
    if (byPosition.length > 0) {
      const length = Math.max(...byPosition.map((l) => l.length));
      sample.specAcceptedByPosition = Array.from({ length }, (_, k) =>
        byPosition.reduce((acc, l) => acc + (l[k] ?? 0), 0),
      );
    }
    return sample;
  }
}

/**
 * The scrape rounds of several replicas as one sample each. A round is the samples stamped at
 * one time, no replica twice: one tick of the scrape loop stamps its scrapes alike, and a
 * Prometheus range query gives every instance the same steps.
 */
export function combineRounds(samples: readonly ServerSample[]): ServerSample[] {
  const sorted = [...samples].sort((a, b) => a.tMs - b.tMs);
  const combiner = new RoundCombiner();
  const out: ServerSample[] = [];
  let round: ServerSample[] = [];
  const flush = () => {
    const sample = combiner.add(round);
    if (sample) out.push(sample);
    round = [];
  };
  for (const s of sorted) {
    if (round.length > 0 && (round[0]!.tMs !== s.tMs || round.some((r) => r.replica === s.replica))) flush();
    round.push(s);
  }
  flush();
  return out;
}

export interface SummarizeReplicasOptions extends SummarizeServerOptions {
  /** Each replica's metrics URL (as shown: redacted), by name; a replica not listed shows `metricsUrl`. */
  urls?: ReadonlyMap<string, string>;
  /** Failed scrapes by replica. */
  failures?: ReadonlyMap<string, number>;
}

/**
 * One server block from the samples of one or several replicas: `summarizeServer` when no
 * sample names a replica, else the totals and each replica's figures (see the module comment).
 */
export function summarizeSamples(
  samples: readonly ServerSample[],
  opts: SummarizeReplicasOptions,
): ServerSummary {
  if (!hasReplicas(samples)) return summarizeServer(samples, opts);
  const by = samplesByReplica(samples);
  const lists = [...by.values()];
  const rounds = combineRounds(samples);
  const { urls, failures, counterSources: _ignored, ...rest } = opts;
  const summary = summarizeServer(rounds, {
    ...rest,
    metricsUrl: urls ? [...by.keys()].map((r) => urls.get(r) ?? r).join(', ') : opts.metricsUrl,
    counterSources: lists,
  });
  summary.replicas = [...by].map(([replica, list]) => {
    const own = summarizeServer(list, {
      metricsUrl: urls?.get(replica) ?? opts.metricsUrl,
      ...(failures?.has(replica) ? { scrapeFailures: failures.get(replica)! } : {}),
    });
    const requests = counterDelta(list, 'serverTtftCount');
    return { replica, ...own, ...(requests !== undefined && list.length >= 2 ? { requests } : {}) };
  });
  const replicaMax: NonNullable<ServerSummary['replicaMax']> = {};
  for (const series of MEAN_ACROSS_REPLICAS) {
    for (const [replica, list] of by) {
      const peak = seriesStats(list, series)?.max;
      if (peak !== undefined && peak > (replicaMax[series]?.value ?? Number.NEGATIVE_INFINITY))
        replicaMax[series] = { value: peak, replica };
    }
  }
  if (Object.keys(replicaMax).length > 0) summary.replicaMax = replicaMax;
  return summary;
}
