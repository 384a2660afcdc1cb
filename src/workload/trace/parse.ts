/**
 * Trace lines, parsed one at a time (pure): Mooncake JSONL (`timestamp` in ms, `input_length`,
 * `output_length`, `hash_ids`, optional `session_id` and `delay`), a generic JSONL or CSV
 * trace whose columns are named by a mapping, the Azure LLM inference trace CSV
 * (`TIMESTAMP,ContextTokens,GeneratedTokens`, timestamps as date-times; Azure/AzurePublicDataset),
 * the BurstGPT CSV (`Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type`,
 * seconds from the trace's first day; HPMLL/BurstGPT) and the Qwen Bailian JSONL
 * (`chat_id`, `parent_chat_id` (-1 for a conversation's first request), `timestamp` in seconds,
 * `input_length`, `output_length`, `type`, `turn`, `hash_ids` of 16-token blocks;
 * alibaba-edu/qwen-bailian-usagetraces-anon).
 *
 * Every problem is an `E_DATASET` error (exit 2) naming the file, the line and the field.
 *
 * @module
 */

import { GoodputError } from '../../errors.js';
import type { TraceFormat, TraceSpec } from '../../types.js';
import { MAX_TOKENS } from '../../util/index.js';

export type TraceColumns = NonNullable<TraceSpec['columns']>;
export type TraceTimeUnit = NonNullable<TraceSpec['timeUnit']>;

/** One request of a trace as read from its line. */
export interface TraceRow {
  /** Absolute time in ms (trace units converted); undefined when the line gives a `delay` instead. */
  timeMs?: number;
  input: number;
  output: number;
  hashIds?: number[];
  sessionId?: string;
  /** Mooncake sessions: ms after the previous turn of the same session. */
  delayMs?: number;
}

/** The column names of the Azure LLM inference traces (2023 and 2024). */
export const AZURE_COLUMNS: TraceColumns = {
  timestamp: 'TIMESTAMP',
  input: 'ContextTokens',
  output: 'GeneratedTokens',
};
/** The columns of the BurstGPT traces (timestamps in seconds). */
export const BURSTGPT_COLUMNS: TraceColumns = {
  timestamp: 'Timestamp',
  input: 'Request tokens',
  output: 'Response tokens',
};
/** Tokens per hash id of the Bailian traces (`qwen_*_blksz_16.jsonl`). */
export const BAILIAN_BLOCK_SIZE = 16;
/** The default columns of a generic trace: Mooncake's names. */
export const DEFAULT_COLUMNS: TraceColumns = {
  timestamp: 'timestamp',
  input: 'input_length',
  output: 'output_length',
};

export const TRACE_HINTS: Record<TraceFormat, string> = {
  mooncake:
    'each line must be {"timestamp": MS, "input_length": N, "output_length": N, "hash_ids": [..]} with timestamps in ms, not decreasing',
  jsonl:
    'each line must be a JSON object with the --trace-columns fields (timestamp, prompt tokens, output tokens), timestamps not decreasing',
  csv: 'the first line names the columns; map them with --trace-columns timestamp=COL,input=COL,output=COL; timestamps not decreasing',
  azure:
    'an Azure LLM inference trace CSV starts with the header TIMESTAMP,ContextTokens,GeneratedTokens; timestamps not decreasing',
  burstgpt:
    'a BurstGPT CSV starts with the header Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type; timestamps in seconds, not decreasing',
  bailian:
    'each Bailian line is {"chat_id": N, "parent_chat_id": N or -1, "timestamp": SECONDS, "input_length": N, "output_length": N, "hash_ids": [..]}, timestamps not decreasing',
};

export function traceError(
  format: TraceFormat,
  where: string,
  field: string | undefined,
  problem: string,
): GoodputError {
  return new GoodputError(
    'E_DATASET',
    `trace ${where}: ${field !== undefined ? `field "${field}": ` : ''}${problem}`,
    TRACE_HINTS[format],
  );
}

function typeOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const UNIT_MS: Record<TraceTimeUnit, number> = { ms: 1, s: 1000, us: 0.001 };
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?\s*(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A date-time in ms since the epoch, keeping fractions below a millisecond (the Azure traces
 * carry seven digits): "2023-11-16 18:15:46.6805900". Without a zone it is read as UTC.
 */
export function parseDateTimeMs(text: string): number | undefined {
  const m = DATE_TIME.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (frac) ms += Number(`0.${frac}`) * 1000;
  if (zone && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return Number.isFinite(ms) ? ms : undefined;
}

/** A timestamp cell: a number in `unit`, or a date-time string. */
function timeValue(value: unknown, unit: TraceTimeUnit, fail: (problem: string) => never): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) fail(`expected a time ≥ 0, got ${value}`);
    return value * UNIT_MS[unit];
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if (NUMBER.test(text)) return timeValue(Number(text), unit, fail);
    const ms = parseDateTimeMs(text);
    if (ms === undefined)
      fail(`expected a number or a date-time (YYYY-MM-DD HH:MM:SS.fff), got "${text.slice(0, 40)}"`);
    return ms;
  }
  return fail(`expected a number, got ${typeOf(value)}`);
}

/**
 * A token count cell: a whole number from min to max (a CSV cell may be its decimal text).
 * Lengths are bounded like --prompt-tokens: a 1e9-token prompt would be built and run the heap
 * out, and a count past 2³²−1 would wrap in the trace's typed arrays.
 */
function countValue(value: unknown, min: number, fail: (problem: string) => never, max = MAX_TOKENS): number {
  const n = typeof value === 'string' && NUMBER.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number') {
    return fail(
      typeof value === 'string'
        ? `expected a whole number, got "${value.slice(0, 40)}"`
        : `expected a whole number, got ${typeOf(value)}`,
    );
  }
  if (!Number.isInteger(n) || n < min) fail(`expected a whole number ≥ ${min}, got ${n}`);
  if (n > max)
    fail(
      `${n} is more than ${max.toLocaleString('en-US')}, ${max === MAX_TOKENS ? 'longer than any model context' : 'more than a trace can hold'}`,
    );
  return n;
}

function parseJsonObject(text: string, format: TraceFormat, where: string): Record<string, unknown> {
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch (e) {
    throw traceError(format, where, undefined, `not valid JSON (${(e as Error).message})`);
  }
  if (typeof line !== 'object' || line === null || Array.isArray(line)) {
    throw traceError(format, where, undefined, `expected an object, got ${typeOf(line)}`);
  }
  return line as Record<string, unknown>;
}

/** One Mooncake trace line (`where` = "file:line"); undefined for a blank line. */
export function parseMooncakeLine(text: string, where: string): TraceRow | undefined {
  if (text.trim() === '') return undefined;
  const line = parseJsonObject(text, 'mooncake', where);
  const failOn =
    (field: string) =>
    (problem: string): never => {
      throw traceError('mooncake', where, field, problem);
    };
  const row: TraceRow = {
    input: countValue(line.input_length, 1, failOn('input_length')),
    output: countValue(line.output_length, 0, failOn('output_length')),
  };
  if (line.session_id !== undefined) {
    const id = line.session_id;
    if (typeof id !== 'string' && typeof id !== 'number')
      failOn('session_id')(`expected a string or number, got ${typeOf(id)}`);
    row.sessionId = String(id);
  }
  if (line.timestamp !== undefined) {
    row.timeMs = timeValue(line.timestamp, 'ms', failOn('timestamp'));
  } else if (line.delay !== undefined && row.sessionId !== undefined) {
    row.delayMs = timeValue(line.delay, 'ms', failOn('delay'));
  } else {
    failOn('timestamp')(line.delay !== undefined ? 'missing ("delay" needs a "session_id")' : 'missing');
  }
  if (line.hash_ids !== undefined) {
    const ids = line.hash_ids;
    if (!Array.isArray(ids)) failOn('hash_ids')(`expected an array of whole numbers, got ${typeOf(ids)}`);
    row.hashIds = (ids as unknown[]).map((id, k) => countValue(id, 0, failOn(`hash_ids[${k}]`), 0xffff_ffff));
  }
  return row;
}

