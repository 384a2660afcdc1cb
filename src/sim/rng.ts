/**
 * Seeded randomness and fast non-cryptographic hashing for the simulator, so that the same
 * seed and the same inputs give the same schedule, the same output lengths and the same
 * injected failures.
 *
 * @module
 */

/** A seeded pseudo-random source: `next()` returns a float in [0, 1). */
export interface SimRng {
  next(): number;
  /** Integer in [0, n). */
  int(n: number): number;
}

/** mulberry32: tiny, fast, good enough for scheduling decisions and failure draws. */
export function createSimRng(seed: number): SimRng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n) };
}

/** FNV-1a (32-bit) of a string, mixed with a seed. */
export function hashString(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * Chained hash of each full block of token ids (vLLM's prefix-caching key: a block's hash
 * covers its own tokens and, through the parent hash, every token before it). Returns one
 * number per full block, 53 bits wide to make collisions negligible.
 */
export function blockHashes(tokenIds: ArrayLike<number>, blockSize: number, salt = 0): number[] {
  const out: number[] = [];
  let h1 = (0x811c9dc5 ^ salt) >>> 0;
  let h2 = (0x9747b28c ^ salt) >>> 0;
  const full = Math.floor(tokenIds.length / blockSize) * blockSize;
  for (let i = 0; i < full; i++) {
    const t = tokenIds[i]!;
    h1 = Math.imul(h1 ^ t, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ (t + 0x9e3779b9), 0x5bd1e995) >>> 0;
    h2 ^= h2 >>> 13;
    if ((i + 1) % blockSize === 0) out.push((h1 & 0x1fffff) * 4294967296 + h2);
  }
  return out;
}
