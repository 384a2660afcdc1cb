/**
 * Prompt datasets: JSONL (one `{"prompt": ...}` or `{"messages": [...]}` per line, with an
 * optional `max_tokens` or `output_tokens`) and ShareGPT JSON (an array of
 * `{"conversations": [{"from": "human" | "gpt", "value": ...}]}`: the first human turn is
 * the prompt, the reply after it gives the output length, as vLLM's benchmark does).
 * Every entry also keeps its whole conversation (conversation.ts), which `--sessions` replays
 * turn by turn; a JSONL line `{"turns": [...]}` is a conversation trace of token counts.
 * A JSONL file whose first line is an OpenAI batch request, or a Hugging Face export row, is
 * read as such, and a Parquet file as Hugging Face rows (dataset-formats.ts, dataset-parquet.ts).
 *
 * Parsing is pure (`parseShareGptDataset`, `parseJsonlDataset`); `loadDataset(path)` reads the file and adds
 * its sha256, so that a run records exactly which data it sent.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { ExitCode, GoodputError } from '../errors.js';
import type { ChatMessage } from '../types.js';
import { openForReading } from '../util/index.js';
import {
  type Conversation,
  conversationFromMessages,
  conversationFromShareGpt,
  parseTraceTurns,
} from './conversation.js';
import {
  HF_HINT,
  hfEntry,
  type JsonlKind,
  jsonlKindOf,
  OPENAI_BATCH_HINT,
  openAiBatchEntry,
} from './dataset-formats.js';
import { isParquetFile, loadParquetDataset } from './dataset-parquet.js';

/**
 * One prompt of a dataset. At most one of `messages` and `prompt` is set; a conversation-trace
 * line has neither (only `conversation`: token counts, replayed with --sessions).
 */
export interface DatasetEntry {
  messages?: ChatMessage[];
  prompt?: string;
  /** Output length the dataset asks for (JSONL `max_tokens` / `output_tokens`). */
  outputTokens?: number;
  /** ShareGPT: the reference reply; its token count is the output length when --max-tokens is not given. */
  reply?: string;
  /** Every user turn (ShareGPT, `messages`, conversation trace): what --sessions replays turn by turn. */
  conversation?: Conversation;
}

export type DatasetFormat = 'jsonl' | 'sharegpt' | 'openai-batch' | 'hf-jsonl' | 'hf-parquet';

export interface Dataset {
  path: string;
  format: DatasetFormat;
  sha256: string;
  entries: DatasetEntry[];
  /** entries.length: the number recorded in WorkloadSpec.dataset.entries. */
  count: number;
  /** Conversations left out because they had no human turn followed by a reply (ShareGPT). */
  skipped: number;
}

const ROLES: readonly string[] = ['system', 'user', 'assistant'];
const HUMAN = new Set(['human', 'user']);
const REPLY = new Set(['gpt', 'assistant', 'chatgpt', 'bard', 'bing']);

function typeOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function datasetError(where: string, field: string | undefined, problem: string, hint: string): GoodputError {
  return new GoodputError('E_DATASET', `${where}: ${field ? `field "${field}": ` : ''}${problem}`, hint);
}

const JSONL_HINT =
  'each line must be {"prompt": "..."} or {"messages": [{"role": "user", "content": "..."}]}, optionally with "max_tokens": N';

function parseMessages(value: unknown, where: string): ChatMessage[] {
  if (!Array.isArray(value)) {
    throw datasetError(where, 'messages', `expected array, got ${typeOf(value)}`, JSONL_HINT);
  }
  if (value.length === 0) throw datasetError(where, 'messages', 'is empty', JSONL_HINT);
  return value.map((m, i) => {
    if (!isObject(m)) {
      throw datasetError(where, `messages[${i}]`, `expected object, got ${typeOf(m)}`, JSONL_HINT);
    }
    if (typeof m.role !== 'string' || !ROLES.includes(m.role)) {
      const got = typeof m.role === 'string' ? `"${m.role}"` : typeOf(m.role);
      throw datasetError(
        where,
        `messages[${i}].role`,
        `expected "system", "user" or "assistant", got ${got}`,
        JSONL_HINT,
      );
    }
    if (typeof m.content !== 'string') {
      throw datasetError(
        where,
        `messages[${i}].content`,
        `expected string, got ${typeOf(m.content)}`,
        'only text content is supported: use a string, not an array of content parts',
      );
    }
    return { role: m.role as ChatMessage['role'], content: m.content };
  });
}

