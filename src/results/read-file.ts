/**
 * The one read of a whole result file (summary.json, another tool's result, sweep.json): a
 * regular file of at most MAX_RESULT_FILE_BYTES, else a usage error naming the file and its
 * size. A 600 MB vLLM file was read whole and failed as E_INTERNAL ("Cannot create a string
 * longer than …"), a 3 GB one was reported as "no run summary", and a FIFO without a writer
 * hung the command.
 *
 * @module
 */

import { open, stat } from 'node:fs/promises';
import { GoodputError } from '../errors.js';

/** The largest result file read whole (JSON is parsed as one string; V8's limit is ~512 MiB). */
export const MAX_RESULT_FILE_BYTES = 256 * 1024 * 1024;

const MIB = 1024 * 1024;

/**
 * The bytes of a result file, or undefined when there is none at `path`. Refuses a folder, a
 * device or a FIFO, and a file larger than `maxBytes`, with E_USAGE naming the fix.
 */
export async function readResultFile(
  path: string,
  maxBytes = MAX_RESULT_FILE_BYTES,
): Promise<Buffer | undefined> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch {
    return undefined;
  }
  if (!info.isFile()) {
    if (info.isDirectory()) return undefined;
    throw new GoodputError(
      'E_USAGE',
      `${path} is not a regular file (a device, a FIFO or a socket): a result is read from a file`,
      'pass a result directory or its summary.json',
    );
  }
  if (info.size > maxBytes) {
    throw new GoodputError(
      'E_USAGE',
      `${path} is ${(info.size / MIB).toFixed(0)} MiB, more than the ${maxBytes / MIB} MiB a result file is read whole up to`,
      "pass the run's summary (goodput writes summaries of a few hundred KiB); for another tool's result, save it without its per-request arrays (vLLM: without --save-detailed)",
    );
  }
  const handle = await open(path, 'r');
  try {
    const bytes = Buffer.alloc(Math.min(info.size, maxBytes) + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await handle.read(bytes, n, bytes.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n > maxBytes) {
        throw new GoodputError(
          'E_USAGE',
          `${path} grew past ${maxBytes / MIB} MiB while it was read`,
          'pass a result file that is complete (not one being written)',
        );
      }
    }
    return bytes.subarray(0, n);
  } finally {
    await handle.close();
  }
}
