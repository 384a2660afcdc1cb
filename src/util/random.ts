/**
 * The one small seeded generator for everything that needs reproducible chance outside the
 * workload's RNG streams: bootstrap resampling, an experiment's random block order, a search's
 * candidate points.
 *
 * @module
 */

/** A uniform [0, 1) generator (mulberry32): small, fast and reproducible from a 32-bit seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
