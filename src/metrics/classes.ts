/**
 * Traffic classes (`--class`): each class's figures, computed by the same accumulator as the
 * run's over the class's records and judged against the class's SLO (its own objectives over
 * the run's), and the view of a run as one of its classes, through which every reader of a
 * run's figures (the catalogue: gate, compare, ADR, watch) reads a class's.
 *
 * @module
 */

import type { ClassSummary, RunSummary, Slo, TrafficClassSpec } from '../types.js';
import { vllmLatencyKeys } from './run-state.js';

/** A class's SLO: each objective it sets over the run's. */
export function classSlo(runSlo: Slo, cls: Pick<TrafficClassSpec, 'slo'>): Slo {
  return { ...runSlo, ...cls.slo };
}

/** A class's figures from a summary of its records alone (measured over the run's duration). */
export function classSummaryOf(cls: TrafficClassSpec, summary: RunSummary): ClassSummary {
  return {
    name: cls.name,
    share: cls.share,
    ...(cls.priority !== undefined ? { priority: cls.priority } : {}),
    ...(cls.model !== undefined ? { model: cls.model } : {}),
    counts: summary.counts,
    latency: summary.latency,
    throughput: summary.throughput,
    goodput: summary.goodput,
    tokens: { input: summary.total_input_tokens, output: summary.total_output_tokens },
    errors: summary.errors,
    histograms: summary.histograms,
    ...(summary.perUser ? { perUser: summary.perUser } : {}),
    ...(summary.turns ? { turns: summary.turns } : {}),
    ...(summary.laterTurns ? { laterTurns: summary.laterTurns } : {}),
  };
}

/**
 * The run as one of its classes: the class's counts, latencies, throughput, goodput, errors,
 * histograms, per-user rates and turns (and vLLM's flat keys from them) in the run's place;
 * what is not measured per class (the server's metrics, efficiency, buckets) left out, so a
 * figure read through it is the class's or none. Undefined when the run has no such class.
 *
 * @example
 * classView(summary, 'chat')?.latency.ttft.p99; // the chat class's TTFT p99
 */
export function classView(summary: RunSummary, name: string): RunSummary | undefined {
  const cls = summary.classes?.find((c) => c.name === name);
  if (!cls) return undefined;
  const {
    server: _server,
    efficiency: _efficiency,
    perUser: _perUser,
    reasoning: _reasoning,
    serverTokens: _serverTokens,
    serverTimings: _serverTimings,
    buckets: _buckets,
    turns: _turns,
    laterTurns: _laterTurns,
    classes: _classes,
    diagnosis: _diagnosis,
    ...rest
  } = summary;
  return {
    ...rest,
    ...vllmLatencyKeys(cls.latency),
    completed: cls.counts.completed,
    failed: cls.counts.attempted - cls.counts.completed,
    total_input_tokens: cls.tokens.input,
    total_output_tokens: cls.tokens.output,
    request_throughput: cls.throughput.requestsPerS,
    request_goodput: cls.goodput.requestGoodput,
    output_throughput: cls.throughput.outputTokensPerS,
    total_token_throughput: cls.throughput.totalTokensPerS,
    max_output_tokens_per_s: cls.throughput.peakOutputTokensPerS,
    counts: cls.counts,
    latency: cls.latency,
    throughput: cls.throughput,
    goodput: cls.goodput,
    errors: cls.errors,
    histograms: cls.histograms,
    ...(cls.perUser ? { perUser: cls.perUser } : {}),
    ...(cls.turns ? { turns: cls.turns } : {}),
    ...(cls.laterTurns ? { laterTurns: cls.laterTurns } : {}),
  };
}
