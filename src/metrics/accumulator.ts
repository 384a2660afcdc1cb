/**
 * The streaming run accumulator: `add(record)` as each request ends, `summarize(meta, extras)`
 * at the end. Memory does not depend on the number of records: histograms of fixed size, a
 * map of error codes, a bounded window of per-second bins and one state per prompt bucket.
 *
 * What feeds what:
 * - warmup records count in `counts.warmup` and nothing else (`rehearseWarmup` runs them through
 *   a scratch accumulator, which no figure reads);
 * - latencies (TTFT, TPOT, ITL, E2EL, queue wait, …), input/output token totals, the prompt
 *   buckets' latencies and the per-second peaks come from successful measured requests only,
 *   as in vLLM;
 * - phases (reasoning models): first reasoning token, first answer token (content or tool
 *   call; = TTFT without reasoning), ITL between chunks of the same phase, reasoning and answer
 *   tokens of successful requests (see `phaseMetrics`);
 * - ITL has one value per gap between chunks; ITL per token is token-weighted: a gap before a
 *   chunk of k tokens contributes gap / k, k times (so it equals ITL when chunks are tokens);
 * - dispatch lag and late sends come from every measured open-loop request;
 * - tokens received (the client-side denominator of the token goodput ratio) come from every
 *   measured request, cancelled and failed included; useful tokens from successful ones only,
 *   since a cancelled, timed-out or broken response is work the user did not get; tokens of
 *   requests the run itself interrupted (Ctrl-C, end of --duration) are set apart, neither
 *   useful nor wasted.
 *
 * @module
 */

import type { RequestRecord, RunMeta, RunSummary, Slo, SloName, TrafficClassSpec } from '../types.js';
import { AgentStats } from './agents.js';
import { classSlo, classSummaryOf } from './classes.js';
import { type PromptBucketing, type PromptBucketState, PromptBuckets } from './prompt-buckets.js';
import {
  metricsOf,
  type RequestMetrics,
  sloOutcomes,
  tokenCount,
  userTokensPerS,
} from './request-metrics.js';
import {
  buildSummary,
  DEFAULT_LATE_SEND_TOLERANCE_MS,
  newRunState,
  type RunState,
  type SummaryExtras,
} from './run-state.js';
import { DEFAULT_MAX_SECOND_BINS, SecondBins } from './second-bins.js';
import { TurnStats } from './turns.js';

/** How a RunAccumulator judges and groups requests. */
export interface AccumulatorOptions {
  /** SLOs a good request must meet (each one optional). Default: none, every success is good. */
  slo?: Slo;
  /** Open loop: record dispatch lag and late sends. Default false. */
  openLoop?: boolean;
  /** An open-loop send later than its schedule by more than this is a late send. Default 10 ms. */
  lateSendToleranceMs?: number;
  /** Prompt-length buckets: 'pow2' (default), explicit ascending edges, or false for none. */
  promptBuckets?: PromptBucketing;
  /** Live seconds kept for the per-second peaks. Default 4096. */
  maxSecondBins?: number;
  /** ignore_eos was asked: count successes that ended before max_tokens (counts.endedEarly). */
  ignoreEos?: boolean;
  /**
   * Traffic classes: a record of a class is judged against the class's SLO (its objectives over
   * `slo`), in the run's goodput and in the class's own figures (summary.classes).
   */
  classes?: readonly TrafficClassSpec[];
  /**
   * Live runs: warmup records also go, as if measured, to a scratch accumulator of the same
   * options, dropped at the first measured record. The warmup then runs the measuring code the
   * measured phase will (a fresh process compiles it as it first runs it, and allocates its
   * histograms), instead of the measured phase's first second doing so while requests are due.
   */
  rehearseWarmup?: boolean;
}

/** A prompt whose server-reported length differs from the client's by more than this share is a mismatch. */
const PROMPT_MISMATCH_SHARE = 0.01;

/**
 * Aggregates RequestRecords as they arrive.
 *
 * @example
 * const acc = RunAccumulator.fromMeta(meta);
 * for (const r of records) acc.add(r);
 * const summary = acc.summarize(meta, { dropped: 0 });
 */
