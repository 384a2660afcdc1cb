/**
 * Synthetic prompts of an exact length in tokens, unique per request.
 *
 * How exactness is reached without tokenizing in the hot path: the text is one capitalised
 * word followed by words with a leading space (" word"), every one of them a single token
 * of the tokenizer's vocabulary. The BPE pre-tokenizer of the GPT encodings splits text
 * before every " word" and before a capital letter that follows a lowercase one, so the
 * tokens never merge across words: N words = N tokens, and two such texts concatenated
 * (a shared system prompt, then a user prompt) count as the sum of both. The word pools
 * come from the vocabulary itself and are checked once per tokenizer; tests verify the
 * counts with the real tokenizer over many lengths and seeds.
 *
 * Prompt caches make a repeated prompt much faster, so the first words of a prompt encode
 * a per-request number when one is given (`unique`), and the rest is drawn from the rng.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { Rng } from './rng.js';
import type { Tokenizer } from './tokenizer.js';
import type { WordPool } from './word-pools.js';
import { shippedPool } from './word-pools.js';

export type { WordPool };

const CAPITAL_POOL_SIZE = 1024;
const SPACED_POOL_SIZE = 8192;
/**
 * Pools of a tokenizer that counts whole prompts (a model's own, `countPrompt`): each word is
 * then tried next to the chat template once per run (prompt-frame.ts), and that library is
 * slower, so fewer words (still 128 × 1024 distinct two-word openings, and more digits).
 */
const FRAMED_CAPITAL_POOL_SIZE = 128;
const FRAMED_SPACED_POOL_SIZE = 1024;
const MAX_VOCAB_SCAN = 200_000;
const pools = new Map<string, WordPool>();

/** The words of a vocabulary scan; `unmarked` also tries " " + a bare word (vocabularies without a space marker). */
function scanVocabulary(tokenizer: Tokenizer, unmarked: boolean): WordPool {
  const capitals: string[] = [];
  const spaced: string[] = [];
  const seen = new Set<string>();
  const framed = tokenizer.countPrompt !== undefined;
  const CAPITALS = framed ? FRAMED_CAPITAL_POOL_SIZE : CAPITAL_POOL_SIZE;
  const SPACED = framed ? FRAMED_SPACED_POOL_SIZE : SPACED_POOL_SIZE;
  const end = Math.min(MAX_VOCAB_SCAN, tokenizer.vocabSize ?? MAX_VOCAB_SCAN);
  for (let id = 0; id < end; id++) {
    if (capitals.length >= CAPITALS && spaced.length >= SPACED) break;
    let text: string;
    try {
      text = tokenizer.decode([id]);
    } catch {
      continue;
    }
    if (unmarked && /^[a-z]{3,10}$/.test(text)) text = ` ${text}`;
    if (seen.has(text)) continue;
    seen.add(text);
    if (spaced.length < SPACED && /^ [a-z]{3,10}$/.test(text)) {
      if (tokenizer.count(text) === 1) spaced.push(text);
    } else if (capitals.length < CAPITALS && /^[A-Z][a-z]{2,10}$/.test(text)) {
      if (tokenizer.count(text) === 1) capitals.push(text);
    }
  }
  return { capitals, spaced };
}

const enough = (p: WordPool) => p.capitals.length >= 16 && p.spaced.length >= 256;

/** True when words of the pool side by side count one token each (the pre-tokenizer splits between them). */
function wordsAddUp(tokenizer: Tokenizer, pool: WordPool): boolean {
  const { capitals, spaced } = pool;
  const words = [capitals[capitals.length - 1]!, ...spaced.slice(0, 64), ...spaced.slice(-64)];
  return tokenizer.count(words.join('')) === words.length;
}

