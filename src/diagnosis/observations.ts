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

/** The observation of a measured record (warmup records are left out by the callers). */
export function observe(record: RequestRecord): RequestObservation {
  const m = metricsOf(record);
  const o: RequestObservation = {
    scheduledMs: record.scheduledMs,
    sentMs: record.sentMs,
    endMs: record.endMs,
    outcome: record.outcome,
    promptTokens: record.serverPromptTokens ?? record.promptTokens,
    outputTokens: record.outputTokens,
    e2elMs: m.e2elMs,
    dispatchLagMs: m.queueWaitMs,
  };
  if (record.error) o.errorCode = record.error.code;
  if (m.ttftMs !== undefined) o.ttftMs = m.ttftMs;
  if (m.tpotMs !== undefined) o.tpotMs = m.tpotMs;
  return o;
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
