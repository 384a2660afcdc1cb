/**
 * Several replicas scraped by one scrape loop (`--metrics-url` given more than once): each
 * tick scrapes every endpoint at once and stamps the answers alike, so a tick is one round of
 * `combineRounds`. A replica that fails is counted against its name and the tick goes on with
 * the others; the tick fails only when every replica does.
 *
 * @module
 */

import type { ServerSample } from '../types.js';
import type { NormalizedScrape } from './normalize.js';
import { type ReplicaEndpoint, RoundCombiner } from './replicas.js';
import { type Scraper, type ScraperOptions, scrapeOnce, startScrapeLoop } from './scraper.js';

/** A replica to scrape, with the scrape taken just before the run's t0 when it answered. */
export interface ReplicaTarget extends ReplicaEndpoint {
  baseline?: NormalizedScrape;
}

export interface ReplicaScraperOptions
  extends Omit<ScraperOptions, 'url' | 'baseline' | 'onSample' | 'slotsUrl'> {
  replicas: readonly ReplicaTarget[];
  /** Every replica's sample (naming its replica) as it comes. */
  onSample?: (sample: ServerSample) => void;
}

/**
 * A scraper of several replicas. Its `samples` are the rounds joined (totals per tick: what
 * diagnosis and the client's view read); `replicaSamples` each replica's own.
 */
export interface ReplicaScraper extends Scraper {
  readonly replicaSamples: readonly ServerSample[];
  readonly failuresByReplica: ReadonlyMap<string, number>;
}

type Round = { parts: (NormalizedScrape | undefined)[] };

/** Starts scraping every replica now (or from their baselines), one round per interval. */
export function startReplicaScraper(opts: ReplicaScraperOptions): ReplicaScraper {
  const { replicas, onSample, ...loopOpts } = opts;
  const replicaSamples: ServerSample[] = [];
  const rounds: ServerSample[] = [];
  const failuresByReplica = new Map<string, number>();
  let lastError: string | undefined;
  const combiner = new RoundCombiner();

  const read = async (
    _url: string,
    o: { timeoutMs: number; headers?: Record<string, string> },
  ): Promise<Round> => {
    const settled = await Promise.allSettled(replicas.map((r) => scrapeOnce(r.url, o)));
    const parts = settled.map((s, i) => {
      if (s.status === 'fulfilled') return s.value;
      const name = replicas[i]!.name;
      failuresByReplica.set(name, (failuresByReplica.get(name) ?? 0) + 1);
      lastError = `${name}: ${(s.reason as Error).message}`;
      return undefined;
    });
    if (parts.every((p) => p === undefined)) throw new Error(lastError ?? 'no replica answered');
    return { parts };
  };

  const take = (round: Round & { tMs: number }) => {
    const samples: ServerSample[] = [];
    round.parts.forEach((part, i) => {
      if (!part) return;
      const sample: ServerSample = { tMs: round.tMs, ...part, replica: replicas[i]!.name };
      samples.push(sample);
      replicaSamples.push(sample);
      onSample?.(sample);
    });
    const joined = combiner.add(samples, round.tMs);
    if (joined) rounds.push(joined);
  };

  const baselines = replicas.map((r) => r.baseline);
  const loop = startScrapeLoop<Round>({
    ...loopOpts,
    url: replicas[0]!.url,
    keepSamples: false,
    read,
    onSample: take,
    ...(baselines.some((b) => b !== undefined) ? { baseline: { parts: baselines } } : {}),
  });

  return {
    get samples() {
      return rounds;
    },
    get replicaSamples() {
      return replicaSamples;
    },
    get failures() {
      let n = 0;
      for (const v of failuresByReplica.values()) n += v;
      return n;
    },
    get failuresByReplica() {
      return failuresByReplica;
    },
    get lastError() {
      return lastError;
    },
    scrapeNow: async () => {
      await loop.scrapeNow();
      return rounds.at(-1);
    },
    stop: () => loop.stop(),
  };
}
