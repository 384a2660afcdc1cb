/**
 * Token counting with a real BPE tokenizer (gpt-tokenizer), so that "2048 prompt tokens"
 * means 2048 tokens to the server too.
 *
 * Every encoding, the default o200k_base included, loads on first use (its tables are several
 * megabytes: a command that generates no prompt, and `goodput --version`, never loads them). Special-token text such as `<|endoftext|>` in a
 * prompt is counted as plain text, as a server does with user content, instead of throwing.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { GoodputError } from '../errors.js';
import type { ChatMessage } from '../types.js';

/** A tokenizer: counts, encodes and decodes text. */
export interface Tokenizer {
  /** Encoding name, e.g. "o200k_base"; recorded in WorkloadSpec.tokenizer. */
  readonly name: string;
  count(text: string): number;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
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

function loadEncoding(name: TokenizerName): EncodingModule {
  return requireCjs(`gpt-tokenizer/cjs/encoding/${name}`) as EncodingModule;
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
  const encoding = loadEncoding(name as TokenizerName);
  const tokenizer: Tokenizer = {
    name,
    count: (text) => encoding.countTokens(text, PLAIN_TEXT),
    encode: (text) => encoding.encode(text, PLAIN_TEXT),
    decode: (ids) => encoding.decode(ids),
  };
  cache.set(name, tokenizer);
  return tokenizer;
}

/** The text whose tokens make a prompt: chat message contents concatenated with nothing between them. */
export function promptText(item: { messages?: readonly ChatMessage[]; prompt?: string }): string {
  if (item.messages) {
    let text = '';
    for (const m of item.messages) text += m.content;
    return text;
  }
  return item.prompt ?? '';
}

/**
 * Prompt tokens as the client counts them, exactly as the embedded simulator counts them:
 * the tokens of the concatenated message contents (chat) or of the prompt (completions).
 * A real server adds its chat template's tokens on top; that difference is expected.
 */
export function countPromptTokens(
  item: { messages?: readonly ChatMessage[]; prompt?: string },
  tokenizer: Tokenizer = createTokenizer(),
): number {
  return tokenizer.count(promptText(item));
}