function parseOutputTokens(line: Record<string, unknown>, where: string): number | undefined {
  for (const field of ['max_tokens', 'output_tokens'] as const) {
    const value = line[field];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw datasetError(
        where,
        field,
        `expected a whole number ≥ 1, got ${typeof value === 'number' ? value : typeOf(value)}`,
        JSONL_HINT,
      );
    }
    return value;
  }
  return undefined;
}

const LINE_HINTS: Record<JsonlKind, string> = {
  jsonl: JSONL_HINT,
  'openai-batch': OPENAI_BATCH_HINT,
  'hf-jsonl': HF_HINT,
};

/**
 * Parses one JSONL line (1-based `lineNo`) of a file read as `kind`; undefined for a blank
 * line, null for a Hugging Face row without a user turn (skipped).
 */
function parseJsonlLine(
  text: string,
  name: string,
  lineNo: number,
  kind: JsonlKind = 'jsonl',
): DatasetEntry | undefined | null {
  const raw = text.trim();
  if (raw === '') return undefined;
  const where = `${name}:${lineNo}`;
  const hint = LINE_HINTS[kind];
  let line: unknown;
  try {
    line = JSON.parse(raw);
  } catch (e) {
    throw datasetError(where, undefined, `not valid JSON (${(e as Error).message})`, hint);
  }
  if (!isObject(line)) throw datasetError(where, undefined, `expected an object, got ${typeOf(line)}`, hint);
  if (kind === 'openai-batch') return openAiBatchEntry(line, where);
  if (kind === 'hf-jsonl') return hfEntry(line, where) ?? null;
  const entry: DatasetEntry = {};
  if (line.turns !== undefined) {
    entry.conversation = parseTraceTurns(line.turns, where);
    return entry;
  }
  if (line.messages !== undefined) {
    entry.messages = parseMessages(line.messages, where);
    entry.conversation = conversationFromMessages(entry.messages, where);
  } else if (line.prompt !== undefined) {
    if (typeof line.prompt !== 'string') {
      throw datasetError(where, 'prompt', `expected string, got ${typeOf(line.prompt)}`, JSONL_HINT);
    }
    entry.prompt = line.prompt;
  } else {
    throw datasetError(where, 'prompt', 'missing (and no "messages" either)', JSONL_HINT);
  }
  const outputTokens = parseOutputTokens(line, where);
  if (outputTokens !== undefined) entry.outputTokens = outputTokens;
  return entry;
}

/**
 * Parses JSONL text; blank lines are skipped. `name` is used in error messages. The lines are
 * read as goodput's own, an OpenAI batch file's or a Hugging Face export's by the first one.
 */
export function parseJsonlDataset(text: string, name: string): DatasetEntry[] {
  const entries: DatasetEntry[] = [];
  const lines = text.split('\n');
  let kind: JsonlKind | undefined;
  for (let i = 0; i < lines.length; i++) {
    if (kind === undefined && lines[i]!.trim() !== '') kind = jsonlKindOf(lines[i]!.trim());
    const entry = parseJsonlLine(lines[i]!, name, i + 1, kind);
    if (entry) entries.push(entry);
  }
  return entries;
}

const SHAREGPT_HINT =
  'a ShareGPT file is a JSON array of {"conversations": [{"from": "human", "value": "..."}, {"from": "gpt", "value": "..."}]}';

