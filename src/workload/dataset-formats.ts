/**
 * Prompt datasets in the forms users download, beside goodput's own JSONL and ShareGPT
 * (dataset.ts), each row parsed on its own (pure):
 *
 * - OpenAI batch input JSONL (the Batch API's request file): one
 *   `{"custom_id", "method": "POST", "url": "/v1/chat/completions" | "/v1/completions" |
 *   "/v1/responses", "body": {...}}` per line; the body's `messages` (text parts of a content
 *   array joined), `prompt` or `input` is the prompt, its `max_tokens` /
 *   `max_completion_tokens` / `max_output_tokens` the output length.
 * - A Hugging Face datasets export (`Dataset.to_json()` JSONL, or Parquet: dataset-parquet.ts):
 *   one row per line whose prompt is the first of the columns `messages`, `conversations`,
 *   `conversation` (a chat as role/content or from/value turns: the first user turn, the
 *   reply after it), `prompt`, `question`, `instruction` (with `input` after it), `query`,
 *   `text`; and whose reference reply, when it has one, is `response`, `completion`,
 *   `output`, `answer` or `chosen` (its token count is the output length).
 *
 * Every problem is an `E_DATASET` error naming the file, the line (or row) and the field.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { ChatMessage } from '../types.js';
import { conversationFromMessages, conversationFromShareGpt } from './conversation.js';
import type { DatasetEntry } from './dataset.js';

export const OPENAI_BATCH_HINT =
  'each line of an OpenAI batch file is {"custom_id": "...", "method": "POST", "url": "/v1/chat/completions", "body": {"messages": [...], "max_tokens": N}}';
export const HF_HINT =
  'a Hugging Face export row needs one of the columns messages, conversations, conversation, prompt, question, instruction, query or text (a string, or a chat as a list of role/content turns)';

/** The prompt columns of a Hugging Face row, in the order they are tried. */
export const HF_PROMPT_COLUMNS = [
  'messages',
  'conversations',
  'conversation',
  'prompt',
  'question',
  'instruction',
  'query',
  'text',
] as const;
/** The reference-reply columns of a Hugging Face row, in the order they are tried. */
export const HF_REPLY_COLUMNS = ['response', 'completion', 'output', 'answer', 'chosen'] as const;

/** Which reader a JSONL file's lines take, from its first line. */
export type JsonlKind = 'jsonl' | 'openai-batch' | 'hf-jsonl';

function typeOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(where: string, field: string | undefined, problem: string, hint: string): GoodputError {
  return new GoodputError('E_DATASET', `${where}: ${field ? `field "${field}": ` : ''}${problem}`, hint);
}

/**
 * The reader of a JSONL file from its first non-blank line: an OpenAI batch request
 * (`custom_id` and `body`), goodput's own (`prompt`, `messages` or `turns`), else a Hugging Face
 * export when it has one of its prompt columns; goodput's own otherwise (whose error then says
 * what a line needs).
 */
export function jsonlKindOf(first: string): JsonlKind {
  let line: unknown;
  try {
    line = JSON.parse(first);
  } catch {
    return 'jsonl';
  }
  if (!isObject(line)) return 'jsonl';
  if ('custom_id' in line && 'body' in line) return 'openai-batch';
  if ('prompt' in line || 'messages' in line || 'turns' in line) return 'jsonl';
  return HF_PROMPT_COLUMNS.some((c) => c in line) ? 'hf-jsonl' : 'jsonl';
}

/** A content string, or the text parts of a content array joined (`{"type": "text", "text": ...}`). */
function contentText(value: unknown, where: string, field: string, hint: string): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value))
    throw fail(where, field, `expected a string or an array of parts, got ${typeOf(value)}`, hint);
  return value
    .map((part, k) => {
      const f = `${field}[${k}]`;
      if (!isObject(part)) throw fail(where, f, `expected an object, got ${typeOf(part)}`, hint);
      if (part.type !== 'text' && part.type !== 'input_text')
        throw fail(
          where,
          `${f}.type`,
          `only text parts are read, got ${typeof part.type === 'string' ? `"${part.type.slice(0, 40)}"` : typeOf(part.type)}`,
          hint,
        );
      if (typeof part.text !== 'string')
        throw fail(where, `${f}.text`, `expected a string, got ${typeOf(part.text)}`, hint);
      return part.text;
    })
    .join('\n');
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant']);

/** A chat as role/content messages (`developer` read as `system`). */
function chatMessages(value: unknown, where: string, field: string, hint: string): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0)
    throw fail(
      where,
      field,
      `expected a non-empty array of messages, got ${Array.isArray(value) ? 'an empty array' : typeOf(value)}`,
      hint,
    );
  return value.map((m, i) => {
    const f = `${field}[${i}]`;
    if (!isObject(m)) throw fail(where, f, `expected an object, got ${typeOf(m)}`, hint);
    if (typeof m.role !== 'string' || !ROLES.has(m.role))
      throw fail(
        where,
        `${f}.role`,
        `expected "system", "user" or "assistant", got ${typeof m.role === 'string' ? `"${m.role.slice(0, 40)}"` : typeOf(m.role)}`,
        hint,
      );
    const role = (m.role === 'developer' ? 'system' : m.role) as ChatMessage['role'];
    return { role, content: contentText(m.content, where, `${f}.content`, hint) };
  });
}

