/**
 * Combining the summaries of several load generators that ran at the same time against the
 * same target into one, through the histograms, so that percentiles are exactly those of
 * recording every request in one place.
 *
 * - Exact: every latency (histograms merged, phase latencies too; count, mean, std, min and max merged from the
 *   exact moments), the per-turn rows of multi-turn sessions (counts, prompt tokens, TTFT
 *   histograms), dispatch lag, prompt buckets, counts, errors (example from the first run
 *   that saw the code), token totals, reasoning and answer tokens, good requests; everything derived from them (attainment,
 *   throughputs, goodput, vLLM keys) is recomputed by the same code as a single run.
 * - Summed: dropped, lateSends, peakInFlight, `max_output_tokens_per_s` and
 *   `max_concurrent_requests` (per-second peaks of concurrent generators: the sum is an upper
 *   bound, exact when their peaks fell in the same second); the achieved load per stage
 *   (`--stages`: sends, rate, mean in flight, against the one run's targets: stages.ts).
 * - duration: the longest of the runs (the generators ran concurrently).
 * - Server-counted output tokens: the largest delta when every run scraped the same metrics
 *   URL (each saw the whole server), else the sum.
 * - meta: the first run's, runId joined with '+'; server: the block with the most samples;
 *   interrupted / clientBound: any; diagnosis: dropped (recompute it on the merged run).
 * - GC pauses of the clients (`load.gcPauses`): counts and total time summed, the longest and
 *   the p99 the largest of the runs' (gc-pauses.ts; an upper bound for the p99).
 * - Shards of one `--shard i/N` run (shards.ts): refused unless they are every shard of one
 *   workload once; the duration spans every shard's window on the shared clock (as the one
 *   run's would), `meta.shard` is dropped (the merge is the whole run) and `shards` lists each
 *   shard's achieved load and start skew.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { LatencyStats, RunSummary, SloAttainment, SloName } from '../types.js';
import { classSummaryOf, classView } from './classes.js';
import { mergeGcPauses } from './gc-pauses.js';
import { LatencyHistogram } from './histogram.js';
import { PromptBucketState, PromptBuckets } from './prompt-buckets.js';
import {
  buildSummary,
  newRunState,
  type RunState,
  SUMMARY_LATENCIES,
  type SummaryExtras,
} from './run-state.js';
import { checkShardSet, shardOutcomes, shardSpanS } from './shards.js';
import { mergeStageLoads } from './stages.js';
import { mergeStartWindows } from './start-window.js';
import { TurnStats } from './turns.js';
import { UserRates } from './user-rate.js';

function decodeOrThrow(
  encoded: string | undefined,
  stats: LatencyStats | undefined,
  what: string,
  runId: string,
) {
  // A phase latency the run did not measure (or an older summary without it) is empty.
  if (stats === undefined || stats.count === 0) return new LatencyHistogram();
  if (encoded) return LatencyHistogram.decode(encoded, stats);
  throw new GoodputError(
    'E_RESULT',
    `run ${runId} has ${stats.count} ${what} values but no histogram, so it cannot be merged exactly`,
    'merge summaries written by goodput run (they carry histograms), not hand-edited ones',
  );
}

function sameSlo(a: RunSummary, b: RunSummary): boolean {
  const x = a.goodput.slo;
  const y = b.goodput.slo;
  return x.ttftMs === y.ttftMs && x.tpotMs === y.tpotMs && x.e2elMs === y.e2elMs && x.userTps === y.userTps;
}

/**
 * Merges the summaries of concurrent load generators into one RunSummary.
 * Throws GoodputError E_INCOMPARABLE when their SLOs differ (good requests would not add up).
 */
