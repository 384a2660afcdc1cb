/**
 * Closed-loop drivers shared by the client benches: keep `concurrency` requests in flight
 * until `total` have been sent, for goodput's client and for the raw reader alike.
 *
 * @module
 */

/** Run `total` calls of `one(i)` with `concurrency` in flight; returns the results in order. */
export async function closedLoop(concurrency, total, one) {
  const results = new Array(total);
  let next = 0;
  const lane = async () => {
    while (next < total) {
      const i = next++;
      results[i] = await one(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
  return results;
}

/** A chat request body whose only message is the request's id (the paced server keys its record by it). */
export function benchBody(id, maxTokens) {
  return JSON.stringify({
    model: 'bench-model',
    messages: [{ role: 'user', content: id }],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: maxTokens,
    max_completion_tokens: maxTokens,
    temperature: 0,
  });
}

/** A WorkItem for goodput's client with the same message. */
export function benchItem(i, id, maxTokens) {
  return {
    index: i,
    id,
    warmup: false,
    messages: [{ role: 'user', content: id }],
    promptTokens: 1,
    maxTokens,
  };
}

/** Percentile of a numeric array (nearest rank on a sorted copy). */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/**
 * goodput's client as both client benches drive it: one connection per concurrent request,
 * no retries, fixed-length outputs.
 */
export function benchClient(createClient, url, concurrency, maxTokens, clock) {
  return createClient(
    {
      baseUrl: url,
      api: 'chat',
      model: 'bench-model',
      timeoutMs: 60_000,
      maxRetries: 0,
      connections: concurrency,
      sampling: { temperature: 0, maxTokens, ignoreEos: true },
    },
    clock,
  );
}
