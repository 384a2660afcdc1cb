/**
 * What a run actually sent, in words, for every header that describes a run (the run report,
 * the HTML report's facts, the ADR's context): the output limit of its requests and, for a
 * trace replay, its schedule. A trace gives each request its send time and max_tokens, and a
 * dataset (without `--max-tokens`) each entry's own, so "max 128 output tokens" or "all at once
 * (--rate inf)" read off the flags' defaults would describe a load that was never sent.
 *
 * @module
 */

import type { RunMeta, WorkloadSpec } from '../types.js';

/**
 * The requests' output limit: "max 128 output tokens", "max_tokens from the trace", or
 * "max_tokens from each dataset entry (128 where an entry states none)".
 */
export function outputLimitText(w: Pick<WorkloadSpec, 'maxTokens' | 'maxTokensFrom'>): string {
  if (w.maxTokensFrom === 'trace') return 'max_tokens from the trace';
  if (w.maxTokensFrom === 'dataset')
    return `max_tokens from each dataset entry (${w.maxTokens} where an entry states none)`;
  return `max ${w.maxTokens} output tokens`;
}

/**
 * A trace replay's sends, or undefined when the run replayed no trace: "sends followed the
 * trace (times × 0.5)", or closed loop "concurrency 4 over the trace's requests (its times not
 * followed)".
 */
export function traceSendsText(meta: Pick<RunMeta, 'workload' | 'load'>): string | undefined {
  const trace = meta.workload.kind === 'trace' ? meta.workload.trace : undefined;
  if (!trace) return undefined;
  if (meta.load.mode === 'closed')
    return `closed loop, concurrency ${meta.load.concurrency ?? 1} over the trace's requests (its times not followed)`;
  return `sends followed the trace (times × ${trace.timeScale})`;
}