export function mergeSummaries(summaries: readonly RunSummary[]): RunSummary {
  const first = summaries[0];
  if (!first) {
    throw new GoodputError('E_USAGE', 'no run summaries to merge', 'pass at least one summary');
  }
  for (const s of summaries) {
    if (!sameSlo(first, s)) {
      throw new GoodputError(
        'E_INCOMPARABLE',
        `runs ${first.meta.runId} and ${s.meta.runId} were judged against different SLOs`,
        'merge only runs made with the same --slo',
      );
    }
  }
  const sharded = checkShardSet(summaries);
  const anyBuckets = summaries.some((s) => s.buckets && s.buckets.length > 0);
  const state: RunState = newRunState(first.goodput.slo, anyBuckets ? new PromptBuckets() : undefined);
  let peakTokens = 0;
  let peakConcurrent = 0;
  let duration = 0;
  const extras: SummaryExtras = { dropped: 0, peakInFlight: 0, clientBound: false, interrupted: false };
  for (const s of summaries) {
    const id = s.meta.runId;
    for (const name of SUMMARY_LATENCIES) {
      state.latency[name].merge(decodeOrThrow(s.histograms[name], s.latency[name], name, id));
    }
    state.dispatchLag.merge(
      decodeOrThrow(s.load.dispatchLagHistogram, s.load.dispatchLag, 'dispatch lag', id),
    );
    for (const key of Object.keys(state.counts) as Array<keyof RunState['counts']>) {
      state.counts[key] = (state.counts[key] ?? 0) + (s.counts[key] ?? 0);
    }
    for (const e of s.errors) {
      const seen = state.errors.get(e.code);
      if (seen) seen.count += e.count;
      else state.errors.set(e.code, { ...e });
    }
    state.inputTokens += s.total_input_tokens;
    state.outputTokens += s.total_output_tokens;
    const interrupted = s.goodput.interruptedOutputTokens ?? 0;
    state.receivedOutputTokens += s.goodput.totalOutputTokens + interrupted;
    state.interruptedOutputTokens += interrupted;
    state.usefulOutputTokens += s.goodput.usefulOutputTokens;
    state.goodRequests += s.goodput.goodRequests;
    const r = s.reasoning;
    // A run without a reasoning block had no reasoning: its answer tokens are its output tokens.
    state.reasoning.requests += r?.requests ?? 0;
    state.reasoning.reasoningTokens += r?.reasoningTokens ?? 0;
    state.reasoning.answerTokens += r?.answerTokens ?? s.total_output_tokens;
    state.reasoning.countedRequests += r?.countedRequests ?? 0;
    for (const key of ['requests', 'inputTokens', 'clientInputTokens', 'outputTokens'] as const) {
      state.serverTokens[key] += s.serverTokens?.[key] ?? 0;
    }
    for (const key of ['requests', 'promptTokens', 'cachedTokens'] as const) {
      state.serverTimings[key] += s.serverTimings?.[key] ?? 0;
    }
    state.goodOutputTokens += s.goodput.goodOutputTokens ?? 0;
    for (const [name, v] of Object.entries(s.goodput.perSlo ?? {}) as Array<[SloName, SloAttainment]>) {
      state.sloGood[name] = (state.sloGood[name] ?? 0) + v.good;
    }
    if (s.perUser) state.userRates.merge(UserRates.fromSummary(s.perUser));
    if (s.turns && s.turns.length > 0) {
      state.turns ??= new TurnStats();
      state.turns.mergeRows(s.turns, s.laterTurns, (e, stats, what) => decodeOrThrow(e, stats, what, id));
    }
    state.lateSends += s.load.lateSends;
    for (const b of s.buckets ?? []) state.buckets?.mergeState(PromptBucketState.fromBucket(b));
    peakTokens += s.max_output_tokens_per_s;
    peakConcurrent += s.max_concurrent_requests;
    duration = Math.max(duration, s.duration);
    extras.dropped = (extras.dropped ?? 0) + s.load.dropped;
    extras.peakInFlight = (extras.peakInFlight ?? 0) + s.load.peakInFlight;
    extras.clientBound = extras.clientBound || s.load.clientBound;
    extras.interrupted = extras.interrupted || s.interrupted;
    if (s.server && (!extras.server || s.server.samples > extras.server.samples)) extras.server = s.server;
  }
  extras.durationS = (sharded ? shardSpanS(summaries) : undefined) ?? duration;
  const gcPauses = mergeGcPauses(summaries.map((s) => s.load.gcPauses));
  if (gcPauses) extras.gcPauses = gcPauses;
  const startWindow = mergeStartWindows(summaries.map((s) => s.load.startWindow));
  if (startWindow) extras.startWindow = startWindow;
  if (summaries.every((s) => s.goodput.tokenSource === 'server')) {
    const urls = new Set(summaries.map((s) => s.server?.metricsUrl ?? ''));
    // Each run's total left its interrupted work out; buildSummary takes the merged amount out again.
    const totals = summaries.map(
      (s) => s.goodput.totalOutputTokens + (s.goodput.interruptedOutputTokens ?? 0),
    );
    extras.serverGeneratedTokens = urls.size === 1 ? Math.max(...totals) : totals.reduce((a, b) => a + b, 0);
  } else if (extras.server) {
    // keep the server block but not its token counter: some runs counted on the client
    extras.server = { ...extras.server };
    delete extras.server.generatedTokens;
  }
  const meta = { ...first.meta, runId: summaries.map((s) => s.meta.runId).join('+') };
  delete meta.shard;
  const merged = buildSummary(
    state,
    { outputTokensPerS: peakTokens, concurrentRequests: peakConcurrent },
    meta,
    extras,
  );
  if (sharded) merged.shards = shardOutcomes(summaries);
  const stages = mergeStageLoads(summaries.map((s) => s.load.stages));
  if (stages) merged.load.stages = stages;
  const classes = mergeClasses(summaries);
  if (classes) merged.classes = classes;
  return merged;
}

/** Traffic classes: each class merged as a run of its own (its view in every run), when every run has it. */
function mergeClasses(summaries: readonly RunSummary[]): RunSummary['classes'] {
  const specs = summaries[0]!.meta.workload.classes;
  if (!specs || !summaries.every((s) => s.classes)) return undefined;
  const merged: NonNullable<RunSummary['classes']> = [];
  for (const spec of specs) {
    const views: RunSummary[] = [];
    for (const s of summaries) {
      const view = classView(s, spec.name);
      if (!view) return undefined;
      views.push(view);
    }
    merged.push(classSummaryOf(spec, mergeSummaries(views)));
  }
  return merged;
}
