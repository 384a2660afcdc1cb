/**
 * Per-request metrics derived from a RequestRecord's raw timestamps (DESIGN.md's definitions,
 * vLLM-compatible): TTFT, E2EL, TPOT, ITL per chunk and per token, queue wait, and the
 * latencies measured from the scheduled send time.
 *
 * @module
 */

import type { RequestRecord, Slo, SloName } from '../types.js';

/** Above this a token count in a record is not a count (no response is a trillion tokens long). */
const MAX_TOKEN_COUNT = 1e12;

/**
 * A token count that can be added up: a finite number from 0 to a trillion, else 0. The client
 * refuses impossible counts (IMPOSSIBLE_VALUE), but a record read from a file may carry anything.
 */
export function tokenCount(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= MAX_TOKEN_COUNT ? n : 0;
}

/** What one request measured, in milliseconds. Undefined where the record lacks the timestamps. */
export interface RequestMetrics {
  /** firstTokenMs − sentMs (final attempt). */
  ttftMs?: number;
  /** endMs − sentMs (final attempt). */
  e2elMs: number;
  /** (E2EL − TTFT) / (outputTokens − 1), only when outputTokens > 1 and a first token arrived. */
  tpotMs?: number;
  /** Gaps between consecutive content chunks (one fewer than chunks). */
  itlMs: number[];
  /** Tokens carried by each chunk (see allocateChunkTokens); same length as chunkMs. */
  chunkTokens: number[];
  /** itlMs[i] / chunkTokens[i + 1]: the gap divided by the tokens of the later chunk. */
  itlPerTokenMs: number[];
  /**
   * firstSentMs − scheduledMs: time spent waiting in the client before the first attempt was
   * sent. Retry back-off is deliberately not queue wait: it shows in the FromScheduled latencies.
   */
  queueWaitMs: number;
  /** firstTokenMs − scheduledMs: TTFT as the user who wanted to send at scheduledMs felt it. */
  ttftFromScheduledMs?: number;
  /** endMs − scheduledMs. */
  e2elFromScheduledMs: number;
  /** First chunk carrying reasoning − sentMs; undefined when no chunk carried reasoning. */
  ttfrtMs?: number;
  /** First chunk carrying answer (content, tool calls) − sentMs; undefined when none did. */
  ttfatMs?: number;
  /** Gaps between consecutive reasoning chunks. */
  reasoningItlMs: number[];
  /** Gaps between consecutive answer chunks. */
  answerItlMs: number[];
  /**
   * Reasoning tokens: the record's (usage, else counted by the client), else one per chunk
   * carrying reasoning; at most the output tokens. 0 without reasoning.
   */
  reasoningTokens: number;
  /** outputTokens − reasoningTokens. */
  answerTokens: number;
}

/** The phase figures of a record: first reasoning and answer chunks, ITL inside each phase, token split. */
export function phaseMetrics(
  record: RequestRecord,
  outputTokens: number,
): Pick<
  RequestMetrics,
  'ttfrtMs' | 'ttfatMs' | 'reasoningItlMs' | 'answerItlMs' | 'reasoningTokens' | 'answerTokens'
> {
  const { chunkMs, chunkChars, sentMs } = record;
  const reasoningChars = record.chunkReasoningChars;
  const reasoningItlMs: number[] = [];
  const answerItlMs: number[] = [];
  let ttfrtMs: number | undefined;
  let ttfatMs: number | undefined;
  let lastReasoning: number | undefined;
  let lastAnswer: number | undefined;
  let reasoningChunks = 0;
  for (let i = 0; i < chunkMs.length; i++) {
    const t = chunkMs[i] as number;
    const r = reasoningChars?.[i] ?? 0;
    // A chunk may carry both (a non-streamed answer): it counts in each phase.
    if (r > 0) {
      reasoningChunks++;
      if (lastReasoning === undefined) ttfrtMs = t - sentMs;
      else reasoningItlMs.push(t - lastReasoning);
      lastReasoning = t;
    }
    if (reasoningChars === undefined || (chunkChars[i] ?? 0) > r) {
      if (lastAnswer === undefined) ttfatMs = t - sentMs;
      else answerItlMs.push(t - lastAnswer);
      lastAnswer = t;
    }
  }
  const reported = record.reasoningTokens;
  const reasoningTokens = Math.min(
    outputTokens,
    reported !== undefined ? tokenCount(reported) : reasoningChunks,
  );
  return {
    ttfrtMs,
    ttfatMs,
    reasoningItlMs,
    answerItlMs,
    reasoningTokens,
    answerTokens: outputTokens - reasoningTokens,
  };
}

/**
 * How many output tokens each chunk carried, given the characters of each chunk and the
 * request's total output tokens.
 *
 * - chunks == tokens: one token each (the common case: servers stream token by token);
 * - otherwise the tokens are shared in proportion to characters by the largest-remainder
 *   method (ties go to the earlier chunk), then every chunk left with 0 takes one token from
 *   the chunk holding the most, so that each chunk carries at least one;
 * - fewer tokens than chunks (a server whose usage disagrees with its stream): one each, as
 *   no chunk can carry less than a token; the total then exceeds outputTokens.
 */
