/**
 * The diagnosis rules. Each looks at the run's time slices (client latency beside the
 * server's series), the prompt-length buckets or the summary, and returns a Finding with its
 * evidence (numbers and time range) and the tuning knob it points to, or nothing.
 *
 * Thresholds are deliberately plain and named here, so a finding can be argued with:
 * - queueing: requests that met a queue on the server (mean `waiting` ≥ 0.5 between their
 *   send and first token) have TTFT ≥ 1.5× that of the others (or of the fastest tenth),
 *   or waiting and TTFT correlate over requests (r ≥ 0.5);
 * - kv-pressure: KV usage ≥ 0.9 in some sample, or any preemption;
 * - prefill-bound: mean TTFT of the longest-prompt bucket ≥ 2× the shortest's, rising
 *   (r ≥ 0.6 between log2 prompt length and TTFT over buckets);
 * - decode-bound: TPOT and running requests correlate (r ≥ 0.6) and TPOT of the busiest
 *   slices is ≥ 1.5× TPOT of the quietest;
 * - client-bound: the runner said so, or ≥ 5% of open-loop sends were late;
 * - wasted-work: ≥ 2% of the tokens the server generated never reached a client that waited;
 * - errors: any failed request.
 *
 * The knob a finding points to is named as the engine that served the run names it
 * (engines/: `-np/--parallel` for llama.cpp, `--max-num-seqs` for vLLM); with the engine not
 * detected, what to change and each engine's flags.
 *
 * @module
 */

import { type EngineId, engineAdvice } from '../engines/index.js';
import { REQUEST_ERRORS } from '../errors.js';
import type { Finding, RequestErrorCode, RunSummary, ServerSample } from '../types.js';
import { correlation, type RequestObservation, type TimeSlice } from './observations.js';

export const KV_PRESSURE_USAGE = 0.9;
export const QUEUE_TTFT_RATIO = 1.5;
export const PREFILL_TTFT_RATIO = 2;
export const DECODE_TPOT_RATIO = 1.5;
export const LATE_SEND_SHARE = 0.05;
export const WASTED_SHARE = 0.02;

export type SummaryView = Partial<
  Pick<RunSummary, 'load' | 'server' | 'goodput' | 'counts' | 'serverTimings'>
>;

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const ms = (v: number) => (v >= 100 ? `${Math.round(v)} ms` : `${v.toFixed(1)} ms`);
const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;

function meanOf(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
}

function span(slices: readonly TimeSlice[]): { fromMs: number; toMs: number } {
  return { fromMs: slices[0]!.fromMs, toMs: slices.at(-1)!.toMs };
}

/** Mean of the samples' `waiting` within [from, to], else the last value before `to`; undefined without any. */
function waitingDuring(samples: readonly ServerSample[], fromMs: number, toMs: number): number | undefined {
  let sum = 0;
  let n = 0;
  let before: number | undefined;
  for (const s of samples) {
    const w = s.values.waiting;
    if (w === undefined) continue;
    if (s.tMs < fromMs) before = w;
    else if (s.tMs <= toMs) {
      sum += w;
      n++;
    } else break;
  }
  return n > 0 ? sum / n : before;
}

/**
 * Queueing: requests wait on the server while TTFT rises. Each successful request is paired
 * with the server's `waiting` gauge over its own wait for the first token ([sent, first
 * token]); the TTFT of requests that met a queue is compared with that of requests that did
 * not (or, when every request met one, with the fastest tenth).
 */