/** Parses ShareGPT JSON text. Returns the entries and how many conversations were skipped. */
export function parseShareGptDataset(
  text: string,
  name: string,
): { entries: DatasetEntry[]; skipped: number } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw datasetError(name, undefined, `not valid JSON (${(e as Error).message})`, SHAREGPT_HINT);
  }
  if (!Array.isArray(data)) {
    throw datasetError(
      name,
      undefined,
      `expected a JSON array of conversations, got ${typeOf(data)}`,
      SHAREGPT_HINT,
    );
  }
  const entries: DatasetEntry[] = [];
  let skipped = 0;
  for (let i = 0; i < data.length; i++) {
    const item = data[i];
    const where = `${name}: entry [${i}]`;
    if (!isObject(item))
      throw datasetError(where, undefined, `expected an object, got ${typeOf(item)}`, SHAREGPT_HINT);
    const turns = item.conversations;
    if (!Array.isArray(turns)) {
      throw datasetError(where, 'conversations', `expected array, got ${typeOf(turns)}`, SHAREGPT_HINT);
    }
    turns.forEach((turn, t) => {
      if (!isObject(turn)) {
        throw datasetError(
          where,
          `conversations[${t}]`,
          `expected object, got ${typeOf(turn)}`,
          SHAREGPT_HINT,
        );
      }
      if (typeof turn.from !== 'string') {
        throw datasetError(
          where,
          `conversations[${t}].from`,
          `expected string, got ${typeOf(turn.from)}`,
          SHAREGPT_HINT,
        );
      }
      if (typeof turn.value !== 'string') {
        throw datasetError(
          where,
          `conversations[${t}].value`,
          `expected string, got ${typeOf(turn.value)}`,
          SHAREGPT_HINT,
        );
      }
    });
    const first = turns.findIndex((turn) => HUMAN.has(turn.from));
    const reply = first >= 0 ? turns[first + 1] : undefined;
    if (first < 0 || !reply || !REPLY.has(reply.from) || turns[first].value === '') {
      skipped++;
      continue;
    }
    entries.push({
      prompt: turns[first].value,
      reply: reply.value,
      conversation: conversationFromShareGpt(turns, where),
    });
  }
  return { entries, skipped };
}

/** Guesses the format from the text: a top-level JSON array is ShareGPT, anything else JSONL. */
export function detectDatasetFormat(text: string): DatasetFormat {
  const first = text.match(/\S/)?.[0];
  return first === '[' ? 'sharegpt' : 'jsonl';
}

/** The longest JSONL line read: a prompt of a few million tokens fits; /dev/zero does not. */
export const MAX_DATASET_LINE_BYTES = 16 * 1024 * 1024;
/** The largest dataset file read (JSONL, read a line at a time). */
export const MAX_DATASET_BYTES = 1024 * 1024 * 1024;
/** The largest ShareGPT file (one JSON document, parsed whole). */
export const MAX_SHAREGPT_BYTES = 256 * 1024 * 1024;

const MiB = (n: number) => `${n / 1024 / 1024} MiB`;

/** Options of {@link loadDataset}. */
export interface LoadDatasetOptions {
  /** Stops the read (Ctrl-C): a FIFO or a device that never ends must not hold the run. */
  signal?: AbortSignal;
}

/**
 * Reads and parses a dataset file; its sha256 and entry count go into WorkloadSpec.dataset.
 * The file is streamed: JSONL a line at a time (each at most {@link MAX_DATASET_LINE_BYTES},
 * the file at most {@link MAX_DATASET_BYTES}), ShareGPT whole up to {@link MAX_SHAREGPT_BYTES}.
 * Anything larger, and a file that never ends (/dev/zero, a FIFO), is an `E_DATASET` usage
 * error naming the limit; the signal stops the read with exit code 130.
 *
 * @example
 * const ds = await loadDataset('prompts.jsonl');
 * const spec = { ..., dataset: { path: ds.path, format: ds.format, sha256: ds.sha256, entries: ds.entries.length } };
 */
