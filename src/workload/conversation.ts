/**
 * Multi-turn conversations in datasets, replayed turn by turn as sessions (`--sessions`):
 * - ShareGPT: every human turn of a conversation (the reply after it gives that turn's output
 *   length);
 * - JSONL `{"messages": [...]}`: every user message (a following assistant message gives the
 *   output length; system messages form the conversation's system prompt);
 * - JSONL conversation trace `{"turns": [{"input_tokens": N, "output_tokens": M, "delay_ms": D}]}`:
 *   token counts only; each user message is synthesised with exactly N tokens.
 * The replies a session sends back are always the server's own, never the dataset's.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { ChatMessage } from '../types.js';

/** One user turn of a conversation. */
export interface ConversationTurn {
  /** The user's message; absent in a token-count trace (synthesised from userTokens). */
  user?: string;
  /** Trace: tokens of the user's message. */
  userTokens?: number;
  /** Output length the dataset gives (trace `output_tokens`). */
  outputTokens?: number;
  /** The dataset's reference reply: its token count is the output length. Never sent. */
  reply?: string;
  /** Trace: the user waits this long after the previous reply (overrides --think-time). */
  delayMs?: number;
}

/** A conversation of a dataset, as a session replays it. */
export interface Conversation {
  /** Where it is in the file, for errors: "data.jsonl:3" or "data.json: entry [2]". */
  source: string;
  /** The conversation's own system prompt (after the shared --system-prompt-tokens one). */
  system?: string;
  /** The user turns in order; empty when the conversation has none (refused by --sessions). */
  turns: ConversationTurn[];
}

export const TRACE_HINT =
  'a conversation trace line is {"turns": [{"input_tokens": 512, "output_tokens": 128, "delay_ms": 2000}, ...]} (delay_ms optional)';

function fail(where: string, field: string, problem: string, hint: string): GoodputError {
  return new GoodputError('E_DATASET', `${where}: field "${field}": ${problem}`, hint);
}

function typeOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** The user turns of a chat: each user message, with the assistant message after it as its reference reply. */
export function conversationFromMessages(messages: readonly ChatMessage[], source: string): Conversation {
  const turns: ConversationTurn[] = [];
  const system: string[] = [];
  for (const m of messages) {
    if (m.role === 'system') {
      if (turns.length === 0) system.push(m.content);
    } else if (m.role === 'user') {
      turns.push({ user: m.content });
    } else if (turns.length > 0 && turns[turns.length - 1]!.reply === undefined) {
      turns[turns.length - 1]!.reply = m.content;
    }
  }
  const c: Conversation = { source, turns };
  if (system.length > 0) c.system = system.join('\n');
  return c;
}

const HUMAN = new Set(['human', 'user']);
const SYSTEM = new Set(['system']);

/** The user turns of a ShareGPT conversation (already checked: every turn has string from and value). */
export function conversationFromShareGpt(
  turns: readonly { from: string; value: string }[],
  source: string,
): Conversation {
  const out: ConversationTurn[] = [];
  const system: string[] = [];
  for (const t of turns) {
    if (SYSTEM.has(t.from)) {
      if (out.length === 0) system.push(t.value);
    } else if (HUMAN.has(t.from)) {
      if (t.value !== '') out.push({ user: t.value });
    } else if (out.length > 0 && out[out.length - 1]!.reply === undefined) {
      out[out.length - 1]!.reply = t.value;
    }
  }
  const c: Conversation = { source, turns: out };
  if (system.length > 0) c.system = system.join('\n');
  return c;
}

function wholeNumber(value: unknown, where: string, field: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw fail(
      where,
      field,
      `expected a whole number ≥ ${min}, got ${typeof value === 'number' ? value : typeOf(value)}`,
      TRACE_HINT,
    );
  }
  return value;
}

/** A conversation-trace line's `turns` (token counts per turn); errors name the line and the field. */
export function parseTraceTurns(value: unknown, where: string): Conversation {
  if (!Array.isArray(value)) throw fail(where, 'turns', `expected array, got ${typeOf(value)}`, TRACE_HINT);
  if (value.length === 0)
    throw fail(where, 'turns', 'is empty: a conversation needs a user turn', TRACE_HINT);
  const turns = value.map((t, i): ConversationTurn => {
    const f = `turns[${i}]`;
    if (typeof t !== 'object' || t === null || Array.isArray(t))
      throw fail(where, f, `expected object, got ${typeOf(t)}`, TRACE_HINT);
    const o = t as Record<string, unknown>;
    const turn: ConversationTurn = {
      userTokens: wholeNumber(o.input_tokens, where, `${f}.input_tokens`, 1),
      outputTokens: wholeNumber(o.output_tokens, where, `${f}.output_tokens`, 1),
    };
    if (o.delay_ms !== undefined) {
      const d = o.delay_ms;
      if (typeof d !== 'number' || !Number.isFinite(d) || d < 0)
        throw fail(
          where,
          `${f}.delay_ms`,
          `expected a number ≥ 0, got ${typeOf(d) === 'number' ? d : typeOf(d)}`,
          TRACE_HINT,
        );
      turn.delayMs = d;
    }
    return turn;
  });
  return { source: where, turns };
}
