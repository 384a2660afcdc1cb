/**
 * Token counting with a real BPE tokenizer (gpt-tokenizer), so that "2048 prompt tokens"
 * means 2048 tokens to the server too.
 *
 * Every encoding, the default o200k_base included, loads on its first count, encode or decode
 * (its tables take tens of megabytes and most of a second to build): synthetic prompts are
 * built from shipped word pools (word-pools.ts) without them. Special-token text such as `<|endoftext|>` in a
 * prompt is counted as plain text, as a server does with user content, instead of throwing.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { GoodputError } from '../errors.js';
import type { ChatMessage, TokenizerFile } from '../types.js';

export type { TokenizerFile };

/** What a prompt is made of: chat messages or a completions prompt. */
export interface PromptParts {
  messages?: readonly ChatMessage[];
  prompt?: string;
}

/** A rendered chat prompt cut at the tokenizer's added tokens (Tokenizer.promptPieces). */
export interface PromptPieces {
  /** The added tokens in it. */
  specials: number;
  /** The text before the first added token, '' when the prompt opens with one. */
  opening: string;
  /** The non-empty texts after it, between and after the added tokens, in order. */
  texts: string[];
}

/** A tokenizer: counts, encodes and decodes text. */
export interface Tokenizer {
  /** Encoding name, e.g. "o200k_base"; recorded in WorkloadSpec.tokenizer. Unique per vocabulary (caches key on it). */
  readonly name: string;
  /** Tokens of plain text (no special tokens added): output text, dataset replies. */
  count(text: string): number;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /**
   * Tokens of a whole prompt as the server counts them: the chat template rendered with its
   * generation prompt, special tokens included (a model's own tokenizer, `--tokenizer FILE`).
   * Absent: the tokens of the concatenated message contents (see countPromptTokens).
   */
  countPrompt?(item: PromptParts): number;
  /**
   * A chat prompt rendered through the template and cut where the tokenizer cuts it first, at
   * its added tokens (each one token); the texts between them are encoded independently, so
   * `countPrompt` = `specials` + Σ `countPiece` of the texts. Absent: no template or no added
   * tokens to cut at. (Used to count a session's turns by their new text only: turn-count.ts.)
   */
  promptPieces?(messages: readonly ChatMessage[]): PromptPieces;
  /** Tokens of one text between added tokens; `opening`: the text the prompt opens with. */
  countPiece?(text: string, opening: boolean): number;
  /** Ids are below this (the vocabulary scan for prompt words stops there); undefined: unknown. */
  readonly vocabSize?: number;
  /** The file the tokenizer was read from, recorded in WorkloadSpec.tokenizerFile. */
  readonly file?: TokenizerFile;
}

/** Encodings that createTokenizer accepts. */
export const TOKENIZER_NAMES = [
  'o200k_base',
  'o200k_harmony',
  'cl100k_base',
  'p50k_base',
  'p50k_edit',
  'r50k_base',
] as const;
export type TokenizerName = (typeof TOKENIZER_NAMES)[number];

export const DEFAULT_TOKENIZER: TokenizerName = 'o200k_base';

interface EncodingModule {
  encode(text: string, options?: object): number[];
  decode(ids: Iterable<number>): string;
  countTokens(text: string, options?: object): number;
}

/** Treat special-token text as ordinary text. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

const cache = new Map<string, Tokenizer>();
const requireCjs = createRequire(import.meta.url);

/**
 * gpt-tokenizer's one TextDecoder, shared by every encoding and used in streaming mode without a
 * flush: a decode that ends mid-character (a lone token of a multi-byte character) leaves its
 * bytes there, and they came out at the front of the next decode of any text. Flushed around
 * each decode here, so every decode stands alone (an unfinished character is U+FFFD).
 */
let sharedDecoder: { decode(bytes?: Uint8Array): string } | undefined;

function decodeAlone(encoding: EncodingModule, ids: Iterable<number>): string {
  sharedDecoder ??= (
    requireCjs('gpt-tokenizer/cjs/BytePairEncodingCore') as {
      decoder?: { decode(bytes?: Uint8Array): string };
    }
  ).decoder;
  sharedDecoder?.decode();
  return encoding.decode(ids) + (sharedDecoder?.decode() ?? '');
}

function loadEncoding(name: TokenizerName): EncodingModule {
  return requireCjs(`gpt-tokenizer/cjs/encoding/${name}`) as EncodingModule;
}

