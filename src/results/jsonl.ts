/**
 * Streaming JSONL: a writer that appends as records arrive (nothing is held back, so a
 * crash or Ctrl-C loses nothing already measured) and a reader that yields line by line.
 *
 * @module
 */

import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { z } from 'zod';
import { GoodputError } from '../errors.js';
import type { JsonlHeader } from './files.js';
import { describeFsError } from './fs-error.js';
import { JsonlHeaderSchema } from './schema.js';
import { validateValue } from './validate.js';

export interface JsonlWriterOptions {
  /**
   * Called once, with the first write error (full disk, file size limit, I/O error), as soon as
   * the stream meets it: a run stops its load there instead of measuring into the void.
   */
  onError?: (error: Error) => void;
}

/** Appends one JSON value per line. Writes are buffered by the stream; close() flushes. */
export class JsonlWriter<T> {
  readonly path: string;
  private readonly stream: WriteStream;
  private error: Error | undefined;
  private written = 0;

  constructor(path: string, header: JsonlHeader, opts: JsonlWriterOptions = {}) {
    this.path = path;
    this.stream = createWriteStream(path, { flags: 'w' });
    this.stream.on('error', (e) => {
      if (this.error) return;
      this.error = e;
      opts.onError?.(e);
    });
    this.stream.write(`${JSON.stringify(header)}\n`);
  }

  /** The first write error, if any (values written after it are dropped). */
  get failure(): Error | undefined {
    return this.error;
  }

  /** Values handed to write() before the first failure (the header not counted). */
  get count(): number {
    return this.written;
  }

  write(value: T): void {
    if (this.error) return;
    this.written++;
    this.stream.write(`${JSON.stringify(value)}\n`);
  }

  /** True when the OS buffer is full; a producer that can wait may await drained(). False once failed. */
  get backlogged(): boolean {
    return !this.error && this.stream.writableNeedDrain;
  }

  /** Resolves when the buffer has drained, or at once when the stream has failed (never hangs on it). */
  async drained(): Promise<void> {
    if (this.error || !this.stream.writableNeedDrain) return;
    await once(this.stream, 'drain').catch(() => undefined);
  }

  async close(): Promise<void> {
    if (!this.stream.closed && !this.stream.destroyed) {
      await new Promise<void>((resolve) => this.stream.end(() => resolve()));
    }
    if (this.error) {
      throw new GoodputError(
        'E_IO',
        `could not write ${this.path}: ${describeFsError(this.error)}`,
        'check the --out directory: free space and permissions',
        { cause: this.error },
      );
    }
  }
}

/**
 * Yields every line after the header, validated against the schema. Throws E_RESULT naming
 * the file, the line and the field when a line or the header is not what goodput writes.
 * A line that is not JSON at all (a run killed mid-write leaves a partial last line) is skipped.
 */
export async function* readJsonl<T>(
  path: string,
  kind: JsonlHeader['kind'],
  schema: z.ZodType<T>,
): AsyncGenerator<T> {
  const input = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNo = 0;
  try {
    for await (const line of lines) {
      lineNo++;
      if (line.length === 0) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      if (lineNo === 1) {
        const header = validateValue(
          JsonlHeaderSchema,
          value,
          `${path} line 1 (the header)`,
          `a ${kind} header`,
        );
        if (header.kind !== kind) {
          throw new GoodputError(
            'E_RESULT',
            `${path} is not a ${kind} file (first line kind: ${header.kind})`,
            'pass a result directory written by goodput run --out',
          );
        }
        continue;
      }
      yield validateValue(schema, value, `${path} line ${lineNo}`, `a ${kind} line`);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new GoodputError(
        'E_RESULT',
        `no such file: ${path}`,
        'pass a result directory written by goodput run --out DIR',
      );
    }
    throw e;
  } finally {
    lines.close();
    input.destroy();
  }
}