/** A Bailian line: the row, and its chat id and parent's (-1 for a conversation's first request). */
export interface BailianRow {
  row: TraceRow;
  chatId: number;
  parentChatId: number;
}

/** One Bailian trace line (`where` = "file:line"); undefined for a blank line. */
export function parseBailianLine(text: string, where: string): BailianRow | undefined {
  if (text.trim() === '') return undefined;
  const line = parseJsonObject(text, 'bailian', where);
  const failOn =
    (field: string) =>
    (problem: string): never => {
      throw traceError('bailian', where, field, problem);
    };
  const chatId = countValue(line.chat_id, 0, failOn('chat_id'), Number.MAX_SAFE_INTEGER);
  const parent = line.parent_chat_id;
  const parentChatId =
    parent === -1 || parent === '-1'
      ? -1
      : countValue(parent, 0, failOn('parent_chat_id'), Number.MAX_SAFE_INTEGER);
  const row: TraceRow = {
    timeMs: timeValue(line.timestamp, 's', failOn('timestamp')),
    input: countValue(line.input_length, 1, failOn('input_length')),
    output: countValue(line.output_length, 0, failOn('output_length')),
  };
  const ids = line.hash_ids;
  if (ids !== undefined) {
    if (!Array.isArray(ids)) failOn('hash_ids')(`expected an array of whole numbers, got ${typeOf(ids)}`);
    row.hashIds = (ids as unknown[]).map((id, k) => countValue(id, 0, failOn(`hash_ids[${k}]`), 0xffff_ffff));
  }
  return { row, chatId, parentChatId };
}

/** One generic JSONL line whose fields are named by `columns`; undefined for a blank line. */
export function parseMappedJsonLine(
  text: string,
  where: string,
  columns: TraceColumns,
  unit: TraceTimeUnit,
): TraceRow | undefined {
  if (text.trim() === '') return undefined;
  const line = parseJsonObject(text, 'jsonl', where);
  return mappedRow((name) => line[name], columns, unit, 'jsonl', where);
}

function mappedRow(
  get: (name: string) => unknown,
  columns: TraceColumns,
  unit: TraceTimeUnit,
  format: TraceFormat,
  where: string,
): TraceRow {
  const failOn =
    (field: string) =>
    (problem: string): never => {
      throw traceError(format, where, field, problem);
    };
  const cell = (name: string) => {
    const v = get(name);
    return v === '' ? undefined : v;
  };
  return {
    timeMs: timeValue(cell(columns.timestamp), unit, failOn(columns.timestamp)),
    input: countValue(cell(columns.input), 1, failOn(columns.input)),
    output: countValue(cell(columns.output), 0, failOn(columns.output)),
  };
}

/** Splits one CSV line (RFC 4180 quoting, no line breaks inside a cell). */
export function splitCsvLine(text: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  cells.push(cell.replace(/\r$/, '').trim());
  return cells;
}

/** A CSV trace's header: where each mapped column is; a missing one is an error naming it. */
export function csvHeader(
  text: string,
  columns: TraceColumns,
  format: TraceFormat,
  where: string,
): Map<string, number> {
  const names = splitCsvLine(text);
  const at = new Map<string, number>();
  names.forEach((n, i) => {
    if (!at.has(n)) at.set(n, i);
  });
  for (const name of [columns.timestamp, columns.input, columns.output]) {
    if (!at.has(name)) {
      throw traceError(
        format,
        where,
        name,
        `no such column in the header (it has: ${names
          .map((n) => `"${n}"`)
          .join(', ')
          .slice(0, 200)})`,
      );
    }
  }
  return at;
}

/** One CSV data line after its header; undefined for a blank line. */
export function parseCsvLine(
  text: string,
  where: string,
  header: Map<string, number>,
  columns: TraceColumns,
  unit: TraceTimeUnit,
  format: TraceFormat,
): TraceRow | undefined {
  if (text.trim() === '') return undefined;
  const cells = splitCsvLine(text);
  return mappedRow((name) => cells[header.get(name)!], columns, unit, format, where);
}
