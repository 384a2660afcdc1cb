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
 * too (FCFS scheduling: they are the ones in prefill). Output tokens delivered by t are the
 * request's output tokens times the share of its content chunks received by t. Prompt
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

/** Tokens the client knows each request holds in the KV cache at time t (see module doc). */
export function clientHeldTokens(
  records: readonly RequestRecord[],
  tMs: number,
  serverRunning?: number,
): number {
  let held = 0;
  let running = 0;
  const prefilling: RequestRecord[] = [];
  for (const r of records) {
    if (r.sentMs > tMs || r.endMs <= tMs) continue;
    const prompt = r.serverPromptTokens ?? r.promptTokens;
    if (r.firstTokenMs === undefined || r.firstTokenMs > tMs) {
      prefilling.push(r);
      continue;
    }
    running++;
    held += prompt + deliveredBy(r, tMs);
  }
  if (serverRunning !== undefined && serverRunning > running && prefilling.length > 0) {
    prefilling.sort((a, b) => a.sentMs - b.sentMs);
    const extra = Math.min(prefilling.length, Math.round(serverRunning - running));
    for (let i = 0; i < extra; i++) {
      const r = prefilling[i]!;
      held += r.serverPromptTokens ?? r.promptTokens;
    }
  }
  return held;
}

function deliveredBy(r: RequestRecord, tMs: number): number {
  const chunks = r.chunkMs.length;
  if (chunks === 0) return 0;
  let seen = 0;
  while (seen < chunks && r.chunkMs[seen]! <= tMs) seen++;
  return (r.outputTokens * seen) / chunks;
}

/** Fragmentation at one sample, or undefined when the layout is unknown or nothing is allocated. */
export function derivedFragmentation(
  sample: ServerSample,
  records: readonly RequestRecord[],
): number | undefined {
  const { kvUsage, numBlocks, blockSize, running } = sample.values;
  if (kvUsage === undefined || numBlocks === undefined || blockSize === undefined) return undefined;
  const allocated = kvUsage * numBlocks * blockSize;
  if (!(allocated > 0)) return undefined;
  const held = clientHeldTokens(records, sample.tMs, running);
  return Math.min(1, Math.max(0, 1 - held / allocated));
}
