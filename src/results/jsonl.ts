/**
 * Streaming JSONL: a writer that appends as records arrive (nothing is held back, so a
 * crash or Ctrl-C loses nothing already measured) and a reader that yields line by line.
 *
 * @module
 */

import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { GoodputError } from '../errors.js';
import type { JsonlHeader } from './files.js';

/** Appends one JSON value per line. Writes are buffered by the stream; close() flushes. */
export class JsonlWriter<T> {
  readonly path: string;
  private readonly stream: WriteStream;
  private failure: Error | undefined;

  constructor(path: string, header: JsonlHeader) {
    this.path = path;
    this.stream = createWriteStream(path, { flags: 'w' });
    this.stream.on('error', (e) => {
      this.failure = e;
    });
    this.stream.write(`${JSON.stringify(header)}\n`);
  }

  write(value: T): void {
    if (this.failure) return;
    this.stream.write(`${JSON.stringify(value)}\n`);
  }

  /** True when the OS buffer is full; a producer that can wait may await drained(). */
  get backlogged(): boolean {
    return this.stream.writableNeedDrain;
  }

  async drained(): Promise<void> {
    if (this.stream.writableNeedDrain) await once(this.stream, 'drain');
  }

  async close(): Promise<void> {
    if (this.stream.closed) return;
    await new Promise<void>((resolve) => this.stream.end(resolve));
    if (this.failure) {
      throw new GoodputError(
        'E_IO',
        `could not write ${this.path}: ${this.failure.message}`,
        'check the --out directory: free space and permissions',
      );
    }
  }
}

/** Yields every JSON line after the header. Throws E_RESULT naming the file and line on bad JSON. */
export async function* readJsonl<T>(path: string, kind: JsonlHeader['kind']): AsyncGenerator<T> {
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
        // A run killed mid-write may leave a partial last line: skip it, keep the rest.
        continue;
      }
      if (lineNo === 1) {
        const h = value as Partial<JsonlHeader>;
        if (h.kind !== kind) {
          throw new GoodputError(
            'E_RESULT',
            `${path} is not a ${kind} file (first line kind: ${String(h.kind)})`,
            'pass a result directory written by goodput run --out',
          );
        }
        continue;
      }
      yield value as T;
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
