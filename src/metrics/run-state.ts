/**
 * The aggregated state of a run (everything a RunSummary is computed from, in memory that does
 * not grow with the number of requests) and the one function that turns it into a RunSummary.
 * The streaming accumulator and the merge of several summaries both fill a RunState, so a
 * merged run is computed by exactly the same formulas as a single one.
 *
 * @module
 */

import {
  type ErrorCount,
  type Finding,
  type GcPauses,
  type LatencyStats,
  PHASE_LATENCY_NAMES,
  type ReasoningSummary,
  type RequestErrorCode,
  type RunMeta,
  type RunSummary,
  SCHEMA_VERSION,
  type ServerSummary,
  type ServerTimingTotals,
  type ServerTokenTotals,
  SLO_NAMES,
  type Slo,
  type SloName,
  type StartWindow,
  SUMMARY_LATENCY_NAMES,
  type SummaryLatencies,
  type SummaryLatencyName,
  type VllmLatencyKeys,
} from '../types.js';
import type { AgentStats } from './agents.js';
import { runCaveats } from './caveats.js';
import { LatencyHistogram } from './histogram.js';
import type { PromptBuckets } from './prompt-buckets.js';
import { tokenCount } from './request-metrics.js';
import type { TurnStats } from './turns.js';
import { UserRates } from './user-rate.js';

/** Every latency a RunSummary keeps, in display order. */
export const SUMMARY_LATENCIES: readonly SummaryLatencyName[] = SUMMARY_LATENCY_NAMES;

const PHASES: ReadonlySet<SummaryLatencyName> = new Set(PHASE_LATENCY_NAMES);

/** The latencies that have vLLM flat keys. */
export const VLLM_LATENCIES = ['ttft', 'tpot', 'itl', 'e2el'] as const;

export { DEFAULT_LATE_SEND_TOLERANCE_MS } from './late-send.js';
/** With no verdict from the runner, the client counts as the bottleneck when more than this share of open-loop sends were late. */
export const CLIENT_BOUND_LATE_SHARE = 0.05;

/** What the runner knows and the records do not; every field optional. */
export interface SummaryExtras {
  /** Measured duration in seconds; default: first measured send to last measured end. */
  durationS?: number;
  /** Requests the runner could not send at all. */
  dropped?: number;
  /** Highest number of requests in flight at once; default: vLLM's per-second concurrency peak. */
  peakInFlight?: number;
  /** The runner's verdict; default: more than 5 % of open-loop sends were late. */
  clientBound?: boolean;
  /** Why, in words, when the runner found the client to be the bottleneck. */
  clientBoundReason?: string;
  interrupted?: boolean;
  /** Server's generated-token counter delta over the run; makes the token goodput ratio server-sourced. */
  serverGeneratedTokens?: number;
  server?: ServerSummary;
  diagnosis?: Finding[];
  /** The load thread(s)' GC pauses (measured by the runner; merged by mergeGcPauses). */
  gcPauses?: GcPauses;
  /** Live open loops: the measured phase's first second against the rest (runner; mergeStartWindows). */
  startWindow?: StartWindow;
}

/** Per-second peaks computed by the accumulator (or summed by a merge). */
export interface RunPeaks {
  outputTokensPerS: number;
  concurrentRequests: number;
}

/** Aggregates of one run. Latencies hold measured (non-warmup) successful requests only, as vLLM. */
export interface RunState {
  slo: Slo;
  latency: Record<SummaryLatencyName, LatencyHistogram>;
  /** firstSentMs − scheduledMs of open-loop requests, every outcome. */
  dispatchLag: LatencyHistogram;
  counts: RunSummary['counts'];
  errors: Map<RequestErrorCode, ErrorCount>;
  /** Prompt tokens of successful requests (vLLM's total_input_tokens). */
  inputTokens: number;
  /** Output tokens of successful requests (vLLM's total_output_tokens). */
  outputTokens: number;
  /** Output tokens received by the client from every measured request, cancelled and failed included. */
  receivedOutputTokens: number;
  /** Output tokens delivered to clients that did not cancel and got a complete answer. */
  usefulOutputTokens: number;
  /** Output tokens received by requests the run itself stopped (counted in receivedOutputTokens too). */
  interruptedOutputTokens: number;
  goodRequests: number;
  /** Reasoning and answer tokens of successful requests (the summary keeps it when any reasoned). */
  reasoning: ReasoningSummary;
  /** The server's own token counts of successful requests whose usage stated them (kept when any did). */
  serverTokens: ServerTokenTotals;
  /** llama.cpp's timings of successful requests that carried them (kept when any did). */
  serverTimings: ServerTimingTotals;
  /** Output tokens of the good requests. */
  goodOutputTokens: number;
  /** Requests that met each SLO set, on its own. */
  sloGood: Partial<Record<SloName, number>>;
  /** Per-user output tokens/s of successful requests. */
  userRates: UserRates;
  lateSends: number;
  /** Earliest first send and latest end of measured requests (±Infinity when none). */
  firstSentMs: number;
  lastEndMs: number;
  buckets?: PromptBuckets;
  /** Multi-turn sessions: figures by turn index (created at the first record with a turn). */
  turns?: TurnStats;
  /** Agent runs' records (metrics/agents.ts). */
  agents?: AgentStats;
}

