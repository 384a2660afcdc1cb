/**
 * Bounded reads: every read from a server or a file stops at a byte limit and a deadline, and
 * when the caller's signal aborts. A hostile peer can trickle a byte a second or send an
 * endless body; neither may hang the tool or grow its memory.
 *
 * @module
 */

/** Why a bounded read stopped early. */
export type BoundedStop = 'limit' | 'timeout' | 'aborted';

/** The result of a bounded read. */
export interface BoundedText {
  /** The text read (UTF-8), at most `maxBytes` bytes of it. */
  text: string;
  /** Bytes received in all (may exceed maxBytes by one chunk). */
  bytes: number;
  /** Set when the read stopped before the end of the body. */
  stopped?: BoundedStop;
}

/** Limits of a bounded read. */
export interface BoundedReadOptions {
  /** Most bytes kept; reading stops once more have arrived. */
  maxBytes: number;
  /** Longest time the whole read may take, in milliseconds. */
  timeoutMs: number;
  /** Stops the read early (Ctrl-C, a run's deadline). */
  signal?: AbortSignal;
}

/**
 * Reads an async iterable of byte chunks (an undici body, a Node stream) within limits. When a
 * limit is hit, the source is destroyed (if it can be) and the text so far is returned with
 * `stopped` set; it never throws for a limit.
 */
export async function readBounded(
  source: AsyncIterable<Uint8Array | string> & { destroy?: (err?: Error) => void },
  opts: BoundedReadOptions,
): Promise<BoundedText> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let bytes = 0;
  let stopped: BoundedStop | undefined;
  const iterator = source[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<BoundedStop>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), opts.timeoutMs);
    timer.unref?.();
    if (opts.signal) {
      if (opts.signal.aborted) resolve('aborted');
      onAbort = () => resolve('aborted');
      opts.signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), stop]);
      if (typeof next === 'string') {
        stopped = next;
        break;
      }
      if (next.done) break;
      const buf = typeof next.value === 'string' ? Buffer.from(next.value) : Buffer.from(next.value);
      bytes += buf.length;
      if (kept < opts.maxBytes) {
        const take = buf.subarray(0, opts.maxBytes - kept);
        chunks.push(take);
        kept += take.length;
      }
      if (bytes > opts.maxBytes) {
        stopped = 'limit';
        break;
      }
    }
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
    if (stopped) {
      try {
        source.destroy?.();
      } catch {
        // already closed
      }
      void iterator.return?.().catch(() => {});
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return stopped ? { text, bytes, stopped } : { text, bytes };
}
