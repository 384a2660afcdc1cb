/**
 * The shards of one sharded run (`goodput run --shard i/N`) as `mergeSummaries` takes them:
 * checked to be every shard of one workload exactly once, their common window (so the merged
 * duration is the whole run's), and each shard's achieved load and start skew.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { RunMeta, RunSummary, ShardOutcome } from '../types.js';

function refuse(message: string, hint: string): GoodputError {
  return new GoodputError('E_INCOMPARABLE', message, hint);
}

/**
 * What every shard of one run shares: the workload, its seed, sampling, load and target (not
 * `--workers`: how many threads a shard's machine gave it is its own affair).
 */
function workloadKey(m: RunMeta): string {
  const { workers: _, ...load } = m.load;
  return JSON.stringify([m.seed, m.sampling, m.workload, load, m.model, m.target, m.slo]);
}

/**
 * Whether the summaries are shards, after checking they are all the shards of one run: the
 * same count, seed, workload, sampling, load and target, each index 0..N−1 exactly once.
 * False when none is a shard (a merge of independent load generators).
 */
export function checkShardSet(summaries: readonly RunSummary[]): boolean {
  const sharded = summaries.filter((s) => s.meta.shard !== undefined);
  if (sharded.length === 0) return false;
  const name = (s: RunSummary) =>
    s.meta.shard
      ? `shard ${s.meta.shard.index}/${s.meta.shard.count} (run ${s.meta.runId})`
      : `run ${s.meta.runId}`;
  if (sharded.length < summaries.length) {
    const plain = summaries.find((s) => s.meta.shard === undefined)!;
    throw refuse(
      `${name(plain)} is not a shard, but ${name(sharded[0]!)} is`,
      'merge the N result folders of one `goodput run --shard i/N` run, and nothing else',
    );
  }
  const first = summaries[0]!;
  const count = first.meta.shard!.count;
  const key = workloadKey(first.meta);
  for (const s of summaries) {
    if (s.meta.shard!.count !== count) {
      throw refuse(
        `${name(s)} belongs to a run of ${s.meta.shard!.count} shards, ${name(first)} to one of ${count}`,
        'merge the shards of one run: every --shard i/N with the same N',
      );
    }
    if (workloadKey(s.meta) !== key) {
      const what = s.meta.seed !== first.meta.seed ? `seed ${s.meta.seed} ≠ ${first.meta.seed}` : 'workload';
      throw refuse(
        `${name(s)} ran another workload than ${name(first)} (${what}): their union is not one run`,
        'run every shard with the same flags (seed, requests, load, target) but --shard; `goodput emit k8s-job` writes them so',
      );
    }
  }
  const seen = new Map<number, RunSummary>();
  for (const s of summaries) {
    const i = s.meta.shard!.index;
    const twin = seen.get(i);
    if (twin) {
      throw refuse(
        `shard ${i}/${count} is given twice (runs ${twin.meta.runId} and ${s.meta.runId})`,
        'pass each shard folder once: a shard merged twice would count its requests twice',
      );
    }
    seen.set(i, s);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !seen.has(i));
  if (missing.length > 0) {
    throw refuse(
      `shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${count} missing: the merge would be part of the workload`,
      `pass all ${count} shard folders (--shard 0/${count} … ${count - 1}/${count}); rerun a shard that failed with the same flags`,
    );
  }
  return true;
}

/**
 * The merged run's duration in seconds: first measured send to last measured end over every
 * shard, on the shared clock (each shard's window is after its own start, which was its skew
 * after the shared instant). Undefined when a shard did not record its window.
 */
export function shardSpanS(summaries: readonly RunSummary[]): number | undefined {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const s of summaries) {
    const w = s.load.shardWindow;
    if (!w) {
      if (s.counts.attempted > 0) return undefined;
      continue;
    }
    const skew = s.load.startSkewMs ?? 0;
    first = Math.min(first, w.firstSendMs + skew);
    last = Math.max(last, w.lastEndMs + skew);
  }
  return last > first ? (last - first) / 1000 : undefined;
}

/** Each shard's achieved load and start skew, by index. */
export function shardOutcomes(summaries: readonly RunSummary[]): ShardOutcome[] {
  return summaries
    .map((s) => {
      const o: ShardOutcome = {
        index: s.meta.shard!.index,
        runId: s.meta.runId,
        attempted: s.counts.attempted,
        requestsPerS: s.throughput.requestsPerS,
        outputTokensPerS: s.throughput.outputTokensPerS,
      };
      if (s.load.startSkewMs !== undefined) o.startSkewMs = s.load.startSkewMs;
      return o;
    })
    .sort((a, b) => a.index - b.index);
}

/** Spread of the shards' start skews (latest − earliest start, ms), when every shard recorded one. */
export function startSkewSpreadMs(shards: readonly ShardOutcome[]): number | undefined {
  const skews = shards.map((s) => s.startSkewMs);
  if (skews.length === 0 || skews.some((s) => s === undefined)) return undefined;
  const v = skews as number[];
  return Math.max(...v) - Math.min(...v);
}

/** Warm-up and connection set-up before a run's measured window that a merge allows for. */
export const MERGE_WINDOW_GRACE_MS = 10_000;

/**
 * Why runs given to `merge` were not one run's parts in time, as lines (empty when they were):
 * shards told to start at different `--start-at` instants, or runs whose measured windows
 * (t0 to t0 + duration, allowing MERGE_WINDOW_GRACE_MS of warm-up) do not overlap. A merge of
 * runs taken at different times would report one load that never ran, at a rate that
 * never was.
 */
export function timeDiffs(summaries: readonly RunSummary[], names: readonly string[]): string[] {
  const out: string[] = [];
  const starts = new Set(summaries.map((s) => s.meta.shard?.startAt).filter((t) => t !== undefined));
  if (starts.size > 1) {
    out.push(
      `the shards were told to start at different instants (--start-at ${[...starts].sort().join(', ')}): they did not run together`,
    );
  }
  const windows = summaries.map((s) => {
    const start = Date.parse(s.meta.startedAt);
    return { start, end: start + s.duration * 1000 + MERGE_WINDOW_GRACE_MS };
  });
  for (let i = 1; i < windows.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = windows[j]!;
      const b = windows[i]!;
      if (!Number.isFinite(a.start) || !Number.isFinite(b.start)) continue;
      if (b.start > a.end || a.start > b.end) {
        out.push(
          `${names[i]} ran from ${new Date(b.start).toISOString()}, ${names[j]} from ${new Date(a.start).toISOString()} (${summaries[j]!.duration.toFixed(1)} s): their windows do not overlap`,
        );
      }
    }
  }
  return out;
}
