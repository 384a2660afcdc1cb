/**
 * KV-cache fragmentation derived from what vLLM exposes and what the client knows, for
 * engines that do not report it themselves (the simulator does: `goodput:kv_fragmentation`).
 *
 * At each scrape time t:
 *
 *   allocated(t) = kvUsage(t) × numBlocks × blockSize          (tokens of allocated blocks)
 *   held(t)      = Σ over requests the server is running at t of
 *                    prompt tokens + output tokens delivered by t
 *   fragmentation(t) = clamp(1 − held(t) / allocated(t), 0, 1)
 *
 * numBlocks and blockSize come from `vllm:cache_config_info` (num_gpu_blocks, block_size).
 * "Running at t" is what the client can see: requests whose first token has arrived and
 * that have not ended; when the server's `running` gauge says more requests are running
 * than that, the earliest-sent requests still waiting for their first token are counted
 * too (FCFS scheduling: they are the ones in prefill). Output tokens delivered by t are
 * interpolated linearly between the request's first token and its end. Prompt
 * tokens are the server's `usage.prompt_tokens` when reported (it includes the chat
 * template), else the client's count.
 *
 * Limits, stated so the number is read right: prefix caching shares blocks between
 * requests, so held can exceed allocated (clamped to 0 fragmentation); scrape and client
 * clocks differ by the scrape's own latency; idle samples (nothing allocated) give no value.
 *
 * @module
 */

import type { RequestRecord, ServerSample } from '../types.js';

/**
 * What the fragmentation estimate needs of one request: five numbers, so that a long run
 * can keep one per request (see ClientView).
 */
export interface ClientSpan {
  sentMs: number;
  firstTokenMs?: number;
  endMs: number;
  /** Server-reported prompt tokens when known, else the client's count. */
  promptTokens: number;
  outputTokens: number;
}

/** The compact span of a record. */
export function spanOf(r: RequestRecord): ClientSpan {
  const span: ClientSpan = {
    sentMs: r.sentMs,
    endMs: r.endMs,
    promptTokens: r.serverPromptTokens ?? r.promptTokens,
    outputTokens: r.outputTokens,
  };
  if (r.firstTokenMs !== undefined) span.firstTokenMs = r.firstTokenMs;
  return span;
}

/**
 * Output tokens a request had received by t: linear between its first token and its end
 * (the stream's pace is close to even once decoding runs).
 */
function deliveredBy(s: ClientSpan, tMs: number): number {
  if (s.firstTokenMs === undefined || tMs < s.firstTokenMs) return 0;
  const span = s.endMs - s.firstTokenMs;
  if (span <= 0) return s.outputTokens;
  return (
    s.outputTokens * Math.min(1, Math.max(1 / Math.max(1, s.outputTokens), (tMs - s.firstTokenMs) / span))
  );
}

/** Most prefilling requests remembered per sample (more than any engine's max-num-seqs). */
const MAX_PREFILLING = 4096;

/**
 * What the spans that cover one sample time add up to: tokens held and count of the
 * requests visibly running, and the earliest-sent requests still waiting for their first
 * token (sent time, prompt tokens), sorted by sent time. Spans can be folded into it as they
 * end, so a long run keeps one of these per sample instead of one span per request.
 */
export interface HeldAtSample {
  held: number;
  running: number;
  prefilling: Array<[sentMs: number, promptTokens: number]>;
}

export function emptyHeld(): HeldAtSample {
  return { held: 0, running: 0, prefilling: [] };
}

/** Adds one span's contribution at time t. */
export function foldSpan(acc: HeldAtSample, s: ClientSpan, tMs: number): void {
  if (s.sentMs > tMs || s.endMs <= tMs) return;
  if (s.firstTokenMs === undefined || s.firstTokenMs > tMs) {
    const list = acc.prefilling;
    if (list.length >= MAX_PREFILLING && s.sentMs >= list[list.length - 1]![0]) return;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]![0] <= s.sentMs) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, [s.sentMs, s.promptTokens]);
    if (list.length > MAX_PREFILLING) list.pop();
    return;
  }
  acc.running++;
  acc.held += s.promptTokens + deliveredBy(s, tMs);
}

/**
 * Tokens the client knows the server holds in the KV cache at time t (see module doc):
 * what `folded` already holds for t plus the given spans.
 */
export function clientHeldTokens(
  spans: readonly ClientSpan[],
  tMs: number,
  serverRunning?: number,
  folded?: HeldAtSample,
): number {
  const acc: HeldAtSample = folded
    ? { held: folded.held, running: folded.running, prefilling: [...folded.prefilling] }
    : emptyHeld();
  for (const s of spans) foldSpan(acc, s, tMs);
  let held = acc.held;
  if (serverRunning !== undefined && serverRunning > acc.running && acc.prefilling.length > 0) {
    const extra = Math.min(acc.prefilling.length, Math.round(serverRunning - acc.running));
    for (let i = 0; i < extra; i++) held += acc.prefilling[i]![1];
  }
  return held;
}

/** Fragmentation at one sample, or undefined when the layout is unknown or nothing is allocated. */
export function derivedFragmentation(
  sample: ServerSample,
  spans: readonly ClientSpan[],
  folded?: HeldAtSample,
): number | undefined {
  const { kvUsage, numBlocks, blockSize, running } = sample.values;
  if (kvUsage === undefined || numBlocks === undefined || blockSize === undefined) return undefined;
  const allocated = kvUsage * numBlocks * blockSize;
  if (!(allocated > 0)) return undefined;
  const held = clientHeldTokens(spans, sample.tMs, running, folded);
  return Math.min(1, Math.max(0, 1 - held / allocated));
}