export function queueingFinding(
  observations: readonly RequestObservation[],
  samples: readonly ServerSample[],
  engine?: EngineId,
): Finding | undefined {
  if (!samples.some((s) => s.values.waiting !== undefined)) return undefined;
  const queued: Array<[number, number, RequestObservation]> = [];
  const free: number[] = [];
  const pairs: Array<[number, number]> = [];
  for (const o of observations) {
    if (o.outcome !== 'success' || o.ttftMs === undefined) continue;
    const w = waitingDuring(samples, o.sentMs, o.sentMs + o.ttftMs);
    if (w === undefined) continue;
    pairs.push([w, o.ttftMs]);
    if (w >= 0.5) queued.push([w, o.ttftMs, o]);
    else free.push(o.ttftMs);
  }
  if (queued.length === 0 || pairs.length === 0) return undefined;
  const ttfts = pairs.map((p) => p[1]).sort((a, b) => a - b);
  const fastest = ttfts.slice(0, Math.max(1, Math.ceil(ttfts.length / 10)));
  const base = free.length > 0 ? meanOf(free) : meanOf(fastest);
  const high = meanOf(queued.map((q) => q[1]));
  const ratio = base > 0 ? high / base : 1;
  const r = correlation(pairs);
  if (ratio < QUEUE_TTFT_RATIO && (r === undefined || r < 0.5)) return undefined;
  const share = queued.length / pairs.length;
  const waitingSamples = samples.filter((s) => (s.values.waiting ?? 0) >= 1);
  const peak = Math.max(...samples.map((s) => s.values.waiting ?? 0));
  const range =
    waitingSamples.length > 0
      ? { fromMs: waitingSamples[0]!.tMs, toMs: waitingSamples.at(-1)!.tMs }
      : { fromMs: queued[0]![2].sentMs, toMs: queued.at(-1)![2].sentMs };
  return {
    kind: 'queueing',
    score: clamp01(0.3 + 0.4 * share + 0.3 * clamp01((ratio - 1) / 3)),
    title: 'Requests queue on the server',
    evidence:
      `${queued.length} of ${pairs.length} requests met a queue (waiting averaged ` +
      `${meanOf(queued.map((q) => q[0])).toFixed(1)} while they waited, peak ${peak.toFixed(0)}, ` +
      `${sec(range.fromMs)}–${sec(range.toMs)}); their mean TTFT ${ms(high)} vs ${ms(base)} ` +
      `${free.length > 0 ? 'without a queue' : 'for the fastest tenth'}` +
      (r !== undefined && r >= 0.3 ? ` (r=${r.toFixed(2)} between waiting and TTFT)` : ''),
    knob: engineAdvice('queueing', engine),
    ...range,
  };
}

/** KV pressure: the cache runs full and the engine preempts. */
export function kvPressureFinding(
  slices: readonly TimeSlice[],
  summary?: SummaryView,
  engine?: EngineId,
): Finding | undefined {
  const withKv = slices.filter((s) => s.kvUsageMax !== undefined);
  const hot = withKv.filter((s) => s.kvUsageMax! >= KV_PRESSURE_USAGE);
  const preemptSlices = slices.filter((s) => (s.preemptions ?? 0) > 0);
  const preemptions =
    summary?.server?.preemptions ?? preemptSlices.reduce((a, s) => a + (s.preemptions ?? 0), 0);
  if (hot.length === 0 && preemptions === 0) return undefined;
  const peak = withKv.length > 0 ? Math.max(...withKv.map((s) => s.kvUsageMax!)) : undefined;
  const requests = slices.reduce((a, s) => a + s.requests, 0);
  const perRequest = requests > 0 ? preemptions / requests : 0;
  const pressured = [...hot, ...preemptSlices].sort((a, b) => a.fromMs - b.fromMs);
  // The server's count of preemptions may come without any time slice to place them in (virtual time).
  const range = pressured.length > 0 ? span(pressured) : undefined;
  const parts: string[] = [];
  if (peak !== undefined) {
    parts.push(
      `KV usage peaked at ${pct(peak)}` +
        (hot.length > 0
          ? ` (≥ ${pct(KV_PRESSURE_USAGE)} in ${pct(hot.length / withKv.length)} of the run)`
          : ''),
    );
  }
  parts.push(
    `${preemptions} preemption${preemptions === 1 ? '' : 's'} (${(perRequest * 100).toFixed(1)} per 100 requests)`,
  );
  if (summary?.server?.kvFragmentation !== undefined) {
    parts.push(`fragmentation ${pct(summary.server.kvFragmentation)}`);
  }
  return {
    kind: 'kv-pressure',
    score: clamp01(
      0.3 + 0.3 * (withKv.length > 0 ? hot.length / withKv.length : 0) + 0.4 * clamp01(perRequest * 5),
    ),
    title: 'KV cache under pressure',
    evidence: `${parts.join('; ')}${range ? `; ${sec(range.fromMs)}–${sec(range.toMs)}` : ''}`,
    knob: engineAdvice('kv-pressure', engine),
    ...range,
  };
}

