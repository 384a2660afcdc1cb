/**
 * llama.cpp's `GET /slots` (tools/server/README.md): one object per slot with `n_ctx`,
 * `is_processing` and, depending on the build, `n_past` or `next_token.n_decoded`. Recent
 * builds dropped `llamacpp:kv_cache_usage_ratio` from /metrics, so KV usage is derived here:
 *
 *   kvUsage = Σ tokens held by processing slots / Σ n_ctx of all slots
 *
 * where tokens held = `n_past` when present, else `n_prompt_tokens + next_token.n_decoded`
 * when both are present; a slot with neither is left out of the ratio (and the ratio is
 * not reported when no processing slot says how many tokens it holds).
 *
 * @module
 */

import type { ServerSample } from '../types.js';

interface SlotJson {
  n_ctx?: unknown;
  is_processing?: unknown;
  state?: unknown;
  n_past?: unknown;
  n_prompt_tokens?: unknown;
  next_token?: { n_decoded?: unknown } | unknown;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Normalises a parsed /slots body. Returns no values when the body is not a slot list. */
export function normalizeLlamaCppSlots(body: unknown): ServerSample['values'] {
  if (!Array.isArray(body)) return {};
  let ctx = 0;
  let held = 0;
  let known = 0;
  let running = 0;
  for (const raw of body as SlotJson[]) {
    if (typeof raw !== 'object' || raw === null) continue;
    ctx += num(raw.n_ctx) ?? 0;
    // Old builds: state 1 = processing; new builds: is_processing.
    const processing = raw.is_processing === true || raw.state === 1;
    if (!processing) continue;
    running++;
    const nPast = num(raw.n_past);
    const decoded = num((raw.next_token as { n_decoded?: unknown } | undefined)?.n_decoded);
    const prompt = num(raw.n_prompt_tokens);
    const tokens = nPast ?? (prompt !== undefined && decoded !== undefined ? prompt + decoded : undefined);
    if (tokens !== undefined) {
      held += tokens;
      known++;
    }
  }
  const values: ServerSample['values'] = { running };
  if (ctx > 0 && (known > 0 || running === 0)) values.kvUsage = Math.min(1, held / ctx);
  return values;
}