/**
 * The longest run of non-space characters a tokenizer encodes whole. BPE merges within one
 * pre-tokenized word take time quadratic in its length: a reply that is one 256 KiB word took
 * minutes to count (1 MiB: ~15 min) and blocked the event loop, signals included. Longer runs
 * are encoded in pieces of this many characters: their count is then an estimate (a few tokens
 * per piece at most), still exact for every text with ordinary words.
 */
export const MAX_WORD_CHARS = 128;

/**
 * The pieces `text` is encoded in: the text between runs of more than MAX_WORD_CHARS non-space
 * characters, and each such run cut every MAX_WORD_CHARS characters. Undefined when there is
 * no such run (the text is encoded whole). A plain scan: `\S{129,}` costs irregexp time
 * quadratic in the run, the very thing this avoids.
 */
function pieces(text: string): string[] | undefined {
  if (text.length <= MAX_WORD_CHARS) return undefined;
  let out: string[] | undefined;
  let at = 0;
  const runs = /\S+/g;
  for (let m = runs.exec(text); m !== null; m = runs.exec(text)) {
    if (m[0].length <= MAX_WORD_CHARS) continue;
    out ??= [];
    if (m.index > at) out.push(text.slice(at, m.index));
    for (let i = 0; i < m[0].length; i += MAX_WORD_CHARS) out.push(m[0].slice(i, i + MAX_WORD_CHARS));
    at = m.index + m[0].length;
  }
  if (out && at < text.length) out.push(text.slice(at));
  return out;
}

/**
 * Encodes `text` with `encode`, cutting runs of more than MAX_WORD_CHARS non-space characters
 * into pieces of that length, so that time stays linear in the text's length.
 */
export function encodeInPieces(text: string, encode: (t: string) => number[]): number[] {
  const parts = pieces(text);
  if (parts === undefined) return encode(text);
  const out: number[] = [];
  for (const part of parts) for (const id of encode(part)) out.push(id);
  return out;
}

/** {@link encodeInPieces} for a count. */
export function countInPieces(text: string, count: (t: string) => number): number {
  const parts = pieces(text);
  if (parts === undefined) return count(text);
  let n = 0;
  for (const part of parts) n += count(part);
  return n;
}

/**
 * Returns the tokenizer for an encoding (cached: one instance per name).
 *
 * @example
 * const tok = createTokenizer();
 * tok.count('hello world'); // 2
 */
export function createTokenizer(name: string = DEFAULT_TOKENIZER): Tokenizer {
  const cached = cache.get(name);
  if (cached) return cached;
  if (!(TOKENIZER_NAMES as readonly string[]).includes(name)) {
    throw new GoodputError(
      'E_USAGE',
      `unknown tokenizer "${name}"`,
      `use one of: ${TOKENIZER_NAMES.join(', ')} (o200k_base matches recent OpenAI-style models)`,
    );
  }
  // The tables load on the first count, encode or decode, not here: synthetic prompts need
  // only the shipped word pools (word-pools.ts), and replies are counted only when a server
  // sends no usage.
  let loaded: EncodingModule | undefined;
  const encoding = () => (loaded ??= loadEncoding(name as TokenizerName));
  const tokenizer: Tokenizer = {
    name,
    count: (text) => countInPieces(text, (t) => encoding().countTokens(t, PLAIN_TEXT)),
    encode: (text) => encodeInPieces(text, (t) => encoding().encode(t, PLAIN_TEXT)),
    decode: (ids) => decodeAlone(encoding(), ids),
  };
  cache.set(name, tokenizer);
  return tokenizer;
}

/** The text whose tokens make a prompt: chat message contents concatenated with nothing between them. */
export function promptText(item: PromptParts): string {
  if (item.messages) {
    let text = '';
    for (const m of item.messages) text += m.content;
    return text;
  }
  return item.prompt ?? '';
}

/**
 * Prompt tokens as the client counts them. With a model's own tokenizer (`countPrompt`), as
 * that model's server counts them: chat template and special tokens included. Otherwise
 * exactly as the embedded simulator counts them: the tokens of the concatenated message
 * contents (chat) or of the prompt (completions); a real server adds its chat template's
 * tokens on top, a difference that is expected.
 */
export function countPromptTokens(item: PromptParts, tokenizer: Tokenizer = createTokenizer()): number {
  return tokenizer.countPrompt ? tokenizer.countPrompt(item) : tokenizer.count(promptText(item));
}
