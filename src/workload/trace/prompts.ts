/**
 * Prompts of a trace whose requests name their prompt blocks by hash id (Mooncake's
 * `hash_ids`): two requests sharing a hash id share that block of text exactly, so a server's
 * prefix cache sees what it saw in production without the original text.
 *
 * A prompt is its blocks' texts in order (`blockSize` tokens each, the last one cut to the
 * request's length), then, when the request is longer than its blocks, text of its own.
 * Every block is made of single-token words with a leading space (" word"), which a GPT
 * tokenizer never merges across, so N words are N tokens and concatenated blocks count as
 * the sum of their lengths: no tokenizing on the hot path. A block's first words spell its
 * hash id, the rest come from a stream seeded by the hash id, so different blocks differ from
 * their first token, and from a request's own text. Block texts are built once and kept in a bounded LRU cache, so memory
 * stays flat however long the trace.
 *
 * @module
 */

import { createRng, type Rng } from '../rng.js';
import { wordPool } from '../synthetic.js';
import type { Tokenizer } from '../tokenizer.js';

export interface TracePromptOptions {
  tokenizer: Tokenizer;
  /** Tokens per hash id (Mooncake: 512). */
  blockSize: number;
  seed: number;
  /** Block texts kept (LRU) [default 2048: about 7 MB at 512 tokens]. */
  cacheBlocks?: number;
}

export const DEFAULT_TRACE_BLOCK_SIZE = 512;
const DEFAULT_CACHE_BLOCKS = 2048;

/** Builds the prompt text of trace requests; see the module comment. */
export class TracePrompts {
  private readonly spaced: readonly string[];
  private readonly blocks: Rng;
  private readonly fill: Rng;
  private readonly cache = new Map<number, string>();
  private readonly cacheBlocks: number;
  readonly blockSize: number;

  constructor(options: TracePromptOptions) {
    this.spaced = wordPool(options.tokenizer).spaced;
    const root = createRng(options.seed);
    this.blocks = root.fork('trace-block');
    this.fill = root.fork('trace-fill');
    this.blockSize = options.blockSize;
    this.cacheBlocks = Math.max(1, options.cacheBlocks ?? DEFAULT_CACHE_BLOCKS);
  }

  /**
   * `n` words whose first ones spell `id`: the first word from one half of the pool (blocks
   * the lower, a request's own text the upper, so the two never start alike), then digits of
   * the whole pool, two words at least (ids up to 33 million differ within two tokens).
   */
  private words(id: number, n: number, rng: Rng, own: boolean): string {
    const spaced = this.spaced;
    const half = Math.floor(spaced.length / 2);
    const words = new Array<string>(n);
    let filled = 0;
    if (n > 0) words[filled++] = spaced[(own ? half : 0) + (id % half)]!;
    let rest = Math.floor(id / half);
    while (filled < n && (rest > 0 || filled < 2)) {
      words[filled++] = spaced[rest % spaced.length]!;
      rest = Math.floor(rest / spaced.length);
    }
    while (filled < n) words[filled++] = spaced[rng.int(spaced.length)]!;
    return words.join('');
  }

  /** The whole text of one hash block (blockSize tokens), from the cache when it is there. */
  block(hashId: number): string {
    const cached = this.cache.get(hashId);
    if (cached !== undefined) {
      // Most recently used last: the first key is the one to evict.
      this.cache.delete(hashId);
      this.cache.set(hashId, cached);
      return cached;
    }
    const text = this.words(hashId, this.blockSize, this.blocks.fork(hashId), false);
    if (this.cache.size >= this.cacheBlocks) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(hashId, text);
    return text;
  }

  /**
   * Text of exactly `tokens` tokens: the blocks of `hashIds` in order (the last cut short when
   * the request ends inside it), then words unique to request `unique` for the rest.
   */
  prompt(hashIds: ArrayLike<number>, tokens: number, unique: number): string {
    let text = '';
    let left = tokens;
    for (let k = 0; k < hashIds.length && left > 0; k++) {
      const id = hashIds[k]!;
      if (left >= this.blockSize) {
        text += this.block(id);
        left -= this.blockSize;
      } else {
        // The same stream as the whole block, so the cut block is a prefix of it.
        text += this.words(id, left, this.blocks.fork(id), false);
        left = 0;
      }
    }
    if (left > 0) text += this.words(unique, left, this.fill.fork(unique), true);
    return text;
  }
}
