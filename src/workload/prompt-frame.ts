/**
 * Exact prompt lengths through a chat template: with a model's own tokenizer a request's
 * prompt is the template around the messages (role markers, special tokens, the generation
 * prompt, a BOS), and `--prompt-tokens N` means the request's prompt_tokens as the server
 * counts them: N (+ `--system-prompt-tokens`), template included. The user text is then
 * N − overhead words, where the overhead is what the template adds.
 *
 * The words of the synthetic prompts count one token each side by side (synthetic.ts); the
 * frame is measured once, before the first request, so no prompt is tokenized in the hot
 * path: words are tried where they stand next to the template (a capital first, a word
 * last) — a random sample first, and when any word of the sample changes its count there,
 * every word, leaving out those that merge with the template's text; the overhead is
 * measured with the run's own system prompt, and a few full-length prompts check the sum.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import { createRng } from './rng.js';
import { syntheticPrompt, type WordPool, wordPool } from './synthetic.js';
import type { PromptParts, Tokenizer } from './tokenizer.js';

export interface PromptFrame {
  /** Tokens the template adds to the system and user words (0: none). */
  overhead: number;
  /** The words that keep their count next to the template. */
  pool: WordPool;
}

/** The request of a system text and a user text (chat messages, or one completions prompt). */
export type BuildPrompt = (system: string, user: string) => PromptParts;

function mostCommon(values: readonly number[]): number {
  const counts = new Map<number, number>();
  let best = values[0]!;
  for (const v of values) {
    const n = (counts.get(v) ?? 0) + 1;
    counts.set(v, n);
    if (n > (counts.get(best) ?? 0)) best = v;
  }
  return best;
}

function frameError(tokenizer: Tokenizer, why: string): GoodputError {
  return new GoodputError(
    'E_USAGE',
    `exact-length prompts cannot be built with ${tokenizer.name}: ${why}`,
    'use a --dataset (its prompts are counted with the template), or drop --chat-template',
  );
}

/**
 * The frame of a tokenizer that counts whole prompts (`countPrompt`); undefined for one that
 * counts the words alone (the default tokenizer: no overhead, every word fits).
 *
 * @example
 * const frame = fitPromptFrame(tok, (s, u) => ({ messages: [{ role: 'user', content: u }] }), '', 0);
 * // a 512-token request: syntheticPrompt(512 - frame.overhead, rng, tok, { pool: frame.pool })
 */
export function fitPromptFrame(
  tokenizer: Tokenizer,
  build: BuildPrompt,
  systemText: string,
  systemTokens: number,
): PromptFrame | undefined {
  const countPrompt = tokenizer.countPrompt?.bind(tokenizer);
  if (!countPrompt) return undefined;
  // Watch builds a workload per round: the frame of the same prompt shape is measured once.
  const key = `${JSON.stringify(build('S', 'U'))}\0${systemTokens}\0${systemText}`;
  let frames = cache.get(tokenizer);
  if (!frames) {
    frames = new Map();
    cache.set(tokenizer, frames);
  }
  const known = frames.get(key);
  if (known) return known;
  const frame = measureFrame(tokenizer, countPrompt, build, systemText, systemTokens);
  frames.set(key, frame);
  return frame;
}

const cache = new WeakMap<Tokenizer, Map<string, PromptFrame>>();

function measureFrame(
  tokenizer: Tokenizer,
  countPrompt: (item: PromptParts) => number,
  build: BuildPrompt,
  systemText: string,
  systemTokens: number,
): PromptFrame {
  const base = wordPool(tokenizer);
  // Words are tried behind a short system text of the same shape as the run's.
  const shortSystem = systemTokens > 0 ? base.capitals[0]! + base.spaced[0]! : '';
  const shortWords = systemTokens > 0 ? 2 : 0;
  const extra = (user: string, words: number) => countPrompt(build(shortSystem, user)) - shortWords - words;

  const sampleRng = createRng('prompt-frame/sample');
  const pick = <T>(xs: readonly T[]) => xs[sampleRng.int(xs.length)]!;
  // The template's own tokens: what most openings of two words (a capital, a word) add.
  const pairs = Array.from({ length: 32 }, () => [pick(base.capitals), pick(base.spaced)] as const);
  const extras = pairs.map(([c, w]) => extra(c + w, 2));
  const reference = mostCommon(extras);
  const found = pairs.find(([c], i) => extras[i] === reference && extra(c, 1) === reference);
  if (found === undefined)
    throw frameError(tokenizer, 'the chat template merges with the words the prompts are made of');
  const [opener, filler] = found;
  const opens = (c: string) => extra(c + filler, 2) === reference && extra(c, 1) === reference;
  const closes = (w: string) => extra(opener + w, 2) === reference;
  // Every word tried next to the template is slow with this library (milliseconds each): a
  // sample first; when the whole sample keeps its count, the template splits from any word
  // (a special token, a newline), and only when it does not is every word tried.
  const sample = <T>(xs: readonly T[], n: number) => Array.from({ length: n }, () => pick(xs));
  const capitals = sample(base.capitals, 32).every(opens) ? base.capitals : base.capitals.filter(opens);
  const spaced = sample(base.spaced, 64).every(closes) ? base.spaced : base.spaced.filter(closes);
  if (capitals.length < 16 || spaced.length < 256) {
    throw frameError(
      tokenizer,
      'the chat template merges with too many of the words the prompts are made of',
    );
  }
  const pool: WordPool = { capitals, spaced };
  const overhead = countPrompt(build(systemText, opener + spaced[0]!)) - systemTokens - 2;
  // A few whole prompts of the run's shape check the sum.
  const rng = createRng('prompt-frame');
  for (const [i, words] of [3, 17, 200].entries()) {
    const user = syntheticPrompt(words, rng.fork(i), tokenizer, { unique: i * 7919, pool });
    const counted = countPrompt(build(systemText, user));
    if (counted !== systemTokens + words + overhead) {
      throw frameError(
        tokenizer,
        `a ${words}-word prompt counts ${counted - systemTokens - overhead} tokens in its template`,
      );
    }
  }
  return { overhead, pool };
}