/**
 * The word pools of a tokenizer, built once from its vocabulary (lowest ids first: the most
 * common words) and cached by tokenizer name. A vocabulary whose words carry no space marker
 * (a WordLevel or WordPiece tokenizer that splits on whitespace) is scanned a second time
 * with a space put before its bare words. The built-in encodings' pools are shipped, scanned
 * at build time (word-pools.ts): with them loaded, no prompt needs the encoding's tables.
 */
export function wordPool(tokenizer: Tokenizer): WordPool {
  const cached = pools.get(tokenizer.name) ?? shippedPool(tokenizer.name);
  if (cached) return cached;
  const pool = scanWordPool(tokenizer);
  pools.set(tokenizer.name, pool);
  return pool;
}

/** The word pools of a tokenizer scanned from its vocabulary, uncached (scripts/word-pools.mjs ships the built-in ones). */
export function scanWordPool(tokenizer: Tokenizer): WordPool {
  let pool = scanVocabulary(tokenizer, false);
  if (!enough(pool)) pool = scanVocabulary(tokenizer, true);
  if (!enough(pool) || !wordsAddUp(tokenizer, pool)) {
    throw new GoodputError(
      'E_USAGE',
      `tokenizer ${tokenizer.name} has too few single-token words for exact-length prompts`,
      'use --tokenizer o200k_base (the default), or a --dataset',
    );
  }
  return pool;
}

export interface SyntheticPromptOptions {
  /**
   * A non-negative integer that makes the prompt distinct from every prompt given another
   * value (the request's index): encoded in the first words. Prompts shorter than the words
   * needed to encode it are distinct only as far as their length allows.
   */
  unique?: number;
  /** The words to draw from; default wordPool(tokenizer). A chat template may rule some out (see prompt-frame.ts). */
  pool?: WordPool;
}

/**
 * Text of exactly `tokens` tokens under `tokenizer` (0 gives the empty string). Draws from
 * `rng`; the same rng position gives the same text.
 *
 * @example
 * const text = syntheticPrompt(2048, createRng(1).fork('prompt/0'), createTokenizer(), { unique: 0 });
 * createTokenizer().count(text); // 2048
 */
export function syntheticPrompt(
  tokens: number,
  rng: Rng,
  tokenizer: Tokenizer,
  options: SyntheticPromptOptions = {},
): string {
  if (!Number.isInteger(tokens) || tokens < 0) {
    throw new GoodputError(
      'E_USAGE',
      `prompt length must be a whole number of tokens ≥ 0, got ${tokens}`,
      'pass --prompt-tokens as a positive integer',
    );
  }
  if (tokens === 0) return '';
  const { capitals, spaced } = options.pool ?? wordPool(tokenizer);
  const words = new Array<string>(tokens);
  let filled = 0;
  const unique = options.unique;
  if (unique !== undefined && unique >= 0) {
    words[filled++] = capitals[unique % capitals.length]!;
    // The next digits (base spaced.length) always take one word, so that prompts of two or
    // more tokens are distinct for the first capitals × spaced (8 million) values.
    let rest = Math.floor(unique / capitals.length);
    do {
      if (filled >= tokens) break;
      words[filled++] = spaced[rest % spaced.length]!;
      rest = Math.floor(rest / spaced.length);
    } while (rest > 0);
  } else {
    words[filled++] = capitals[rng.int(capitals.length)]!;
  }
  while (filled < tokens) words[filled++] = spaced[rng.int(spaced.length)]!;
  return words.join('');
}

/**
 * A prompt length drawn uniformly from the whole numbers in [n(1−range), n(1+range)]
 * (at least 1). range 0 gives n.
 */
export function promptLength(n: number, range: number, rng: Rng): number {
  if (!(range > 0)) return n;
  const low = shortestPromptLength(n, range);
  const high = Math.max(low, Math.floor(n * (1 + range)));
  return low + rng.int(high - low + 1);
}

/** The shortest length promptLength can draw. */
export function shortestPromptLength(n: number, range: number): number {
  return range > 0 ? Math.max(1, Math.ceil(n * (1 - range))) : n;
}
