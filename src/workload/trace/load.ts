/**
 * Reading a trace file: streamed a line at a time into a TraceBuilder (memory: the compact
 * entries only), with its sha256, so a run records exactly which trace it replayed. The whole
 * file is read and checked before the first request is sent: a bad line stops the command
 * before anything is measured.
 *
 * The format is given (`--trace-format`) or recognised from the first line: a JSON object is
 * Mooncake (Bailian's when it has `chat_id` and `parent_chat_id`; generic JSONL when columns
 * are mapped), anything else is a CSV header (Azure's when it names TIMESTAMP, ContextTokens and
 * GeneratedTokens; BurstGPT's when it names Timestamp, Request tokens and Response tokens).
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { ExitCode, GoodputError } from '../../errors.js';
import type { TraceFormat } from '../../types.js';
import {
  AZURE_COLUMNS,
  BAILIAN_BLOCK_SIZE,
  BURSTGPT_COLUMNS,
  csvHeader,
  DEFAULT_COLUMNS,
  parseBailianLine,
  parseCsvLine,
  parseMappedJsonLine,
  parseMooncakeLine,
  splitCsvLine,
  type TraceColumns,
  type TraceRow,
  type TraceTimeUnit,
  traceError,
} from './parse.js';
import { type Trace, TraceBuilder } from './trace.js';

export interface TraceReadOptions {
  /** Default: recognised from the first line. */
  format?: TraceFormat;
  /** Generic JSONL/CSV: which columns hold the timestamp and the lengths (default Mooncake's names). */
  columns?: TraceColumns;
  /** Generic JSONL/CSV: unit of numeric timestamps (default ms). */
  timeUnit?: TraceTimeUnit;
  /** Stops the read (Ctrl-C). */
  signal?: AbortSignal;
}

/** The longest trace line read (a Mooncake line of thousands of hash ids fits). */
export const MAX_TRACE_LINE_BYTES = 4 * 1024 * 1024;
/** The largest trace file read. */
export const MAX_TRACE_BYTES = 2 * 1024 * 1024 * 1024;

function recognise(first: string, options: TraceReadOptions): TraceFormat {
  if (options.format) return options.format;
  if (first.trimStart().startsWith('{')) {
    if (options.columns) return 'jsonl';
    return /"parent_chat_id"\s*:/.test(first) && /"chat_id"\s*:/.test(first) ? 'bailian' : 'mooncake';
  }
  if (!options.columns) {
    const names = new Set(splitCsvLine(first));
    const has = (c: TraceColumns) => names.has(c.timestamp) && names.has(c.input) && names.has(c.output);
    if (has(AZURE_COLUMNS)) return 'azure';
    if (has(BURSTGPT_COLUMNS)) return 'burstgpt';
  }
  return 'csv';
}

/** The columns and timestamp unit of a CSV format with fixed names; undefined for the generic ones. */
const FIXED_COLUMNS: Partial<Record<TraceFormat, { columns: TraceColumns; unit: TraceTimeUnit }>> = {
  azure: { columns: AZURE_COLUMNS, unit: 'ms' },
  burstgpt: { columns: BURSTGPT_COLUMNS, unit: 's' },
};

/** Turns the lines of one trace into rows: the parse shared by the file reader and `parseTrace`. */
class TraceLines {
  format: TraceFormat | undefined;
  builder: TraceBuilder | undefined;
  private header: Map<string, number> | undefined;
  private columns: TraceColumns = DEFAULT_COLUMNS;
  private unit: TraceTimeUnit;
  /** Bailian: each chat's conversation (the chat id of its first request), by chat id. */
  private readonly roots = new Map<number, number>();

  constructor(
    private readonly name: string,
    private readonly options: TraceReadOptions,
  ) {
    this.unit = options.timeUnit ?? 'ms';
  }

