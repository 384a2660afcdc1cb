/**
 * How long an async task held the event loop at most: a 2 ms interval timer notes the gaps
 * between its ticks while the task runs (the last gap up to the task's end included).
 *
 * @module
 */

export interface Stalls<T> {
  result: T;
  /** The task's duration, ms. */
  tookMs: number;
  /** The longest time no timer could run, ms. */
  longestStallMs: number;
}

export async function measureStalls<T>(task: () => Promise<T>): Promise<Stalls<T>> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 2);
  const t0 = performance.now();
  try {
    const result = await task();
    const end = performance.now();
    return { result, tookMs: end - t0, longestStallMs: Math.max(longest, end - last) };
  } finally {
    clearInterval(timer);
  }
}