export async function loadDataset(
  path: string,
  format?: DatasetFormat,
  opts: LoadDatasetOptions = {},
): Promise<Dataset> {
  if (format === 'hf-parquet' || (format === undefined && (await isParquetFile(path)))) {
    const parquet = await loadParquetDataset(path, opts.signal);
    return finish(path, 'hf-parquet', parquet.sha256, parquet.entries, parquet.skipped);
  }
  const hash = createHash('sha256');
  const entries: DatasetEntry[] = [];
  let detected: DatasetFormat | undefined = format;
  let kind: JsonlKind | undefined = format === 'openai-batch' || format === 'hf-jsonl' ? format : undefined;
  let skippedRows = 0;
  let total = 0;
  let lineNo = 0;
  let line: Buffer[] = [];
  let lineBytes = 0;
  const whole: Buffer[] = [];
  const tooBig = (what: string, hint: string) =>
    new GoodputError('E_DATASET', `dataset ${path}: ${what}`, hint);
  const endLine = () => {
    lineNo++;
    const text = Buffer.concat(line).toString('utf8');
    if (kind === undefined && text.trim() !== '') kind = jsonlKindOf(text.trim());
    const entry = parseJsonlLine(text, path, lineNo, kind);
    if (entry) entries.push(entry);
    else if (entry === null) skippedRows++;
    line = [];
    lineBytes = 0;
  };
  const onChunk = (chunk: Buffer) => {
    total += chunk.length;
    hash.update(chunk);
    if (detected === undefined) {
      const text = chunk.toString('latin1');
      const first = text.match(/\S/)?.[0];
      if (first !== undefined) detected = first === '[' ? 'sharegpt' : 'jsonl';
    }
    if (detected === 'sharegpt') {
      if (total > MAX_SHAREGPT_BYTES) {
        throw tooBig(
          `a ShareGPT file over ${MiB(MAX_SHAREGPT_BYTES)} (it is parsed whole)`,
          'convert it to JSONL (one {"prompt": ...} per line), which is read a line at a time',
        );
      }
      whole.push(chunk);
      return;
    }
    if (total > MAX_DATASET_BYTES) {
      throw tooBig(
        `over ${MiB(MAX_DATASET_BYTES)}: not read further`,
        'use a smaller dataset (a sample of it)',
      );
    }
    if (detected === undefined) {
      whole.push(chunk); // only whitespace so far
      return;
    }
    if (whole.length > 0) {
      chunk = Buffer.concat([...whole.splice(0), chunk]);
    }
    let at = 0;
    for (let nl = chunk.indexOf(10, at); nl !== -1; nl = chunk.indexOf(10, at)) {
      const piece = chunk.subarray(at, nl);
      if (lineBytes + piece.length > MAX_DATASET_LINE_BYTES) break;
      line.push(piece);
      endLine();
      at = nl + 1;
    }
    const rest = chunk.subarray(at);
    const nextNl = rest.indexOf(10);
    lineBytes += nextNl === -1 ? rest.length : nextNl;
    if (lineBytes > MAX_DATASET_LINE_BYTES) {
      throw tooBig(
        `line ${lineNo + 1} is longer than ${MiB(MAX_DATASET_LINE_BYTES)}: not read further`,
        'each JSONL line is one prompt; check that the file is JSONL (not one huge line or a device such as /dev/zero)',
      );
    }
    line.push(Buffer.from(rest));
  };
  await streamFile(path, onChunk, opts.signal);
  if (detected === 'sharegpt' || (detected === undefined && format === 'sharegpt')) {
    const parsed = parseShareGptDataset(Buffer.concat(whole).toString('utf8'), path);
    return finish(path, 'sharegpt', hash.digest('hex'), parsed.entries, parsed.skipped);
  }
  if (lineBytes > 0 || line.length > 0) endLine();
  return finish(path, kind ?? 'jsonl', hash.digest('hex'), entries, skippedRows);
}

function finish(
  path: string,
  format: DatasetFormat,
  sha256: string,
  entries: DatasetEntry[],
  skipped: number,
): Dataset {
  if (entries.length === 0) {
    throw new GoodputError(
      'E_DATASET',
      `dataset ${path} has no usable prompts${skipped > 0 ? ` (${skipped} conversations without a human turn and a reply)` : ''}`,
      format === 'sharegpt'
        ? SHAREGPT_HINT
        : format === 'jsonl'
          ? JSONL_HINT
          : format === 'openai-batch'
            ? OPENAI_BATCH_HINT
            : HF_HINT,
    );
  }
  return { path, format, sha256, entries, count: entries.length, skipped };
}

/** Streams a file into `onChunk` (which may throw to stop), stopped by the signal. */
async function streamFile(
  path: string,
  onChunk: (chunk: Buffer) => void,
  signal?: AbortSignal,
): Promise<void> {
  const stopped = () =>
    new GoodputError('E_DATASET', `reading dataset ${path} was stopped`, 'nothing was sent; run again', {
      exitCode: ExitCode.INTERRUPTED,
    });
  const cannotRead = (e: unknown) =>
    new GoodputError(
      'E_DATASET',
      `cannot read dataset ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      'check the path given to --dataset',
    );
  if (signal?.aborted) throw stopped();
  let stream: ReturnType<typeof openForReading>;
  try {
    stream = openForReading(path);
  } catch (e) {
    throw cannotRead(e);
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      stream.close();
      reject(stopped());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  const read = (async () => {
    try {
      for await (const chunk of stream.chunks) onChunk(chunk);
    } catch (e) {
      if (e instanceof GoodputError) throw e;
      throw cannotRead(e);
    } finally {
      stream.close();
    }
  })();
  try {
    await Promise.race([read, aborted]);
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