/** Prefill-bound: TTFT grows with the prompt length. */
export function prefillFinding(
  observations: readonly RequestObservation[],
  engine?: EngineId,
): Finding | undefined {
  const buckets = new Map<number, number[]>();
  for (const o of observations) {
    if (o.outcome !== 'success' || o.ttftMs === undefined || o.promptTokens <= 0) continue;
    const b = Math.floor(Math.log2(o.promptTokens));
    let list = buckets.get(b);
    if (!list) {
      list = [];
      buckets.set(b, list);
    }
    list.push(o.ttftMs);
  }
  const rows = [...buckets.entries()]
    .filter(([, v]) => v.length >= 3)
    .sort((a, b) => a[0] - b[0])
    .map(([b, v]) => ({ b, n: v.length, ttft: meanOf(v) }));
  if (rows.length < 2) return undefined;
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const ratio = first.ttft > 0 ? last.ttft / first.ttft : 1;
  const r = correlation(rows.map((row) => [row.b, row.ttft]));
  if (ratio < PREFILL_TTFT_RATIO || (r !== undefined && r < 0.6)) return undefined;
  const label = (b: number) => `${2 ** b}–${2 ** (b + 1) - 1} tokens`;
  return {
    kind: 'prefill-bound',
    score: clamp01(0.2 + 0.3 * clamp01(Math.log2(ratio) / 3)),
    title: 'TTFT grows with prompt length (prefill-bound)',
    evidence:
      `mean TTFT ${ms(first.ttft)} for prompts of ${label(first.b)} (n=${first.n}) ` +
      `vs ${ms(last.ttft)} for ${label(last.b)} (n=${last.n}), ×${ratio.toFixed(1)}`,
    knob: engineAdvice('prefill-bound', engine),
  };
}

/** Decode-bound: TPOT grows with the number of running requests. */
export function decodeFinding(slices: readonly TimeSlice[], engine?: EngineId): Finding | undefined {
  const rows = slices.filter((s) => s.running !== undefined && s.tpotMs !== undefined);
  if (rows.length < 3) return undefined;
  const r = correlation(rows.map((s) => [s.running!, s.tpotMs!]));
  if (r === undefined || r < 0.6) return undefined;
  const byRunning = [...rows].sort((a, b) => a.running! - b.running!);
  const third = Math.max(1, Math.floor(byRunning.length / 3));
  const quiet = byRunning.slice(0, third);
  const busy = byRunning.slice(-third);
  const tpotQuiet = meanOf(quiet.map((s) => s.tpotMs!));
  const tpotBusy = meanOf(busy.map((s) => s.tpotMs!));
  const ratio = tpotQuiet > 0 ? tpotBusy / tpotQuiet : 1;
  if (ratio < DECODE_TPOT_RATIO) return undefined;
  return {
    kind: 'decode-bound',
    score: clamp01(0.2 + 0.3 * r + 0.2 * clamp01((ratio - 1) / 3)),
    title: 'TPOT grows with the batch (decode-bound)',
    evidence:
      `mean TPOT ${ms(tpotBusy)} with ${meanOf(busy.map((s) => s.running!)).toFixed(1)} running ` +
      `vs ${ms(tpotQuiet)} with ${meanOf(quiet.map((s) => s.running!)).toFixed(1)} (r=${r.toFixed(2)})`,
    knob: engineAdvice('decode-bound', engine),
    ...span(rows),
  };
}

