/**
 * Prompt datasets: JSONL (one `{"prompt": ...}` or `{"messages": [...]}` per line, with an
 * optional `max_tokens` or `output_tokens`) and ShareGPT JSON (an array of
 * `{"conversations": [{"from": "human" | "gpt", "value": ...}]}`: the first human turn is
 * the prompt, the reply after it gives the output length, as vLLM's benchmark does).
 *
 * Parsing is pure (`parseDataset(text, name)`); `loadDataset(path)` reads the file and adds
 * its sha256, so that a run records exactly which data it sent.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { GoodputError } from '../errors.js';
import type { ChatMessage } from '../types.js';

/** One prompt of a dataset. Exactly one of `messages` and `prompt` is set. */
export interface DatasetEntry {
  messages?: ChatMessage[];
  prompt?: string;
  /** Output length the dataset asks for (JSONL `max_tokens` / `output_tokens`). */
  outputTokens?: number;
  /** ShareGPT: the reference reply; its token count is the output length when --max-tokens is not given. */
  reply?: string;
}

export type DatasetFormat = 'jsonl' | 'sharegpt';

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

/** Parses JSONL text; blank lines are skipped. `name` is used in error messages. */
export function parseJsonlDataset(text: string, name: string): DatasetEntry[] {
  const entries: DatasetEntry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    const where = `${name}:${i + 1}`;
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch (e) {
      throw datasetError(where, undefined, `not valid JSON (${(e as Error).message})`, JSONL_HINT);
    }
    if (!isObject(line))
      throw datasetError(where, undefined, `expected an object, got ${typeOf(line)}`, JSONL_HINT);
    const entry: DatasetEntry = {};
    if (line.messages !== undefined) {
      entry.messages = parseMessages(line.messages, where);
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
    entries.push(entry);
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
    entries.push({ prompt: turns[first].value, reply: reply.value });
  }
  return { entries, skipped };
}

/** Guesses the format from the text: a top-level JSON array is ShareGPT, anything else JSONL. */
export function detectDatasetFormat(text: string): DatasetFormat {
  const first = text.match(/\S/)?.[0];
  return first === '[' ? 'sharegpt' : 'jsonl';
}

/** Parses a dataset's text (pure). */
export function parseDataset(
  text: string,
  name: string,
  format: DatasetFormat = detectDatasetFormat(text),
): { format: DatasetFormat; entries: DatasetEntry[]; skipped: number } {
  if (format === 'sharegpt') return { format, ...parseShareGptDataset(text, name) };
  return { format, entries: parseJsonlDataset(text, name), skipped: 0 };
}

/**
 * Reads and parses a dataset file; its sha256 and entry count go into WorkloadSpec.dataset.
 *
 * @example
 * const ds = await loadDataset('prompts.jsonl');
 * const spec = { ..., dataset: { path: ds.path, format: ds.format, sha256: ds.sha256, entries: ds.entries.length } };
 */
export async function loadDataset(path: string, format?: DatasetFormat): Promise<Dataset> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (e) {
    throw new GoodputError(
      'E_DATASET',
      `cannot read dataset ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      'check the path given to --dataset',
    );
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const parsed = parseDataset(bytes.toString('utf8'), path, format);
  if (parsed.entries.length === 0) {
    throw new GoodputError(
      'E_DATASET',
      `dataset ${path} has no usable prompts${parsed.skipped > 0 ? ` (${parsed.skipped} conversations without a human turn and a reply)` : ''}`,
      parsed.format === 'sharegpt' ? SHAREGPT_HINT : JSONL_HINT,
    );
  }
  return {
    path,
    format: parsed.format,
    sha256,
    entries: parsed.entries,
    count: parsed.entries.length,
    skipped: parsed.skipped,
  };
}
