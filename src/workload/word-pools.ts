/**
 * The word pools of the built-in encodings, scanned from their vocabularies at build time
 * (scripts/word-pools.mjs writes word-pools.generated.ts), so that synthetic prompts of exact
 * lengths are built without loading an encoding's tables (tens of megabytes and most of a
 * second: a run whose server reports usage then never loads them). synthetic.test.ts checks
 * that each shipped pool is the one a scan of the encoding gives today.
 *
 * @module
 */

import { WORD_POOL_OF, WORD_POOL_TEXTS } from './word-pools.generated.js';

/** Single-token words of a tokenizer: `capitals` start a text, `spaced` (" word") follow. */
export interface WordPool {
  capitals: readonly string[];
  spaced: readonly string[];
}

const split = new Map<string, WordPool>();

/** The shipped pool of a built-in encoding by name; undefined for any other tokenizer. */
export function shippedPool(name: string): WordPool | undefined {
  const source = Object.hasOwn(WORD_POOL_OF, name) ? WORD_POOL_OF[name] : undefined;
  if (source === undefined) return undefined;
  let pool = split.get(source);
  if (pool === undefined) {
    const texts = WORD_POOL_TEXTS[source]!;
    pool = {
      capitals: texts.capitals.split(' '),
      spaced: texts.spaced.split(' ').map((w) => ` ${w}`),
    };
    split.set(source, pool);
  }
  return pool;
}
