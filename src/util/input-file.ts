/**
 * Opening an input file so that a read of it can always be stopped (Ctrl-C, SIGTERM, a time
 * bound): a FIFO or a socket is opened non-blocking and read through the event loop. A blocking
 * open or read of a pipe nobody writes to holds a thread of libuv's pool, and the process could
 * not even exit after Ctrl-C. Every input file goes through here (datasets, and every small
 * file read by `readTextFileBounded`: config, key, targets, profile, plans).
 *
 * @module
 */

import { constants, createReadStream, openSync, statSync } from 'node:fs';
import { Socket } from 'node:net';

/**
 * The file's chunks, and a way to stop reading. A FIFO (or socket) is opened non-blocking and
 * read through the event loop: a blocking open or read of a pipe nobody writes to would hold a
 * thread of the pool, and the process could not even exit after Ctrl-C. Until a first byte
 * arrives, an end of a FIFO means "no writer yet": it is opened again a moment later.
 */
export function openForReading(
  path: string,
  highWaterMark = 1024 * 1024,
): { chunks: AsyncIterable<Buffer>; close(): void } {
  let fifo = false;
  try {
    const st = statSync(path);
    fifo = st.isFIFO() || st.isSocket();
  } catch {
    // the read below reports the error
  }
  if (!fifo) {
    const stream = createReadStream(path, { highWaterMark });
    return { chunks: stream, close: () => stream.destroy() };
  }
  let current: Socket | undefined;
  let closed = false;
  const open = () => {
    current = new Socket({
      fd: openSync(path, constants.O_RDONLY | constants.O_NONBLOCK),
      readable: true,
      writable: false,
    });
    return current;
  };
  const first = open();
  async function* chunks(): AsyncGenerator<Buffer> {
    let sock = first;
    let got = false;
    for (;;) {
      for await (const c of sock) {
        got = true;
        yield c as Buffer;
      }
      if (got || closed) return;
      await new Promise((r) => setTimeout(r, 100));
      if (closed) return;
      sock = open();
    }
  }
  return {
    chunks: chunks(),
    close: () => {
      closed = true;
      current?.destroy();
    },
  };
}

const stopInputs = new AbortController();

/**
 * Aborted when the process is told to stop (the CLI's Ctrl-C or SIGTERM): every bounded read of
 * an input file listens to it, so a pipe nobody writes to never holds a stopping command.
 */
export const inputStopSignal: AbortSignal = stopInputs.signal;

/** Stops every bounded input read in flight and to come (called once, by the CLI's signal handler). */
export function stopInputReads(): void {
  stopInputs.abort();
}
