/**
 * What diagnosis needs of each request, kept compact (a dozen numbers) so that a run can
 * collect one per request as it goes, and the time slices that line client latency up with
 * the server's series.
 *
 * @module
 */

import { metricsOf } from '../metrics/index.js';
import type { Outcome, RequestErrorCode, RequestRecord, ServerSample } from '../types.js';

/** One request as diagnosis sees it. */
export interface RequestObservation {
  scheduledMs: number;
  sentMs: number;
  endMs: number;
  outcome: Outcome;
  errorCode?: RequestErrorCode;
  promptTokens: number;
  outputTokens: number;
  ttftMs?: number;
  tpotMs?: number;
  e2elMs: number;
  /** firstSentMs − scheduledMs: the load generator's own lag (open loop). */
  dispatchLagMs: number;
}

/** Outcomes as stored in ObservationColumns (by index). */
const OUTCOMES: readonly Outcome[] = ['success', 'error', 'cancelled'];
/** The numbers of one observation in ObservationColumns, in this order. */
const SCHEDULED = 0;
const SENT = 1;
const END = 2;
const PROMPT = 3;
const OUTPUT = 4;
const E2EL = 5;
const LAG = 6;
const TTFT = 7;
const TPOT = 8;
const NUMBERS = 9;
/** Flags of an observation in ObservationColumns: which optional figures it has. */
const HAS_TTFT = 1;
const HAS_TPOT = 2;

/**
 * Observations kept in slots of typed arrays rather than as an object each. A run keeps
 * thousands (the diagnosis sample, runner/observation-sample.ts), and objects that live that
 * long are copied by every young-generation collection until V8 promotes them: in a fresh
 * process at 2,000 req/s that doubled the pause of each collection and every send due during
 * one waited for it. Writing a slot allocates nothing; `read` makes the objects once, when
 * diagnosis needs them (`observe` makes one the same way).
 */
export class ObservationColumns {
  private readonly numbers: Float64Array;
  private readonly flags: Uint8Array;
  private readonly outcomes: Uint8Array;
  private readonly errorCodes: Array<RequestErrorCode | undefined>;

  constructor(readonly capacity: number) {
    this.numbers = new Float64Array(capacity * NUMBERS);
    this.flags = new Uint8Array(capacity);
    this.outcomes = new Uint8Array(capacity);
    this.errorCodes = new Array<RequestErrorCode | undefined>(capacity).fill(undefined);
  }

  /** Keeps the observation of `record` in `slot` (0 ≤ slot < capacity), replacing what was there. */
  write(slot: number, record: RequestRecord): void {
    const m = metricsOf(record);
    const n = this.numbers;
    const at = slot * NUMBERS;
    n[at + SCHEDULED] = record.scheduledMs;
    n[at + SENT] = record.sentMs;
    n[at + END] = record.endMs;
    n[at + PROMPT] = record.serverPromptTokens ?? record.promptTokens;
    n[at + OUTPUT] = record.outputTokens;
    n[at + E2EL] = m.e2elMs;
    n[at + LAG] = m.queueWaitMs;
    let flags = 0;
    if (m.ttftMs !== undefined) {
      n[at + TTFT] = m.ttftMs;
      flags |= HAS_TTFT;
    }
    if (m.tpotMs !== undefined) {
      n[at + TPOT] = m.tpotMs;
      flags |= HAS_TPOT;
    }
    this.flags[slot] = flags;
    this.outcomes[slot] = Math.max(0, OUTCOMES.indexOf(record.outcome));
    this.errorCodes[slot] = record.error?.code;
  }

  /** The observations in slots 0 to count − 1. */
  read(count: number): RequestObservation[] {
    const out: RequestObservation[] = [];
    const n = this.numbers;
    for (let slot = 0; slot < Math.min(count, this.capacity); slot++) {
      const at = slot * NUMBERS;
      const o: RequestObservation = {
        scheduledMs: n[at + SCHEDULED]!,
        sentMs: n[at + SENT]!,
        endMs: n[at + END]!,
        outcome: OUTCOMES[this.outcomes[slot]!]!,
        promptTokens: n[at + PROMPT]!,
        outputTokens: n[at + OUTPUT]!,
        e2elMs: n[at + E2EL]!,
        dispatchLagMs: n[at + LAG]!,
      };
      const code = this.errorCodes[slot];
      if (code !== undefined) o.errorCode = code;
      const flags = this.flags[slot]!;
      if (flags & HAS_TTFT) o.ttftMs = n[at + TTFT]!;
      if (flags & HAS_TPOT) o.tpotMs = n[at + TPOT]!;
      out.push(o);
    }
    return out;
  }
}