export class RunAccumulator {
  private readonly state: RunState;
  private readonly openLoop: boolean;
  private readonly lateToleranceMs: number;
  private readonly tokensPerSecond: SecondBins;
  private readonly activePerSecond: SecondBins;
  private readonly ignoreEos: boolean;
  /** Traffic classes by name: the class, its SLO and the accumulator of its records alone. */
  private readonly classes = new Map<string, { spec: TrafficClassSpec; slo: Slo; acc: RunAccumulator }>();
  /** `rehearseWarmup`: the scratch accumulator of the warmup's records, until the first measured one. */
  private rehearsal: RunAccumulator | undefined;

  constructor(options: AccumulatorOptions = {}) {
    const bucketing = options.promptBuckets ?? 'pow2';
    this.state = newRunState(
      options.slo ?? {},
      bucketing === false ? undefined : new PromptBuckets(bucketing),
    );
    this.openLoop = options.openLoop ?? false;
    this.ignoreEos = options.ignoreEos ?? false;
    this.lateToleranceMs = options.lateSendToleranceMs ?? DEFAULT_LATE_SEND_TOLERANCE_MS;
    this.tokensPerSecond = new SecondBins(options.maxSecondBins ?? DEFAULT_MAX_SECOND_BINS);
    this.activePerSecond = new SecondBins(options.maxSecondBins ?? DEFAULT_MAX_SECOND_BINS);
    if (options.rehearseWarmup) this.rehearsal = new RunAccumulator({ ...options, rehearseWarmup: false });
    for (const spec of options.classes ?? []) {
      const slo = classSlo(options.slo ?? {}, spec);
      const { classes: _all, ...own } = options;
      const acc = new RunAccumulator({ ...own, slo, promptBuckets: false, rehearseWarmup: false });
      this.classes.set(spec.name, { spec, slo, acc });
    }
  }

  /** An accumulator judging by the run's SLOs and load mode (options override). */
  static fromMeta(meta: RunMeta, options: AccumulatorOptions = {}): RunAccumulator {
    return new RunAccumulator({
      slo: meta.slo,
      openLoop: meta.load.mode === 'open',
      ignoreEos: meta.sampling.ignoreEos,
      ...(meta.workload.classes ? { classes: meta.workload.classes } : {}),
      ...options,
    });
  }

  /** Adds one finished request (any outcome). */
  add(record: RequestRecord): void {
    const s = this.state;
    const cls = record.class === undefined ? undefined : this.classes.get(record.class);
    cls?.acc.add(record);
    if (record.warmup) {
      s.counts.warmup++;
      this.rehearsal?.add({ ...record, warmup: false });
      return;
    }
    this.rehearsal = undefined;
    const outputTokens = tokenCount(record.outputTokens);
    const promptTokens = tokenCount(record.promptTokens);
    const m = metricsOf(record);
    this.countMeasured(record, m, outputTokens, promptTokens);
    const bucket = s.buckets?.enter(record.promptTokens);
    if (record.outcome === 'cancelled') {
      this.countCancelled(record, outputTokens);
      return;
    }
    if (record.outcome === 'error') {
      this.countError(record);
      return;
    }
    this.countSuccess(record, m, outputTokens, promptTokens, cls?.slo ?? s.slo);
    this.recordLatencies(record, m, bucket);
    this.recordPerSecond(record, m, outputTokens);
  }