export function allocateChunkTokens(chunkChars: readonly number[], outputTokens: number): number[] {
  const n = chunkChars.length;
  if (n === 0) return [];
  if (outputTokens <= n) return new Array<number>(n).fill(1);
  let totalChars = 0;
  for (const c of chunkChars) totalChars += Math.max(0, c);
  const weights = totalChars > 0 ? chunkChars.map((c) => Math.max(0, c)) : new Array<number>(n).fill(1);
  const weightSum = totalChars > 0 ? totalChars : n;
  const tokens = new Array<number>(n);
  const remainders: Array<[number, number]> = [];
  let assigned = 0;
  for (let i = 0; i < n; i++) {
    const quota = (outputTokens * (weights[i] as number)) / weightSum;
    const whole = Math.floor(quota);
    tokens[i] = whole;
    assigned += whole;
    remainders.push([quota - whole, i]);
  }
  remainders.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let r = 0; r < outputTokens - assigned; r++) {
    const i = (remainders[r] as [number, number])[1];
    tokens[i] = (tokens[i] as number) + 1;
  }
  for (let i = 0; i < n; i++) {
    if (tokens[i] !== 0) continue;
    let donor = 0;
    for (let j = 1; j < n; j++) if ((tokens[j] as number) > (tokens[donor] as number)) donor = j;
    tokens[donor] = (tokens[donor] as number) - 1;
    tokens[i] = 1;
  }
  return tokens;
}

/**
 * Derives a request's latencies from its raw timestamps.
 *
 * @example
 * const m = requestMetrics(record);
 * m.ttftMs; // firstTokenMs − sentMs
 */
export function requestMetrics(record: RequestRecord): RequestMetrics {
  const { sentMs, endMs, firstTokenMs, scheduledMs, chunkMs } = record;
  const outputTokens = tokenCount(record.outputTokens);
  const e2elMs = endMs - sentMs;
  const ttftMs = firstTokenMs === undefined ? undefined : firstTokenMs - sentMs;
  const tpotMs =
    ttftMs !== undefined && outputTokens > 1 ? (e2elMs - ttftMs) / (outputTokens - 1) : undefined;
  const chunkTokens = allocateChunkTokens(record.chunkChars, outputTokens);
  const itlMs: number[] = [];
  const itlPerTokenMs: number[] = [];
  for (let i = 1; i < chunkMs.length; i++) {
    const gap = (chunkMs[i] as number) - (chunkMs[i - 1] as number);
    itlMs.push(gap);
    itlPerTokenMs.push(gap / (chunkTokens[i] ?? 1));
  }
  return {
    ttftMs,
    e2elMs,
    tpotMs,
    itlMs,
    chunkTokens,
    itlPerTokenMs,
    queueWaitMs: (record.firstSentMs ?? sentMs) - scheduledMs,
    ttftFromScheduledMs: firstTokenMs === undefined ? undefined : firstTokenMs - scheduledMs,
    e2elFromScheduledMs: endMs - scheduledMs,
    ...phaseMetrics(record, outputTokens),
  };
}

/** The record metricsOf last derived, and its figures. */
let lastRecord: RequestRecord | undefined;
let lastMetrics: RequestMetrics | undefined;

/**
 * requestMetrics(record), kept for the last record asked about. A finished record goes to
 * several readers in turn (its class's accumulator, the run's, the diagnosis sample, the OTLP
 * export), each of which needs its figures; deriving them again for each allocated their gap
 * arrays again, at thousands of records a second. A record is not changed once finished, so
 * the same record object has the same figures.
 */
export function metricsOf(record: RequestRecord): RequestMetrics {
  if (record !== lastRecord || lastMetrics === undefined) {
    lastMetrics = requestMetrics(record);
    lastRecord = record;
  }
  return lastMetrics;
}

/**
 * A request's output tokens per second once its answer streams (AIPerf's "output token
 * throughput per user"): decode time is E2EL − TTFT, over which the tokens after the first
 * arrived, so the rate is (output tokens − 1) ÷ decode time in seconds = 1000 / TPOT.
 * Undefined for a request of one token or none (no decode).
 */
export function userTokensPerS(m: Pick<RequestMetrics, 'tpotMs'>): number | undefined {
  return m.tpotMs !== undefined && m.tpotMs > 0 && Number.isFinite(m.tpotMs) ? 1000 / m.tpotMs : undefined;
}

/**
 * Whether a request met each SLO that is set, on its own. Only successful requests can meet
 * any; a request with no first token misses a TTFT SLO; a request with one output token has
 * no TPOT (and no per-user rate) and so cannot miss a TPOT or user_tps SLO (as in vLLM).
 */
export function sloOutcomes(
  record: RequestRecord,
  metrics: RequestMetrics,
  slo: Slo,
): Partial<Record<SloName, boolean>> {
  const ok = record.outcome === 'success';
  const out: Partial<Record<SloName, boolean>> = {};
  if (slo.ttftMs !== undefined) out.ttft = ok && metrics.ttftMs !== undefined && metrics.ttftMs <= slo.ttftMs;
  if (slo.tpotMs !== undefined)
    out.tpot = ok && !(metrics.tpotMs !== undefined && metrics.tpotMs > slo.tpotMs);
  if (slo.e2elMs !== undefined) out.e2el = ok && metrics.e2elMs <= slo.e2elMs;
  if (slo.userTps !== undefined) {
    const rate = userTokensPerS(metrics);
    out.userTps = ok && !(rate !== undefined && rate < slo.userTps);
  }
  return out;
}

/**
 * Whether a request met every SLO that is set (every success when none is): the joint
 * objective of SLO attainment and goodput. See sloOutcomes for each one.
 */
export function meetsSlo(record: RequestRecord, metrics: RequestMetrics, slo: Slo): boolean {
  if (record.outcome !== 'success') return false;
  for (const met of Object.values(sloOutcomes(record, metrics, slo))) if (!met) return false;
  return true;
}