/** The one slot `observe` writes and reads back: an observation has one definition, `write`'s. */
const scratch = new ObservationColumns(1);

/** The observation of a measured record (warmup records are left out by the callers). */
export function observe(record: RequestRecord): RequestObservation {
  scratch.write(0, record);
  return scratch.read(1)[0]!;
}

/** Collects observations of measured records as a run goes. */
export class ObservationCollector {
  readonly observations: RequestObservation[] = [];

  add(record: RequestRecord): void {
    if (!record.warmup) this.observations.push(observe(record));
  }
}

/** One time slice of the run: client latencies of the requests sent in it, server series in it. */
export interface TimeSlice {
  fromMs: number;
  toMs: number;
  /** Mean TTFT of successful requests sent in the slice. */
  ttftMs?: number;
  /** Mean TPOT of successful requests that ended in the slice. */
  tpotMs?: number;
  requests: number;
  waiting?: number;
  running?: number;
  kvUsageMax?: number;
  /** Preemptions counted in the slice (counter increase between its samples). */
  preemptions?: number;
}

function mean(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/**
 * Cuts [first send, last end] into `count` equal slices and fills each with the client's
 * and the server's view. Server values are the mean (max for KV usage) of the samples whose
 * time falls in the slice.
 */
export function timeSlices(
  observations: readonly RequestObservation[],
  samples: readonly ServerSample[],
  count: number,
): TimeSlice[] {
  if (observations.length === 0) return [];
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const o of observations) {
    start = Math.min(start, o.sentMs);
    end = Math.max(end, o.endMs);
  }
  const width = Math.max(1e-9, (end - start) / count);
  const index = (t: number) => Math.min(count - 1, Math.max(0, Math.floor((t - start) / width)));
  const ttft: number[][] = Array.from({ length: count }, () => []);
  const tpot: number[][] = Array.from({ length: count }, () => []);
  const sent = new Array<number>(count).fill(0);
  for (const o of observations) {
    const i = index(o.sentMs);
    sent[i]!++;
    if (o.outcome === 'success' && o.ttftMs !== undefined) ttft[i]!.push(o.ttftMs);
    if (o.outcome === 'success' && o.tpotMs !== undefined) tpot[index(o.endMs)]!.push(o.tpotMs);
  }
  const waiting: number[][] = Array.from({ length: count }, () => []);
  const running: number[][] = Array.from({ length: count }, () => []);
  const kv: number[][] = Array.from({ length: count }, () => []);
  const preempt = new Array<number | undefined>(count).fill(undefined);
  let prevPreempt: number | undefined;
  for (const s of samples) {
    if (s.tMs < start - width || s.tMs > end + width) continue;
    const i = index(s.tMs);
    if (s.values.waiting !== undefined) waiting[i]!.push(s.values.waiting);
    if (s.values.running !== undefined) running[i]!.push(s.values.running);
    if (s.values.kvUsage !== undefined) kv[i]!.push(s.values.kvUsage);
    const p = s.values.preemptionsTotal;
    if (p !== undefined) {
      if (prevPreempt !== undefined)
        preempt[i] = (preempt[i] ?? 0) + (p >= prevPreempt ? p - prevPreempt : p);
      else preempt[i] = preempt[i] ?? 0;
      prevPreempt = p;
    }
  }
  return Array.from({ length: count }, (_, i) => {
    const slice: TimeSlice = { fromMs: start + i * width, toMs: start + (i + 1) * width, requests: sent[i]! };
    const set = <K extends keyof TimeSlice>(k: K, v: TimeSlice[K] | undefined) => {
      if (v !== undefined) slice[k] = v;
    };
    set('ttftMs', mean(ttft[i]!));
    set('tpotMs', mean(tpot[i]!));
    set('waiting', mean(waiting[i]!));
    set('running', mean(running[i]!));
    set('kvUsageMax', kv[i]!.length > 0 ? Math.max(...kv[i]!) : undefined);
    set('preemptions', preempt[i]);
    return slice;
  });
}

/** Pearson correlation of paired values; undefined with fewer than 3 pairs or no variance. */
export function correlation(pairs: ReadonlyArray<readonly [number, number]>): number | undefined {
  if (pairs.length < 3) return undefined;
  let sx = 0;
  let sy = 0;
  for (const [x, y] of pairs) {
    sx += x;
    sy += y;
  }
  const mx = sx / pairs.length;
  const my = sy / pairs.length;
  let cov = 0;
  let vx = 0;
  let vy = 0;
  for (const [x, y] of pairs) {
    cov += (x - mx) * (y - my);
    vx += (x - mx) ** 2;
    vy += (y - my) ** 2;
  }
  if (vx === 0 || vy === 0) return undefined;
  return cov / Math.sqrt(vx * vy);
}
