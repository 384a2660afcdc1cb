/**
 * The one definition of each request count and rate derived from a RunSummary. Every module
 * that shows, gates, compares or exports one of these figures calls these functions instead
 * of dividing counts itself, so "error rate" or "failed" means the same thing everywhere.
 *
 * Outcomes of a measured (non-warmup) request, as counted by the accumulator:
 * - **completed**: the server answered in full (`outcome: 'success'`).
 * - **failed**: the request ended with an error (HTTP error, reset, timeout, bad stream…):
 *   errors only, never cancels. `counts.failed`. (vLLM's flat `failed` key is different:
 *   attempted − completed, kept for vLLM compatibility only.)
 * - **cancelled**: the simulated user gave up (`--cancel-rate`, code ABORTED). `counts.cancelled`.
 * - **interrupted**: the run itself stopped the request (Ctrl-C, end of `--duration`, code
 *   INTERRUPTED). Neither the server's failure nor the user's cancel: left out of error rate,
 *   attainment and wasted tokens. `counts.interrupted`.
 *
 * attempted = completed + failed + cancelled + interrupted.
 *
 * Token counts (successful measured requests), with vLLM's meanings for its keys:
 * - **total_input_tokens**: prompt tokens as the client counted them (the prompt it built and
 *   sent, by its tokenizer), as vLLM's `bench serve` sums its own prompt lengths. Input and
 *   total tokens/s (`total_token_throughput`) use this count, so they compare with vLLM's and
 *   with the load asked, whatever the server says.
 * - **total_output_tokens**: usage.completion_tokens when the server stated it, else counted by
 *   the client (`counts.usageMissing`), as vLLM's. Output tokens/s uses it.
 * - **serverTokens**: the server's own usage totals beside the client's count of the same
 *   prompts (`clientInputTokens`), over the requests whose usage stated prompt_tokens. When the
 *   two disagree by more than 1 % on a prompt (`counts.promptTokenMismatch`) the run carries
 *   the `tokenizer-mismatch` caveat (caveats.ts), which gives both means per prompt.
 * - **prefix-cache hit rate**: from the server's metrics, Δhits ÷ Δqueries (vLLM's counters;
 *   SGLang's cached ÷ prompt tokens); for llama.cpp, whose metrics have no such counter, from
 *   the `timings` of its responses: Σcache_n ÷ Σ(cache_n + prompt_n) over successful measured
 *   requests (`timingsPrefixCacheHitRate`): prompt tokens reused over prompt tokens in all.
 *
 * @module
 */

import type { RunSummary } from '../types.js';

type Counts = Pick<RunSummary['counts'], 'attempted' | 'failed' | 'cancelled' | 'interrupted'>;

/** Measured requests the run itself stopped (Ctrl-C, end of --duration); 0 in older summaries. */
export function interruptedRequests(s: { counts: Pick<Counts, 'interrupted'> }): number {
  return s.counts.interrupted ?? 0;
}

/** Measured requests that ended with an error (cancels and interruptions excluded). */
export function failedRequests(s: { counts: Pick<Counts, 'failed'> }): number {
  return s.counts.failed;
}

/**
 * Measured requests the server was given a full chance to answer: attempted − interrupted.
 * The denominator of error rate and SLO attainment.
 */
export function judgedRequests(s: { counts: Counts }): number {
  return Math.max(0, s.counts.attempted - interruptedRequests(s));
}

/**
 * Error rate: failed / (attempted − interrupted).
 *
 * Cancelled requests count in the denominator (the server was asked and did not fail), the
 * ones the run interrupted do not (the server was not given the chance to finish). With no
 * judged request at all the rate is **undefined** (not 0, not 1): a gate on it then fails as
 * "not measured", a table shows "–".
 *
 * @example
 * errorRate({ counts: { attempted: 10, failed: 1, cancelled: 0, interrupted: 0 } }); // 0.1
 */
export function errorRate(s: { counts: Counts }): number | undefined {
  const n = judgedRequests(s);
  return n > 0 ? failedRequests(s) / n : undefined;
}

/**
 * Wasted output tokens: tokens generated that no user got, i.e. total − useful, where useful
 * are the tokens of successful responses, and tokens of requests the run itself interrupted
 * are neither (see `GoodputSummary.interruptedOutputTokens`). Never negative.
 */
export function wastedOutputTokens(s: Pick<RunSummary, 'goodput'>): number {
  return s.goodput.wastedOutputTokens;
}

/**
 * Mean reasoning tokens per completed request (reasoning models: usage's reasoning_tokens when
 * reported, else counted by the client). **Undefined** when the run did not reason (no
 * `reasoning` block, as in summaries written before it existed) or completed nothing.
 */
export function meanReasoningTokens(s: Pick<RunSummary, 'reasoning' | 'completed'>): number | undefined {
  return s.reasoning && s.completed > 0 ? s.reasoning.reasoningTokens / s.completed : undefined;
}

/**
 * Mean answer tokens per completed request: output tokens − reasoning tokens (all output
 * tokens when the run did not reason). Undefined when nothing completed.
 */
export function meanAnswerTokens(
  s: Pick<RunSummary, 'reasoning' | 'completed' | 'total_output_tokens'>,
): number | undefined {
  if (!(s.completed > 0)) return undefined;
  return (s.reasoning?.answerTokens ?? s.total_output_tokens) / s.completed;
}

/**
 * The prefix-cache hit rate llama.cpp's per-request timings give: prompt tokens it reused from
 * its cache over all the prompt tokens of those requests. Undefined without timings.
 *
 * @example timingsPrefixCacheHitRate({ serverTimings: { requests: 2, promptTokens: 300, cachedTokens: 700 } }) // 0.7
 */
export function timingsPrefixCacheHitRate(s: Pick<RunSummary, 'serverTimings'>): number | undefined {
  const t = s.serverTimings;
  if (!t || t.requests === 0) return undefined;
  const all = t.promptTokens + t.cachedTokens;
  return all > 0 ? t.cachedTokens / all : undefined;
}
