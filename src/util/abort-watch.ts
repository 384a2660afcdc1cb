/**
 * Many short watches of one long-lived AbortSignal (every request of a run, every pacer wait)
 * without an EventTarget listener each. Node's addEventListener and removeEventListener
 * allocate and cost microseconds per call; at 2,000 requests a second they were 4 % of the open
 * loop's main thread in a CPU profile. One listener per signal calls every callback watching it.
 *
 * @module
 */

const watched = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `fn` once when `signal` aborts, unless `unwatchAbort` comes first. Like an 'abort'
 * listener, it is not called for a signal that has already aborted: check `aborted` first.
 */
export function watchAbort(signal: AbortSignal, fn: () => void): void {
  if (signal.aborted) return;
  let callbacks = watched.get(signal);
  if (!callbacks) {
    const set = new Set<() => void>();
    callbacks = set;
    watched.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        for (const f of set) f();
        set.clear();
        watched.delete(signal);
      },
      { once: true },
    );
  }
  callbacks.add(fn);
}

/** Stops watching: `fn` will not be called for `signal`. */
export function unwatchAbort(signal: AbortSignal, fn: () => void): void {
  watched.get(signal)?.delete(fn);
}
