/**
 * Length distributions of prompts and outputs, in tokens: `--prompt-tokens-dist` and
 * `--max-tokens-dist`. One grammar, `KIND:key=value,…`, parsed once (pure):
 *
 * | text | draws |
 * |---|---|
 * | `512` or `fixed:512` | always 512 |
 * | `uniform:128-1024` or `uniform:min=128,max=1024` | a whole number in [128, 1024], each equally likely |
 * | `normal:mean=512,std=100` | mean + std·z, rounded |
 * | `lognormal:mean=512,sigma=0.6` (or `median=`) | exp(μ + σ·z), rounded; μ from the mean (ln mean − σ²/2) or the median (ln median) |
 * | `empirical:FILE` | a length of the file's histogram, each as often as it occurs there (`length-dist-file.ts`) |
 *
 * Every kind takes `min=` and `max=` (default 1 and MAX_TOKENS): a draw outside is clamped to
 * them. Draws come from the rng given (the workload's per-request stream), so a run is seeded.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { LengthDistSpec } from '../types.js';
import { MAX_TOKENS } from '../util/index.js';
import type { Rng } from './rng.js';

/** A length histogram: `lengths` ascending, `cumulative[k]` the count of lengths ≤ lengths[k]. */
export interface LengthHistogram {
  lengths: Uint32Array;
  cumulative: Float64Array;
  /** Where it was read: recorded in the run's meta. */
  source: NonNullable<LengthDistSpec['source']>;
}

/** A parsed distribution, ready to draw from. */
export interface LengthDist {
  kind: LengthDistSpec['kind'];
  /** The text as it will be recorded (canonical: parsing it again gives the same distribution). */
  text: string;
  min: number;
  max: number;
  /** fixed: value; normal: mean, std; lognormal: mu, sigma (of the log). */
  value?: number;
  mean?: number;
  std?: number;
  mu?: number;
  sigma?: number;
  /** empirical only. */
  histogram?: LengthHistogram;
}

export const LENGTH_DIST_KINDS: readonly LengthDistSpec['kind'][] = [
  'fixed',
  'uniform',
  'normal',
  'lognormal',
  'empirical',
];

const GRAMMAR =
  'N, fixed:N, uniform:MIN-MAX, normal:mean=M,std=S, lognormal:mean=M,sigma=S (or median=M), empirical:FILE; any of them with ,min=A,max=B';

function usage(flag: string, message: string): GoodputError {
  return new GoodputError(
    'E_USAGE',
    `${flag}: ${message}`,
    `write e.g. ${flag} lognormal:mean=512,sigma=0.6 (${GRAMMAR})`,
  );
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** `key=value,…` into numbers; an unknown key or a value that is not a number names itself. */
function keyValues(text: string, allowed: readonly string[], flag: string): Map<string, number> {
  const out = new Map<string, number>();
  if (text.trim() === '') return out;
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    const key = (eq < 0 ? part : part.slice(0, eq)).trim();
    const raw = eq < 0 ? '' : part.slice(eq + 1).trim();
    if (!allowed.includes(key))
      throw usage(flag, `unknown parameter '${key}' (this kind takes ${allowed.join(', ')})`);
    if (!NUMBER.test(raw)) throw usage(flag, `${key} must be a number, got '${raw}'`);
    if (out.has(key)) throw usage(flag, `${key} is given twice`);
    out.set(key, Number(raw));
  }
  return out;
}

function wholeInRange(flag: string, name: string, n: number, low: number): number {
  if (!Number.isInteger(n) || n < low || n > MAX_TOKENS)
    throw usage(flag, `${name} must be a whole number from ${low} to ${MAX_TOKENS}, got ${n}`);
  return n;
}

function bounds(kv: Map<string, number>, flag: string): { min: number; max: number } {
  const min = wholeInRange(flag, 'min', kv.get('min') ?? 1, 1);
  const max = wholeInRange(flag, 'max', kv.get('max') ?? MAX_TOKENS, 1);
  if (max < min) throw usage(flag, `max (${max}) is below min (${min})`);
  return { min, max };
}

const boundsText = (d: { min: number; max: number }) =>
  `${d.min !== 1 ? `,min=${d.min}` : ''}${d.max !== MAX_TOKENS ? `,max=${d.max}` : ''}`;

/**
 * Parses a distribution's text (see the module comment). `empirical:FILE` gives a distribution
 * without its histogram: `loadLengthDist` (length-dist-file.ts) reads the file.
 *
 * @example
 * parseLengthDist('lognormal:mean=512,sigma=0.6', '--prompt-tokens-dist');
 * // { kind: 'lognormal', mu: 6.058…, sigma: 0.6, min: 1, max: 2000000, text: 'lognormal:mean=512,sigma=0.6' }
 */