/** Client-bound: the load generator could not keep its own schedule. */
export function clientBoundFinding(
  observations: readonly RequestObservation[],
  summary?: SummaryView,
  openLoop?: boolean,
): Finding | undefined {
  const load = summary?.load;
  const lateMs = 10;
  const lags = openLoop === false ? [] : observations.map((o) => o.dispatchLagMs);
  const late = load?.lateSends ?? lags.filter((l) => l > lateMs).length;
  const share = observations.length > 0 ? late / observations.length : 0;
  if (!load?.clientBound && share < LATE_SEND_SHARE) return undefined;
  const p99 = load?.dispatchLag?.p99;
  const lateOnes = observations.filter((o) => o.dispatchLagMs > lateMs);
  const range =
    lateOnes.length > 0 ? { fromMs: lateOnes[0]!.scheduledMs, toMs: lateOnes.at(-1)!.sentMs } : {};
  return {
    kind: 'client-bound',
    score: clamp01((load?.clientBound ? 0.5 : 0.2) + share),
    title: 'The load generator was the bottleneck',
    evidence:
      `${late} of ${observations.length} sends late (${pct(share)})` +
      (p99 !== undefined ? `, p99 dispatch lag ${ms(p99)}` : '') +
      (load?.clientBound ? '; the runner flagged the run client-bound' : '') +
      ': server numbers may be understated',
    knob: 'run goodput where it has free CPU, split the load over several goodput processes, or lower --rate / --concurrency',
    ...range,
  };
}

/** Wasted work: tokens generated for clients that had already given up. */
export function wastedWorkFinding(
  observations: readonly RequestObservation[],
  summary?: SummaryView,
): Finding | undefined {
  // Requests the run itself interrupted (Ctrl-C, end of --duration) are the client's cut, not
  // work the server burnt for a user who left: they are no evidence for abort-on-disconnect.
  const cancelled = observations.filter((o) => o.outcome === 'cancelled' && o.errorCode !== 'INTERRUPTED');
  // With no user who gave up, there is no disconnect to abort on: what remains (failed
  // responses, the tail of the run's own interruptions) is the errors finding's business.
  if (cancelled.length === 0) return undefined;
  const clientTokensCancelled = cancelled.reduce((a, o) => a + o.outputTokens, 0);
  const server = summary?.server;
  const generated = server?.generatedTokens ?? summary?.goodput?.totalOutputTokens;
  const wasted = server?.wastedTokens ?? summary?.goodput?.wastedOutputTokens ?? clientTokensCancelled;
  const total = generated ?? observations.reduce((a, o) => a + o.outputTokens, 0);
  if (total <= 0 || wasted <= 0) return undefined;
  const share = wasted / total;
  if (share < WASTED_SHARE) return undefined;
  const afterLeaving = Math.max(0, wasted - clientTokensCancelled);
  const range =
    cancelled.length > 0
      ? {
          fromMs: Math.min(...cancelled.map((o) => o.sentMs)),
          toMs: Math.max(...cancelled.map((o) => o.endMs)),
        }
      : {};
  return {
    kind: 'wasted-work',
    score: clamp01(0.25 + 2 * share),
    title: 'Work burnt on cancelled requests',
    evidence:
      `${cancelled.length} request${cancelled.length === 1 ? '' : 's'} cancelled; ` +
      `${Math.round(wasted)} of ${Math.round(total)} generated tokens (${pct(share)}) never reached a client that waited` +
      (server?.wastedTokens !== undefined && afterLeaving > 0
        ? `, ${Math.round(afterLeaving)} of them generated after the client had gone`
        : ''),
    knob: 'abort generation on client disconnect (the server and every proxy in between must cancel upstream); lower max_tokens; raise client timeouts that give up too early',
    ...range,
  };
}

/** Errors: failed requests, by code, with the fix for the commonest. */
export function errorsFinding(observations: readonly RequestObservation[]): Finding | undefined {
  const failed = observations.filter((o) => o.outcome === 'error');
  if (failed.length === 0) return undefined;
  const byCode = new Map<RequestErrorCode, number>();
  for (const o of failed)
    byCode.set(o.errorCode ?? 'UNKNOWN', (byCode.get(o.errorCode ?? 'UNKNOWN') ?? 0) + 1);
  const ranked = [...byCode.entries()].sort((a, b) => b[1] - a[1]);
  const rate = failed.length / observations.length;
  return {
    kind: 'errors',
    score: clamp01(0.3 + 2 * rate),
    title: 'Requests failed',
    evidence: `${failed.length} of ${observations.length} failed (${pct(rate)}): ${ranked
      .slice(0, 3)
      .map(([c, n]) => `${c} ×${n}`)
      .join(', ')}`,
    knob: REQUEST_ERRORS[ranked[0]![0]].hint,
    fromMs: Math.min(...failed.map((o) => o.sentMs)),
    toMs: Math.max(...failed.map((o) => o.endMs)),
  };
}
