/**
 * "The run's last measured item is taken", shared by the load workers through one slot of
 * their shared counters: the worker that takes it raises the flag and every worker's signal
 * aborts, so sessions sleeping in a think time stop waiting at once, as a one-worker run's do
 * (they would otherwise only find out at their next turn, a think time later).
 *
 * @module
 */

/** Index of the flag in the workers' shared Int32Array (protocol.ts: LoadWorkerData.counters). */
export const EXHAUSTED_SLOT = 3;

type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };

/** Raises the flag (once) and wakes every worker waiting on it. */
export function raiseExhausted(counters: Int32Array): void {
  if (Atomics.compareExchange(counters, EXHAUSTED_SLOT, 0, 1) === 0) Atomics.notify(counters, EXHAUSTED_SLOT);
}

/** A signal that aborts when the flag is raised; `close` stops watching (call it when the load ends). */
export function watchExhausted(counters: Int32Array): { signal: AbortSignal; close(): void } {
  const ctl = new AbortController();
  // Atomics.waitAsync (Node ≥ 16) is not in the ES2023 lib this project compiles against.
  const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
  let closed = false;
  const watch = (): void => {
    if (Atomics.load(counters, EXHAUSTED_SLOT) !== 0) {
      ctl.abort();
      return;
    }
    if (closed) return;
    const r = waitAsync(counters, EXHAUSTED_SLOT, 0);
    if (r.async) void r.value.then(watch);
    else watch();
  };
  watch();
  return {
    signal: ctl.signal,
    close() {
      closed = true;
      // Wakes this worker's wait (the others look at the flag and wait again).
      Atomics.notify(counters, EXHAUSTED_SLOT);
    },
  };
}