export function parseLengthDist(text: string, flag: string): LengthDist & { path?: string } {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  const kind = (colon < 0 ? (NUMBER.test(trimmed) ? 'fixed' : trimmed) : trimmed.slice(0, colon)).trim();
  const rest = colon < 0 ? (NUMBER.test(trimmed) ? trimmed : '') : trimmed.slice(colon + 1);
  switch (kind) {
    case 'fixed': {
      const kv = NUMBER.test(rest.trim())
        ? new Map([['value', Number(rest.trim())]])
        : keyValues(rest, ['value'], flag);
      if (!kv.has('value')) throw usage(flag, 'fixed needs a length: fixed:N');
      const value = wholeInRange(flag, 'the length', kv.get('value')!, 1);
      return { kind, text: `fixed:${value}`, value, min: value, max: value };
    }
    case 'uniform': {
      const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(rest);
      const kv = range
        ? new Map([
            ['min', Number(range[1])],
            ['max', Number(range[2])],
          ])
        : keyValues(rest, ['min', 'max'], flag);
      if (!kv.has('min') || !kv.has('max')) throw usage(flag, 'uniform needs both ends: uniform:MIN-MAX');
      const b = bounds(kv, flag);
      return { kind, text: `uniform:${b.min}-${b.max}`, ...b };
    }
    case 'normal': {
      const kv = keyValues(rest, ['mean', 'std', 'min', 'max'], flag);
      const mean = kv.get('mean');
      const std = kv.get('std');
      if (mean === undefined || !(mean > 0)) throw usage(flag, 'normal needs mean=M > 0');
      if (std === undefined || !(std >= 0)) throw usage(flag, 'normal needs std=S ≥ 0');
      const b = bounds(kv, flag);
      return { kind, text: `normal:mean=${mean},std=${std}${boundsText(b)}`, mean, std, ...b };
    }
    case 'lognormal': {
      const kv = keyValues(rest, ['mean', 'median', 'sigma', 'min', 'max'], flag);
      const sigma = kv.get('sigma');
      if (sigma === undefined || !(sigma >= 0 && sigma <= 5))
        throw usage(flag, 'lognormal needs sigma=S from 0 to 5 (the standard deviation of the log)');
      const mean = kv.get('mean');
      const median = kv.get('median');
      if ((mean === undefined) === (median === undefined))
        throw usage(flag, 'lognormal needs one of mean=M or median=M');
      const centre = (mean ?? median)!;
      if (!(centre > 0)) throw usage(flag, `${mean !== undefined ? 'mean' : 'median'} must be > 0`);
      const mu = mean !== undefined ? Math.log(mean) - (sigma * sigma) / 2 : Math.log(median!);
      const b = bounds(kv, flag);
      const given = mean !== undefined ? `mean=${mean}` : `median=${median}`;
      return { kind, text: `lognormal:${given},sigma=${sigma}${boundsText(b)}`, mu, sigma, ...b };
    }
    case 'empirical': {
      const path = rest.trim();
      if (path === '') throw usage(flag, 'empirical needs a file: empirical:FILE');
      return { kind, text: `empirical:${path}`, path, min: 1, max: MAX_TOKENS };
    }
    default:
      throw usage(flag, `unknown distribution '${kind}' (one of ${LENGTH_DIST_KINDS.join(', ')})`);
  }
}

/** A whole number of tokens drawn from `dist` with `rng`. */
export function drawLength(dist: LengthDist, rng: Rng): number {
  let x: number;
  switch (dist.kind) {
    case 'fixed':
      return dist.value!;
    case 'uniform':
      return dist.min + rng.int(dist.max - dist.min + 1);
    case 'normal':
      x = dist.mean! + dist.std! * rng.normal();
      break;
    case 'lognormal':
      x = Math.exp(dist.mu! + dist.sigma! * rng.normal());
      break;
    case 'empirical': {
      const h = dist.histogram!;
      const total = h.cumulative[h.cumulative.length - 1]!;
      const u = rng.next() * total;
      // The first k whose cumulative count exceeds u.
      let lo = 0;
      let hi = h.cumulative.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (h.cumulative[mid]! > u) hi = mid;
        else lo = mid + 1;
      }
      return h.lengths[lo]!;
    }
  }
  return Math.min(dist.max, Math.max(dist.min, Math.round(x)));
}

/** The distribution's mean before clamping (the histogram's for empirical), in tokens. */
export function meanLength(dist: LengthDist): number {
  switch (dist.kind) {
    case 'fixed':
      return dist.value!;
    case 'uniform':
      return (dist.min + dist.max) / 2;
    case 'normal':
      return dist.mean!;
    case 'lognormal':
      return Math.exp(dist.mu! + (dist.sigma! * dist.sigma!) / 2);
    case 'empirical': {
      const h = dist.histogram!;
      let sum = 0;
      let before = 0;
      for (let k = 0; k < h.lengths.length; k++) {
        sum += h.lengths[k]! * (h.cumulative[k]! - before);
        before = h.cumulative[k]!;
      }
      return sum / before;
    }
  }
}

/** What a run records of a distribution (summary meta): its text, its mean, and a file's identity. */
export function lengthDistSpec(dist: LengthDist): LengthDistSpec {
  const spec: LengthDistSpec = {
    kind: dist.kind,
    text: dist.text,
    mean: Math.round(meanLength(dist) * 100) / 100,
  };
  if (dist.histogram) spec.source = { ...dist.histogram.source };
  return spec;
}