  /** Every measured request, whatever its outcome: counts, span, tokens received, turns, dispatch lag. */
  private countMeasured(
    record: RequestRecord,
    m: RequestMetrics,
    outputTokens: number,
    promptTokens: number,
  ): void {
    const s = this.state;
    s.counts.attempted++;
    s.counts.retries += Math.max(0, record.attempts - 1);
    const firstSent = record.firstSentMs ?? record.sentMs;
    if (firstSent < s.firstSentMs) s.firstSentMs = firstSent;
    if (record.endMs > s.lastEndMs) s.lastEndMs = record.endMs;
    s.receivedOutputTokens += outputTokens;
    if (
      record.serverPromptTokens !== undefined &&
      Math.abs(record.serverPromptTokens - record.promptTokens) > PROMPT_MISMATCH_SHARE * record.promptTokens
    ) {
      s.counts.promptTokenMismatch++;
    }
    if (record.agentRun !== undefined) {
      s.agents ??= new AgentStats();
      s.agents.add(record);
    }
    if (record.turn !== undefined) {
      s.turns ??= new TurnStats();
      s.turns.add(record.turn, promptTokens, record.outcome === 'success', m.ttftMs, m.e2elMs);
    }
    if (this.openLoop) {
      s.dispatchLag.record(m.queueWaitMs);
      if (m.queueWaitMs > this.lateToleranceMs) s.lateSends++;
    }
  }

  private countCancelled(record: RequestRecord, outputTokens: number): void {
    const s = this.state;
    // The run was stopped with this request in flight: not the server's miss nor the user's.
    if (record.error?.code === 'INTERRUPTED') {
      s.counts.interrupted = (s.counts.interrupted ?? 0) + 1;
      s.interruptedOutputTokens += outputTokens;
    } else s.counts.cancelled++;
  }

  /** A failed request: counted by error code, with the first one's message as the example. */
  private countError(record: RequestRecord): void {
    const s = this.state;
    s.counts.failed++;
    const code = record.error?.code ?? 'UNKNOWN';
    const seen = s.errors.get(code);
    if (seen) seen.count++;
    else {
      const status = record.error?.httpStatus ?? record.httpStatus;
      s.errors.set(code, {
        code,
        count: 1,
        example: record.error?.message ?? '',
        ...(status !== undefined ? { httpStatus: status } : {}),
      });
    }
  }

  /** A successful request: its tokens (client's and server's counts), its SLOs met, the user's token rate. */
  private countSuccess(
    record: RequestRecord,
    m: RequestMetrics,
    outputTokens: number,
    promptTokens: number,
    slo: Slo,
  ): void {
    const s = this.state;
    s.counts.completed++;
    if (record.outputTokensSource === 'counted') s.counts.usageMissing++;
    // Servers differ: some ignore max_completion_tokens, or ignore_eos (DESIGN, "Real servers differ").
    if (record.outputTokens > record.maxTokens) s.counts.overLimit = (s.counts.overLimit ?? 0) + 1;
    else if (this.ignoreEos && record.outputTokens < record.maxTokens && record.finishReason !== 'length') {
      s.counts.endedEarly = (s.counts.endedEarly ?? 0) + 1;
    }
    s.inputTokens += promptTokens;
    s.outputTokens += outputTokens;
    if (record.serverPromptTokens !== undefined) {
      const st = s.serverTokens;
      st.requests++;
      st.inputTokens += tokenCount(record.serverPromptTokens);
      st.clientInputTokens += promptTokens;
      if (record.outputTokensSource === 'usage') st.outputTokens += outputTokens;
    }
    if (record.serverTimings) {
      const t = s.serverTimings;
      t.requests++;
      t.promptTokens += tokenCount(record.serverTimings.promptTokens);
      t.cachedTokens += tokenCount(record.serverTimings.cachedTokens);
    }
    s.usefulOutputTokens += outputTokens;
    const outcomes = sloOutcomes(record, m, slo);
    let good = true;
    for (const [name, met] of Object.entries(outcomes) as Array<[SloName, boolean]>) {
      if (met) s.sloGood[name] = (s.sloGood[name] ?? 0) + 1;
      else good = false;
    }
    // the joint objective: every SLO set (meetsSlo), counted from the same outcomes
    if (good) {
      s.goodRequests++;
      s.goodOutputTokens += outputTokens;
    }
    const rate = userTokensPerS(m);
    if (rate !== undefined) s.userRates.record(rate);
  }