/** A RunState with nothing recorded. */
export function newRunState(slo: Slo, buckets?: PromptBuckets): RunState {
  const latency = {} as Record<SummaryLatencyName, LatencyHistogram>;
  for (const name of SUMMARY_LATENCIES) latency[name] = new LatencyHistogram();
  return {
    slo: { ...slo },
    latency,
    dispatchLag: new LatencyHistogram(),
    counts: {
      attempted: 0,
      completed: 0,
      failed: 0,
      cancelled: 0,
      warmup: 0,
      retries: 0,
      usageMissing: 0,
      promptTokenMismatch: 0,
      interrupted: 0,
      overLimit: 0,
      endedEarly: 0,
    },
    errors: new Map(),
    inputTokens: 0,
    outputTokens: 0,
    receivedOutputTokens: 0,
    usefulOutputTokens: 0,
    interruptedOutputTokens: 0,
    goodRequests: 0,
    reasoning: { requests: 0, reasoningTokens: 0, answerTokens: 0, countedRequests: 0 },
    serverTokens: { requests: 0, inputTokens: 0, clientInputTokens: 0, outputTokens: 0 },
    serverTimings: { requests: 0, promptTokens: 0, cachedTokens: 0 },
    goodOutputTokens: 0,
    sloGood: {},
    userRates: new UserRates(),
    lateSends: 0,
    firstSentMs: Number.POSITIVE_INFINITY,
    lastEndMs: Number.NEGATIVE_INFINITY,
    buckets,
  };
}

/** a / b, or 0 when b is not positive (summaries never carry NaN or Infinity). */
export function ratio(a: number, b: number): number {
  // A rate or share is never NaN, infinite or negative, whatever a server claimed.
  if (!(a >= 0) || !(b > 0) || !Number.isFinite(a) || !Number.isFinite(b)) return 0;
  const r = a / b;
  return Number.isFinite(r) ? r : 0;
}

/** vLLM's flat latency keys (`mean_ttft_ms`, `median_ttft_ms`, `p99.9_itl_ms`, …) from the stats. */
export function vllmLatencyKeys(
  latency: Record<'ttft' | 'tpot' | 'itl' | 'e2el', LatencyStats>,
): VllmLatencyKeys {
  const out = {} as Record<string, number>;
  for (const name of VLLM_LATENCIES) {
    const s = latency[name];
    out[`mean_${name}_ms`] = s.mean;
    out[`median_${name}_ms`] = s.p50;
    out[`std_${name}_ms`] = s.std;
    out[`p50_${name}_ms`] = s.p50;
    out[`p90_${name}_ms`] = s.p90;
    out[`p95_${name}_ms`] = s.p95;
    out[`p99_${name}_ms`] = s.p99;
    out[`p99.9_${name}_ms`] = s.p999;
  }
  return out as VllmLatencyKeys;
}

/** Attainment of each SLO set, on its own, over the joint attainment's denominator. */
function perSloOf(state: RunState): Pick<RunSummary['goodput'], 'perSlo'> {
  const attempted = state.counts.attempted - (state.counts.interrupted ?? 0);
  const perSlo: NonNullable<RunSummary['goodput']['perSlo']> = {};
  for (const name of SLO_NAMES) {
    if (sloBound(state.slo, name) === undefined) continue;
    const good = state.sloGood[name] ?? 0;
    perSlo[name] = { good, attainment: ratio(good, attempted) };
  }
  return Object.keys(perSlo).length > 0 ? { perSlo } : {};
}

/** The bound an Slo sets for an objective, by name. */
export function sloBound(slo: Slo, name: SloName): number | undefined {
  return name === 'userTps' ? slo.userTps : slo[`${name}Ms`];
}

/**
 * Turns aggregates into a RunSummary.
 *
 * - duration: extras.durationS, else first measured send → last measured end;
 * - vLLM `failed` = attempted − completed (errors and cancels: vLLM has no cancel), while
 *   `counts.failed` counts errors only;
 * - goodput: a request is good when it succeeded and met every SLO set (every success when
 *   none is set); attainment = good / (attempted − interrupted): requests the run itself
 *   stopped (Ctrl-C, end of --duration) are neither good nor misses; request goodput = good / duration;
 * - token goodput ratio = useful / total output tokens, total = the server's generated-token
 *   delta when given (extras.serverGeneratedTokens, else extras.server.generatedTokens), else
 *   every token the client received, minus the tokens of requests the run itself interrupted
 *   (Ctrl-C, end of --duration: the client's cut, not the server's waste); clamped to [0, 1].
 */
