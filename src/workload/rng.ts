/**
 * A small, fast, seeded pseudo-random number generator for every random choice of a run.
 *
 * Algorithm: sfc32 (Chris Doty-Humphrey's "small fast counting" generator, 128-bit state,
 * passes PractRand and BigCrush, period ≥ 2^32), seeded with cyrb128, a 128-bit string hash.
 * A generator is keyed by a string: `createRng(42)` is keyed "42", and `fork('arrivals')`
 * returns a generator keyed "42/arrivals". A fork depends only on its key, never on how
 * many numbers the parent has drawn, so independent streams (arrivals, lengths, cancels)
 * do not shift each other when one of them changes.
 *
 * @module
 */

/** A seeded random stream. Same key, same sequence, on every platform. */
export interface Rng {
  /** The key this stream was seeded from, e.g. "42/arrivals". */
  readonly key: string;
  /** Uniform in [0, 1) with 32 bits of resolution. */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Standard normal (mean 0, variance 1), Box–Muller. */
  normal(): number;
  /** Gamma with the given shape k > 0 and scale θ > 0 (mean kθ, variance kθ²), Marsaglia–Tsang. */
  gamma(shape: number, scale: number): number;
  /** An independent stream keyed `${key}/${label}`; does not consume this stream. */
  fork(label: string | number): Rng;
  /** A copy that continues from the current position; the copy and this stream then advance separately. */
  clone(): Rng;
}

/** cyrb128: hashes a string to four 32-bit words (the sfc32 state). */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

class Sfc32 implements Rng {
  readonly key: string;
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal: number | undefined;

  constructor(key: string, state?: [number, number, number, number]) {
    this.key = key;
    const [a, b, c, d] = state ?? cyrb128(key);
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    if (state === undefined) {
      // Discard the first outputs: they are correlated with the seed hash.
      for (let i = 0; i < 12; i++) this.nextUint32();
    }
  }

  private nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.nextUint32() / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  normal(): number {
    if (this.spareNormal !== undefined) {
      const z = this.spareNormal;
      this.spareNormal = undefined;
      return z;
    }
    // 1 − next() is in (0, 1], so the log is finite.
    const r = Math.sqrt(-2 * Math.log(1 - this.next()));
    const theta = 2 * Math.PI * this.next();
    this.spareNormal = r * Math.sin(theta);
    return r * Math.cos(theta);
  }

  gamma(shape: number, scale: number): number {
    if (!(shape > 0) || !(scale > 0))
      throw new RangeError(`gamma needs shape > 0 and scale > 0, got ${shape}, ${scale}`);
    if (shape < 1) {
      // Boost: Gamma(k) = Gamma(k + 1) · U^(1/k) (Marsaglia–Tsang, section 6).
      const u = 1 - this.next();
      return this.gamma(shape + 1, scale) * u ** (1 / shape);
    }
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = 1 - this.next();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v * scale;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
    }
  }

  fork(label: string | number): Rng {
    return new Sfc32(`${this.key}/${label}`);
  }

  clone(): Rng {
    const copy = new Sfc32(this.key, [this.a, this.b, this.c, this.d]);
    copy.spareNormal = this.spareNormal;
    return copy;
  }
}

/**
 * Creates a seeded generator. Numbers and strings are both accepted; `42` and `'42'` give
 * the same stream.
 *
 * @example
 * const rng = createRng(42);
 * const arrivals = rng.fork('arrivals'); // unaffected by draws from rng or other forks
 * arrivals.gamma(1, 100); // an exponential inter-arrival with mean 100
 */
export function createRng(seed: number | string): Rng {
  return new Sfc32(String(seed));
}