  /** A successful request's latencies, its reasoning and answer phases, and its prompt bucket's. */
  private recordLatencies(
    record: RequestRecord,
    m: RequestMetrics,
    bucket: PromptBucketState | undefined,
  ): void {
    const s = this.state;
    const L = s.latency;
    if (m.ttftMs !== undefined) L.ttft.record(m.ttftMs);
    if (m.tpotMs !== undefined) L.tpot.record(m.tpotMs);
    L.e2el.record(m.e2elMs);
    L.queueWait.record(m.queueWaitMs);
    if (m.ttftFromScheduledMs !== undefined) L.ttftFromScheduled.record(m.ttftFromScheduledMs);
    L.e2elFromScheduled.record(m.e2elFromScheduledMs);
    for (let i = 0; i < m.itlMs.length; i++) {
      L.itl.record(m.itlMs[i] as number);
      L.itlPerToken.record(m.itlPerTokenMs[i] as number, m.chunkTokens[i + 1] ?? 1);
    }
    if (m.ttfrtMs !== undefined) L.ttfrt.record(m.ttfrtMs);
    if (m.ttfatMs !== undefined) L.ttfat.record(m.ttfatMs);
    for (const gap of m.reasoningItlMs) L.reasoningItl.record(gap);
    for (const gap of m.answerItlMs) L.answerItl.record(gap);
    const r = s.reasoning;
    if (m.reasoningTokens > 0 || m.ttfrtMs !== undefined) {
      r.requests++;
      if (record.reasoningTokensSource === 'counted' || record.reasoningTokens === undefined)
        r.countedRequests++;
    }
    r.reasoningTokens += m.reasoningTokens;
    r.answerTokens += m.answerTokens;
    if (bucket) {
      if (m.ttftMs !== undefined) bucket.ttft.record(m.ttftMs);
      bucket.e2el.record(m.e2elMs);
    }
  }

  /** A successful request's tokens in the second they arrived, and the seconds it was in flight. */
  private recordPerSecond(record: RequestRecord, m: RequestMetrics, outputTokens: number): void {
    if (record.chunkMs.length > 0) {
      // chunks arrive in time order: add one sum per second rather than one per chunk
      let second = Math.floor((record.chunkMs[0] as number) / 1000);
      let sum = 0;
      for (let i = 0; i < record.chunkMs.length; i++) {
        const s2 = Math.floor((record.chunkMs[i] as number) / 1000);
        if (s2 !== second) {
          this.tokensPerSecond.addAt(second * 1000, sum);
          second = s2;
          sum = 0;
        }
        sum += m.chunkTokens[i] ?? 1;
      }
      this.tokensPerSecond.addAt(second * 1000, sum);
    } else if (outputTokens > 0) {
      this.tokensPerSecond.addAt(record.endMs, outputTokens);
    }
    this.activePerSecond.addSpan(record.sentMs, record.endMs);
  }

  /** Measured requests added so far (warmup excluded). */
  get attempted(): number {
    return this.state.counts.attempted;
  }

  /** The run's summary so far; the accumulator can keep adding afterwards. */
  summarize(meta: RunMeta, extras: SummaryExtras = {}): RunSummary {
    const summary = buildSummary(
      this.state,
      { outputTokensPerS: this.tokensPerSecond.peak(), concurrentRequests: this.activePerSecond.peak() },
      meta,
      extras,
    );
    if (this.classes.size === 0) return summary;
    // Each class over the run's duration: classes run side by side, their rates add up to the run's.
    const classExtras: SummaryExtras = { durationS: summary.duration, dropped: 0 };
    summary.classes = [...this.classes.values()].map(({ spec, acc }) =>
      classSummaryOf(spec, acc.summarize(meta, classExtras)),
    );
    return summary;
  }
}

/**
 * Summarises a whole list of records at once (tests, re-summarising a result directory).
 * SLOs and load mode come from `meta` unless `options` say otherwise.
 */
export function summarizeRecords(
  records: Iterable<RequestRecord>,
  meta: RunMeta,
  extras: SummaryExtras = {},
  options: AccumulatorOptions = {},
): RunSummary {
  const acc = RunAccumulator.fromMeta(meta, options);
  for (const r of records) acc.add(r);
  return acc.summarize(meta, extras);
}
