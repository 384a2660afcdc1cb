/**
 * A store's windows: rounds grouped by target and by window of `windowMs` (aligned to
 * multiples of it since the epoch), with figures recomputed from the merged histograms of
 * their valid rounds (exact percentiles of the window's values, within the store histogram's
 * bucket precision) and their GPU windows merged by server-metrics' one definition.
 *
 * @module
 */

// gpu-summary.ts alone: server-metrics' index loads its scrapers and the HTTP client too.
import { mergeGpuAggregates } from '../server-metrics/gpu-summary.js';
import type { RequestErrorCode } from '../types.js';
import { StoreHistogram } from './histogram.js';
import { type RoundRow, unpackHistograms } from './rows.js';
import {
  type RoundGpuFigures,
  type RoundServerFigures,
  STORED_LATENCIES,
  type StoredLatency,
  type WindowFigures,
} from './types.js';

/** The windows of rounds read in order of target and start time; `names` maps target ids to names. */
export function windowFigures(
  rows: Iterable<RoundRow>,
  names: ReadonlyMap<number, string>,
  windowMs: number,
): WindowFigures[] {
  const out: WindowFigures[] = [];
  let current:
    | {
        key: string;
        fig: WindowFigures;
        hist: Record<StoredLatency, StoreHistogram>;
        gpu: RoundGpuFigures[];
      }
    | undefined;
  const flush = () => {
    if (!current) return;
    const { fig, hist } = current;
    const gpu = mergeGpuAggregates(current.gpu);
    if (gpu) fig.gpu = gpu;
    for (const name of STORED_LATENCIES) {
      const h = hist[name];
      fig.latency[name] = {
        count: h.count,
        p50: h.percentile(50),
        p90: h.percentile(90),
        p99: h.percentile(99),
        mean: h.mean,
      };
    }
    fig.attainment = fig.attempted > 0 ? fig.good / fig.attempted : Number.NaN;
    out.push(fig);
  };
  for (const row of rows) {
    const start = Math.floor(row.started_at / windowMs) * windowMs;
    const key = `${row.target_id}:${start}`;
    if (current?.key !== key) {
      flush();
      current = {
        key,
        fig: {
          target: names.get(row.target_id) ?? '?',
          start,
          rounds: 0,
          invalidRounds: 0,
          attempted: 0,
          failed: 0,
          good: 0,
          attainment: 0,
          errors: {},
          latency: {} as WindowFigures['latency'],
        },
        hist: {
          ttft: new StoreHistogram(),
          tpot: new StoreHistogram(),
          itl: new StoreHistogram(),
          e2el: new StoreHistogram(),
        },
        gpu: [],
      };
    }
    const { fig, hist } = current;
    fig.rounds++;
    if (!row.valid) {
      fig.invalidRounds++;
      continue;
    }
    fig.attempted += row.attempted;
    fig.failed += row.failed;
    fig.good += row.good;
    if (row.errors) {
      for (const [code, n] of Object.entries(JSON.parse(row.errors) as Record<string, number>)) {
        const c = code as RequestErrorCode;
        fig.errors[c] = (fig.errors[c] ?? 0) + n;
      }
    }
    const h = unpackHistograms(row.hist);
    for (const name of STORED_LATENCIES) hist[name].merge(h[name]);
    const gpu = row.server === null ? undefined : (JSON.parse(row.server) as RoundServerFigures).gpu;
    if (gpu) current.gpu.push(gpu);
  }
  flush();
  return out;
}
