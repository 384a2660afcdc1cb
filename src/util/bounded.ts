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

/** Bytes read between two turns handed back to the event loop (a few ms of copying and decoding). */
export const READ_YIELD_BYTES = 1024 * 1024;

/**
 * Reads an async iterable of byte chunks (an undici body, a Node stream) within limits. When a
 * limit is hit, the source is destroyed (if it can be) and the text so far is returned with
 * `stopped` set; it never throws for a limit. The text is decoded as it arrives, and the event
 * loop gets a turn every READ_YIELD_BYTES: a body already buffered would otherwise be read,
 * joined and decoded in one go, stalling every timer for as long (~0.1 s for 12 MiB).
 */
export async function readBounded(
  source: AsyncIterable<Uint8Array | string> & { destroy?: (err?: Error) => void },
  opts: BoundedReadOptions,
): Promise<BoundedText> {
  // ignoreBOM keeps a leading BOM in the text, as Buffer#toString does.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const parts: string[] = [];
  let sinceYield = 0;
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
        parts.push(decoder.decode(take, { stream: true }));
        kept += take.length;
      }
      if (bytes > opts.maxBytes) {
        stopped = 'limit';
        break;
      }
      sinceYield += buf.length;
      if (sinceYield >= READ_YIELD_BYTES) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
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
  parts.push(decoder.decode());
  const text = parts.join('');
  return stopped ? { text, bytes, stopped } : { text, bytes };
}
