/**
 * Streaming JSONL: a writer that appends as records arrive (nothing is held back, so a
 * crash or Ctrl-C loses nothing already measured) and a reader that yields line by line.
 *
 * @module
 */

import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { z } from 'zod';
import { GoodputError } from '../errors.js';
import type { JsonlHeader } from './files.js';
import { describeFsError } from './fs-error.js';
import { validateValue } from './validate.js';

export interface JsonlWriterOptions {
  /**
   * Called once, with the first write error (full disk, file size limit, I/O error), as soon as
   * the stream meets it: a run stops its load there instead of measuring into the void.
   */
  onError?: (error: Error) => void;
  /**
   * The file, already opened for writing (truncated) by the caller, e.g. before a load takes
   * every file descriptor; closed with the writer. Default: `path` is opened here.
   */
  fd?: number;
}

/** Lines are handed to the file at least this often while records arrive… */
const FLUSH_MS = 20;
/** …or as soon as this many characters wait. */
const FLUSH_CHARS = 64 * 1024;
/** The stream's buffer: `backlogged` once this much waits for the disk. */
const STREAM_BUFFER_BYTES = 1024 * 1024;

/**
 * Appends one JSON value per line. Lines are gathered for at most FLUSH_MS (or FLUSH_CHARS)
 * and handed to the file in one write: a write per record costs the event loop a system
 * call and a thread-pool wake-up each, which at thousands of requests per second made sends
 * late. close() flushes everything.
 */
export class JsonlWriter<T> {
  readonly path: string;
  private readonly stream: WriteStream;
  private error: Error | undefined;
  private written = 0;
  private pending = '';
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(path: string, header: JsonlHeader, opts: JsonlWriterOptions = {}) {
    this.path = path;
    // Room for a few flushes in flight: backpressure means the disk is behind, not that one flush is.
    this.stream = createWriteStream(path, {
      flags: 'w',
      highWaterMark: STREAM_BUFFER_BYTES,
      ...(opts.fd !== undefined ? { fd: opts.fd } : {}),
    });
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
    this.pending += `${JSON.stringify(value)}\n`;
    if (this.pending.length >= FLUSH_CHARS) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Hands the gathered lines to the stream now. */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = '';
    if (!this.error) this.stream.write(lines);
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
    this.flush();
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

export interface JsonlReadOptions {
  /** Sees the header line (checked for kind). */
  onHeader?: (header: JsonlHeader) => void;
  /**
   * Sees each line in the middle of the file that is not valid JSON (damage), which is then
   * skipped. Without it, the first such line throws E_RESULT naming the file and the line.
   */
  onCorrupt?: (lineNo: number) => void;
  /** Sees a last line that is not valid JSON: cut off by a crash or kill mid-write, skipped. */
  onTornTail?: (lineNo: number) => void;
}

/**
 * Yields every line after the header, validated against the schema. Throws E_RESULT naming
 * the file, the line and the field when a line or the header is not what goodput writes.
 * A line that is not JSON at all in the middle of the file is an E_RESULT naming the line (or
 * goes to `onCorrupt`); only the last line may be torn (a run killed mid-write), and it is skipped.
 */
export async function* readJsonl<T>(
  path: string,
  kind: JsonlHeader['kind'],
  schema: z.ZodType<T>,
  opts: JsonlReadOptions = {},
): AsyncGenerator<T> {
  // Loaded here, not at the top: a run imports this file for its writer and loads no zod.
  const { JsonlHeaderSchema } = await import('./schema-meta.js');
  const input = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNo = 0;
  /** A line that did not parse: damage if another line follows, a torn tail if not. */
  let unparsed: number | undefined;
  try {
    for await (const line of lines) {
      lineNo++;
      if (line.length === 0) continue;
      if (unparsed !== undefined) {
        if (!opts.onCorrupt) throw corruptLine(path, unparsed);
        opts.onCorrupt(unparsed);
        unparsed = undefined;
      }
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        unparsed = lineNo;
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
        opts.onHeader?.(header);
        continue;
      }
      yield validateValue(schema, value, `${path} line ${lineNo}`, `a ${kind} line`);
    }
    if (unparsed !== undefined) opts.onTornTail?.(unparsed);
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

function corruptLine(path: string, lineNo: number): GoodputError {
  return new GoodputError(
    'E_RESULT',
    `${path} line ${lineNo} is not valid JSON: the file is damaged in the middle, not just cut off at the end`,
    `repair or delete that line; goodput summarize ${dirname(path)} --skip-corrupt lists every damaged line and rebuilds the summary from the rest`,
  );
}

/** Collects an async iterable into an array (for the small runs that compare and report read whole). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
