/**
 * Counting a session's turns with a model's own tokenizer (`--tokenizer FILE`) by their new
 * text only, exactly.
 *
 * Each turn's prompt is the whole conversation rendered through the chat template, and
 * counting it whole costs in proportion to the history, in the send path (about 3 µs a token).
 * But the tokenizer cuts the rendered text at its added tokens (`<|im_start|>`, `<|im_end|>`…)
 * first and encodes the texts between them independently (Tokenizer.promptPieces), so the
 * count is the added tokens plus the sum of those texts' counts: a session keeps the count of
 * each text it has seen (dropped with the session), and a turn encodes only the new ones (the
 * last reply, the new user message, the template's glue).
 *
 * A first turn counted by construction (a framed synthetic prompt, `known`) is not encoded:
 * its text that holds the user message takes the rest of the known count, and its other
 * texts (the system prompt, the glue, the same in every session) are kept for the run.
 *
 * Guard: the first CHECKED_TURNS turns with history are counted both ways. If the counts ever
 * differ, or no text was ever reused (the template's turns are not cut by added tokens, so
 * there is nothing to save), it says so once and counts every later turn whole.
 *
 * @module
 */

import type { ChatMessage } from '../types.js';
import type { PromptParts, Tokenizer } from './tokenizer.js';

/** Turns with history counted both ways at the start of a run. */
export const CHECKED_TURNS = 8;
/** Texts kept for the whole run (those of known first turns but the user's): a bound. */
const SHARED_LIMIT = 1024;

/** One session's counter (its memo goes with it). */
export interface TurnCounter {
  /** Tokens of a turn's prompt as the server counts them; `history`: not the session's first turn. */
  count(item: PromptParts, history: boolean): number;
  /** The first turn's prompt, whose count is known by construction: remembered lazily, not encoded. */
  known(messages: readonly ChatMessage[], total: number): void;
}

export interface TurnCounting {
  session(): TurnCounter;
}

/**
 * A copy of a text that does not hold on to the string it was cut from (V8 keeps a slice's
 * parent alive: the memo would keep every turn's rendered conversation).
 */
function detach(text: string): string {
  return ` ${text}`.slice(1);
}

/**
 * The counting of a run's session turns; undefined when turns are not counted through a
 * template (the tokenizer has no `countPrompt`). `note` hears the fallback once.
 */
export function createTurnCounting(
  tokenizer: Tokenizer,
  note?: (text: string) => void,
): TurnCounting | undefined {
  const countPrompt = tokenizer.countPrompt?.bind(tokenizer);
  if (!countPrompt) return undefined;
  const pieces = tokenizer.promptPieces?.bind(tokenizer);
  const countPiece = tokenizer.countPiece?.bind(tokenizer);
  let whole = pieces === undefined || countPiece === undefined;
  let checks = CHECKED_TURNS;
  let reusedTokens = 0;
  const shared = new Map<string, number>();

  const fallBack = (why: string) => {
    whole = true;
    shared.clear();
    note?.(`--tokenizer: ${why}; counting each session turn whole`);
  };

  return {
    session(): TurnCounter {
      const memo = new Map<string, number>();
      const openings = new Map<string, number>();
      let pending: { messages: readonly ChatMessage[]; total: number } | undefined;

      // The texts a prompt opens with are counted apart (a pre-tokenizer may treat them apart).
      const lookup = (text: string, opening: boolean) =>
        opening ? openings.get(text) : (memo.get(text) ?? shared.get(text));
      const encode = (text: string, opening: boolean, into: Map<string, number>) => {
        const c = countPiece!(text, opening);
        into.set(detach(text), c);
        return c;
      };
      const textsOf = (messages: readonly ChatMessage[]): [number, Array<[string, boolean]>] => {
        const p = pieces!(messages);
        const texts: Array<[string, boolean]> = p.texts.map((t) => [t, false]);
        if (p.opening !== '') texts.unshift([p.opening, true]);
        return [p.specials, texts];
      };

      /** Remembers the known first turn: the text holding the user message takes the rest of the count. */
      function settle(): void {
        const { messages, total } = pending!;
        pending = undefined;
        const [specials, texts] = textsOf(messages);
        const user = messages.at(-1)!.content;
        let derived: [string, boolean] | undefined;
        for (const entry of texts) {
          const [text, opening] = entry;
          if (lookup(text, opening) !== undefined || user === '' || !text.includes(user)) continue;
          if (derived === undefined || text.length > derived[0].length) derived = entry;
        }
        if (derived === undefined) return; // nothing takes the rest: its texts are counted when next seen
        let rest = total - specials;
        for (const entry of texts) {
          if (entry === derived) continue;
          const [text, opening] = entry;
          if (shared.size >= SHARED_LIMIT) shared.clear();
          rest -= lookup(text, opening) ?? encode(text, opening, opening ? openings : shared);
        }
        (derived[1] ? openings : memo).set(detach(derived[0]), rest);
      }

      /** The turn counted from its texts: [count, tokens of texts already known]. */
      function incremental(messages: readonly ChatMessage[]): [number, number] {
        const [specials, texts] = textsOf(messages);
        let n = specials;
        let reused = 0;
        for (const [text, opening] of texts) {
          const known = lookup(text, opening);
          if (known !== undefined) reused += known;
          n += known ?? encode(text, opening, opening ? openings : memo);
        }
        return [n, reused];
      }

      return {
        known(messages, total) {
          if (!whole) pending = { messages, total };
        },
        count(item, history) {
          if (whole || !item.messages) return countPrompt(item);
          if (pending) settle();
          const [n, reused] = incremental(item.messages);
          if (!history || checks === 0) return n;
          checks--;
          const full = countPrompt(item);
          reusedTokens += reused;
          if (n !== full)
            fallBack(
              `counting a session turn between the template's special tokens gave ${n} tokens, the whole conversation ${full}`,
            );
          else if (checks === 0 && reusedTokens === 0)
            fallBack("the template's turns are not separated by special tokens");
          return full;
        },
      };
    },
  };
}