export function buildSummary(
  state: RunState,
  peaks: RunPeaks,
  meta: RunMeta,
  extras: SummaryExtras = {},
): RunSummary {
  const measuredSpanS =
    state.lastEndMs > state.firstSentMs ? (state.lastEndMs - state.firstSentMs) / 1000 : 0;
  const duration = extras.durationS !== undefined && extras.durationS >= 0 ? extras.durationS : measuredSpanS;
  const latency = {} as Record<SummaryLatencyName, LatencyStats>;
  const histograms: Partial<Record<SummaryLatencyName, string>> = {};
  for (const name of SUMMARY_LATENCIES) {
    const h = state.latency[name];
    // A phase latency nothing measured is left out (as in summaries written before it existed).
    if (h.count > 0 || !PHASES.has(name)) latency[name] = h.stats();
    if (h.count > 0) histograms[name] = h.encode();
  }

  const claimed = extras.serverGeneratedTokens ?? extras.server?.generatedTokens;
  // A server counter that went backwards or overflowed is no count: the client's own is used.
  const serverTokens = claimed !== undefined && tokenCount(claimed) === claimed ? claimed : undefined;
  const tokenSource = serverTokens !== undefined ? 'server' : 'client';
  // Work the run itself interrupted is neither useful nor wasted: it leaves the total.
  const interruptedTokens = state.interruptedOutputTokens;
  const totalOutputTokens = Math.max(0, (serverTokens ?? state.receivedOutputTokens) - interruptedTokens);
  const useful = state.usefulOutputTokens;

  const dispatchLag = state.dispatchLag.stats();
  const clientBound =
    extras.clientBound ??
    (dispatchLag.count > 0 && state.lateSends / dispatchLag.count > CLIENT_BOUND_LATE_SHARE);
  const errors = [...state.errors.values()]
    .map((e) => ({ ...e }))
    .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));

  const summary: RunSummary = {
    schemaVersion: SCHEMA_VERSION,
    kind: 'goodput.run',
    meta,
    duration,
    completed: state.counts.completed,
    failed: state.counts.attempted - state.counts.completed,
    total_input_tokens: state.inputTokens,
    total_output_tokens: state.outputTokens,
    request_throughput: ratio(state.counts.completed, duration),
    request_goodput: ratio(state.goodRequests, duration),
    output_throughput: ratio(state.outputTokens, duration),
    total_token_throughput: ratio(state.inputTokens + state.outputTokens, duration),
    max_output_tokens_per_s: peaks.outputTokensPerS,
    max_concurrent_requests: peaks.concurrentRequests,
    ...vllmLatencyKeys(latency),
    counts: { ...state.counts },
    latency: latency as SummaryLatencies,
    throughput: {
      requestsPerS: ratio(state.counts.completed, duration),
      outputTokensPerS: ratio(state.outputTokens, duration),
      totalTokensPerS: ratio(state.inputTokens + state.outputTokens, duration),
      peakOutputTokensPerS: peaks.outputTokensPerS,
    },
    goodput: {
      slo: { ...state.slo },
      goodRequests: state.goodRequests,
      attempted: state.counts.attempted - (state.counts.interrupted ?? 0),
      attainment: ratio(state.goodRequests, state.counts.attempted - (state.counts.interrupted ?? 0)),
      requestGoodput: ratio(state.goodRequests, duration),
      usefulOutputTokens: useful,
      totalOutputTokens,
      wastedOutputTokens: Math.max(0, totalOutputTokens - useful),
      tokenGoodputRatio: Math.min(1, ratio(useful, totalOutputTokens)),
      tokenSource,
      ...(interruptedTokens > 0 ? { interruptedOutputTokens: interruptedTokens } : {}),
      goodOutputTokens: state.goodOutputTokens,
      goodTokenThroughput: ratio(state.goodOutputTokens, duration),
      ...perSloOf(state),
    },
    errors,
    load: {
      dispatchLag,
      lateSends: state.lateSends,
      dropped: extras.dropped ?? 0,
      clientBound,
      ...(clientBound && extras.clientBoundReason ? { clientBoundReason: extras.clientBoundReason } : {}),
      peakInFlight: extras.peakInFlight ?? peaks.concurrentRequests,
      ...(dispatchLag.count > 0 ? { dispatchLagHistogram: state.dispatchLag.encode() } : {}),
      ...(extras.gcPauses ? { gcPauses: extras.gcPauses } : {}),
      ...(extras.startWindow ? { startWindow: extras.startWindow } : {}),
    },
    histograms,
    interrupted: extras.interrupted ?? false,
  };
  if (state.reasoning.requests > 0) summary.reasoning = { ...state.reasoning };
  if (state.serverTokens.requests > 0) summary.serverTokens = { ...state.serverTokens };
  if (state.serverTimings.requests > 0) summary.serverTimings = { ...state.serverTimings };
  const perUser = state.userRates.summary();
  if (perUser) summary.perUser = perUser;
  if (extras.server) summary.server = extras.server;
  if (state.buckets && state.buckets.size > 0) summary.buckets = state.buckets.toBuckets();
  if (state.agents && state.agents.size > 0) summary.agents = state.agents.summary();
  if (state.turns && state.turns.size > 0) {
    summary.turns = state.turns.toRows();
    const later = state.turns.laterRow();
    if (later) summary.laterTurns = later;
  }
  if (extras.diagnosis) summary.diagnosis = extras.diagnosis;
  // A runner that adds load fields afterwards (connection warm-up, stages) sets them again.
  summary.caveats = runCaveats(summary);
  return summary;
}