  line(text: string, lineNo: number): void {
    if (this.format === undefined) {
      if (text.trim() === '') return;
      this.format = recognise(text, this.options);
      this.builder = new TraceBuilder(this.format);
      const fixed = FIXED_COLUMNS[this.format];
      this.columns = fixed?.columns ?? this.options.columns ?? DEFAULT_COLUMNS;
      if (fixed) this.unit = fixed.unit;
    }
    const where = `${this.name}:${lineNo}`;
    let row: TraceRow | undefined;
    switch (this.format) {
      case 'mooncake':
        row = parseMooncakeLine(text, where);
        break;
      case 'jsonl':
        row = parseMappedJsonLine(text, where, this.columns, this.unit);
        break;
      case 'bailian': {
        const line = parseBailianLine(text, where);
        if (!line) return;
        // A follow-up's conversation is its parent's; a parent not in the file starts one.
        const root =
          line.parentChatId < 0 ? line.chatId : (this.roots.get(line.parentChatId) ?? line.parentChatId);
        this.roots.set(line.chatId, root);
        row = { ...line.row, sessionId: String(root) };
        break;
      }
      default:
        if (this.header === undefined) {
          if (text.trim() === '') return;
          this.header = csvHeader(text, this.columns, this.format, where);
          return;
        }
        row = parseCsvLine(text, where, this.header, this.columns, this.unit, this.format);
    }
    if (row) this.builder!.add(row, where);
  }

  finish(sha256: string): Trace {
    if (!this.builder || this.builder.count === 0) {
      throw traceError(this.format ?? 'mooncake', this.name, undefined, 'has no requests');
    }
    const generic = this.format === 'jsonl' || this.format === 'csv';
    const trace = this.builder.finish({
      path: this.name,
      sha256,
      ...(generic ? { columns: this.columns, timeUnit: this.unit } : {}),
    });
    if (this.format === 'bailian') trace.blockSize = BAILIAN_BLOCK_SIZE;
    return trace;
  }
}

/** Parses a trace's whole text (pure; `name` is used in messages and as the path). */
export function parseTrace(text: string, name: string, options: TraceReadOptions = {}): Trace {
  const lines = new TraceLines(name, options);
  const all = text.split('\n');
  for (let i = 0; i < all.length; i++) lines.line(all[i]!, i + 1);
  return lines.finish(createHash('sha256').update(text).digest('hex'));
}

/**
 * Reads and checks a trace file (see the module comment). Errors: `E_DATASET` naming the
 * line and the field (exit 2); the signal stops the read (exit 130).
 */
export async function loadTrace(path: string, options: TraceReadOptions = {}): Promise<Trace> {
  const lines = new TraceLines(path, options);
  const hash = createHash('sha256');
  const signal = options.signal;
  const stopped = () =>
    new GoodputError('E_DATASET', `reading trace ${path} was stopped`, 'nothing was sent; run again', {
      exitCode: ExitCode.INTERRUPTED,
    });
  if (signal?.aborted) throw stopped();
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 });
  const onAbort = () => stream.destroy(stopped());
  signal?.addEventListener('abort', onAbort, { once: true });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  let lineNo = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > MAX_TRACE_BYTES) {
        throw new GoodputError(
          'E_DATASET',
          `trace ${path}: over ${MAX_TRACE_BYTES / 2 ** 30} GiB: not read further`,
          'replay a part of it',
        );
      }
      hash.update(chunk);
      let at = 0;
      for (let nl = chunk.indexOf(10, at); nl !== -1; nl = chunk.indexOf(10, at)) {
        const piece = chunk.subarray(at, nl);
        const text =
          pending.length > 0 ? Buffer.concat([...pending, piece]).toString('utf8') : piece.toString('utf8');
        pending = [];
        pendingBytes = 0;
        lines.line(text, ++lineNo);
        at = nl + 1;
      }
      if (at < chunk.length) {
        pending.push(Buffer.from(chunk.subarray(at)));
        pendingBytes += chunk.length - at;
        if (pendingBytes > MAX_TRACE_LINE_BYTES) {
          throw new GoodputError(
            'E_DATASET',
            `trace ${path}:${lineNo + 1}: line longer than ${MAX_TRACE_LINE_BYTES / 2 ** 20} MiB: not read further`,
            'a trace has one request per line; check that the file is a trace',
          );
        }
      }
    }
    if (pending.length > 0) lines.line(Buffer.concat(pending).toString('utf8'), ++lineNo);
  } catch (e) {
    if (e instanceof GoodputError) throw e;
    throw new GoodputError(
      'E_DATASET',
      `cannot read trace ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      'check the path given to --trace',
    );
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stream.destroy();
  }
  return lines.finish(hash.digest('hex'));
}