function outputLength(
  body: Record<string, unknown>,
  where: string,
  prefix: string,
  hint: string,
): number | undefined {
  for (const key of ['max_tokens', 'max_completion_tokens', 'max_output_tokens', 'output_tokens']) {
    const v = body[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
      throw fail(
        where,
        `${prefix}${key}`,
        `expected a whole number ≥ 1, got ${typeof v === 'number' ? v : typeOf(v)}`,
        hint,
      );
    return v;
  }
  return undefined;
}

/** One OpenAI batch request line (already parsed as an object). */
export function openAiBatchEntry(line: Record<string, unknown>, where: string): DatasetEntry {
  const hint = OPENAI_BATCH_HINT;
  const body = line.body;
  if (!isObject(body)) throw fail(where, 'body', `expected an object, got ${typeOf(body)}`, hint);
  const url = line.url;
  if (url !== undefined && typeof url !== 'string')
    throw fail(where, 'url', `expected a string, got ${typeOf(url)}`, hint);
  if (typeof url === 'string' && url.includes('embeddings'))
    throw fail(
      where,
      'url',
      `"${url.slice(0, 60)}" requests carry no prompt to generate from`,
      'use a batch of /v1/chat/completions, /v1/completions or /v1/responses requests',
    );
  const entry: DatasetEntry = {};
  if (body.messages !== undefined) {
    entry.messages = chatMessages(body.messages, where, 'body.messages', hint);
    entry.conversation = conversationFromMessages(entry.messages, where);
  } else if (body.prompt !== undefined) {
    if (typeof body.prompt !== 'string')
      throw fail(
        where,
        'body.prompt',
        `expected a string (one prompt per request), got ${typeOf(body.prompt)}`,
        hint,
      );
    entry.prompt = body.prompt;
  } else if (body.input !== undefined) {
    if (typeof body.input === 'string') entry.prompt = body.input;
    else {
      entry.messages = chatMessages(body.input, where, 'body.input', hint);
      entry.conversation = conversationFromMessages(entry.messages, where);
    }
  } else {
    throw fail(where, 'body.messages', 'missing (and no body.prompt or body.input either)', hint);
  }
  const output = outputLength(body, where, 'body.', hint);
  if (output !== undefined) entry.outputTokens = output;
  return entry;
}

/** A from/value (ShareGPT) or role/content chat column as its first user turn, reply and conversation. */
function hfChat(value: unknown, where: string, field: string): DatasetEntry | undefined {
  if (!Array.isArray(value) || value.length === 0)
    throw fail(
      where,
      field,
      `expected a non-empty list of turns, got ${Array.isArray(value) ? 'an empty list' : typeOf(value)}`,
      HF_HINT,
    );
  const shareGpt = isObject(value[0]) && 'from' in value[0];
  const turns = shareGpt
    ? value.map((t, i) => {
        if (!isObject(t) || typeof t.from !== 'string' || typeof t.value !== 'string')
          throw fail(where, `${field}[${i}]`, 'expected {"from": string, "value": string}', HF_HINT);
        return { from: t.from, value: t.value };
      })
    : chatMessages(value, where, field, HF_HINT).map((m) => ({ from: m.role, value: m.content }));
  const conversation = conversationFromShareGpt(turns, where);
  const first = conversation.turns[0];
  if (first?.user === undefined) return undefined;
  const entry: DatasetEntry = { prompt: first.user, conversation };
  if (first.reply !== undefined) entry.reply = first.reply;
  return entry;
}

/**
 * One Hugging Face row (a JSONL line or a Parquet row); undefined for a row with a chat but no
 * user turn (counted as skipped). A row with none of the prompt columns is an error naming them.
 */
export function hfEntry(row: Record<string, unknown>, where: string): DatasetEntry | undefined {
  const column = HF_PROMPT_COLUMNS.find((c) => row[c] !== undefined && row[c] !== null);
  if (column === undefined)
    throw fail(where, undefined, `none of the prompt columns (${HF_PROMPT_COLUMNS.join(', ')})`, HF_HINT);
  const value = row[column];
  let entry: DatasetEntry | undefined;
  if (column === 'messages' || column === 'conversations' || column === 'conversation') {
    entry = hfChat(value, where, column);
    if (!entry) return undefined;
  } else {
    if (typeof value !== 'string')
      throw fail(where, column, `expected a string, got ${typeOf(value)}`, HF_HINT);
    const input = column === 'instruction' ? row.input : undefined;
    if (input !== undefined && input !== null && typeof input !== 'string')
      throw fail(where, 'input', `expected a string, got ${typeOf(input)}`, HF_HINT);
    const prompt = input ? `${value}\n\n${input}` : value;
    if (prompt === '') throw fail(where, column, 'is empty', HF_HINT);
    entry = { prompt };
  }
  if (entry.reply === undefined) {
    const reply = HF_REPLY_COLUMNS.find((c) => typeof row[c] === 'string' && row[c] !== '');
    if (reply !== undefined) entry.reply = row[reply] as string;
  }
  const output = outputLength(row, where, '', HF_HINT);
  if (output !== undefined) entry.outputTokens = output;
  return entry;
}
