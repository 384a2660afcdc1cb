import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { MAX_TOKENS } from '../util/index.js';
import { drawLength, type LengthDist, lengthDistSpec, meanLength, parseLengthDist } from './length-dist.js';
import { loadLengthDist, parseHistogramCsv } from './length-dist-file.js';
import { createRng } from './rng.js';

const FLAG = '--prompt-tokens-dist';

function draws(dist: LengthDist, n: number, seed = 7): number[] {
  const rng = createRng(seed).fork('length');
  return Array.from({ length: n }, (_, i) => drawLength(dist, rng.fork(i)));
}

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 erf, |error| < 1.5e-7). */
function phi(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Kolmogorov–Smirnov distance of integer draws against a continuous CDF (each draw rounds x ± 0.5). */
function ksDistance(values: number[], cdf: (x: number) => number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  let d = 0;
  for (let i = 0; i < n; i++) {
    const x = sorted[i]!;
    if (i + 1 < n && sorted[i + 1] === x) continue;
    // Empirical CDF just below and at x against the model's mass below x − 0.5 and up to x + 0.5.
    const below = sorted.indexOf(x) / n;
    const at = (i + 1) / n;
    d = Math.max(d, Math.abs(at - cdf(x + 0.5)), Math.abs(below - cdf(x - 0.5)));
  }
  return d;
}

/** Pearson's χ² of observed counts against expected ones. */
function chiSquare(observed: number[], expected: number[]): number {
  return observed.reduce((sum, o, k) => sum + (o - expected[k]!) ** 2 / expected[k]!, 0);
}

describe('parseLengthDist', () => {
  it.each([
    ['512', { kind: 'fixed', value: 512, text: 'fixed:512' }],
    ['fixed:64', { kind: 'fixed', value: 64, text: 'fixed:64' }],
    ['uniform:128-1024', { kind: 'uniform', min: 128, max: 1024, text: 'uniform:128-1024' }],
    ['uniform:min=10,max=20', { kind: 'uniform', min: 10, max: 20, text: 'uniform:10-20' }],
    ['normal:mean=512,std=100', { kind: 'normal', mean: 512, std: 100, min: 1, max: MAX_TOKENS }],
    [
      'normal:mean=512,std=100,min=64,max=900',
      { text: 'normal:mean=512,std=100,min=64,max=900', min: 64, max: 900 },
    ],
    ['lognormal:median=300,sigma=0.5', { kind: 'lognormal', mu: Math.log(300), sigma: 0.5 }],
    ['lognormal:mean=512,sigma=0.6', { kind: 'lognormal', text: 'lognormal:mean=512,sigma=0.6' }],
    ['empirical:/data/h.csv', { kind: 'empirical', path: '/data/h.csv', text: 'empirical:/data/h.csv' }],
  ])('%s', (text, expected) => {
    expect(parseLengthDist(text, FLAG)).toMatchObject(expected);
  });

  it('gives the same distribution when its recorded text is parsed again', () => {
    for (const text of [
      'uniform:min=10,max=20',
      'lognormal:mean=512,sigma=0.6,max=4096',
      'normal:mean=9,std=2',
    ]) {
      const once = parseLengthDist(text, FLAG);
      expect(parseLengthDist(once.text, FLAG)).toEqual(once);
    }
  });

  it.each([
    ['gamma:mean=3', "unknown distribution 'gamma'"],
    ['uniform:20-10', 'max (10) is below min (20)'],
    ['uniform:min=5', 'uniform needs both ends'],
    ['normal:mean=512', 'normal needs std=S'],
    ['normal:mean=512,std=ten', "std must be a number, got 'ten'"],
    ['normal:mean=512,sd=10', "unknown parameter 'sd'"],
    ['lognormal:mean=512,median=400,sigma=1', 'one of mean=M or median=M'],
    ['lognormal:mean=512', 'lognormal needs sigma=S'],
    ['fixed:0', 'the length must be a whole number from 1'],
    ['fixed:1.5', 'the length must be a whole number'],
    ['empirical:', 'empirical needs a file'],
  ])('%s is a usage error naming the problem', (text, problem) => {
    const e = (() => {
      try {
        parseLengthDist(text, FLAG);
      } catch (err) {
        return err as GoodputError;
      }
      throw new Error('no error');
    })();
    expect(e).toBeInstanceOf(GoodputError);
    expect(e.code).toBe('E_USAGE');
    expect(e.message).toContain(FLAG);
    expect(e.message).toContain(problem);
    expect(e.hint).toContain('lognormal:mean=512,sigma=0.6');
  });
});

describe('drawLength: the draws follow the distribution asked for (goodness of fit, 4,000 draws)', () => {
  const N = 4000;
  // KS critical value at α = 0.001: 1.95/√n.
  const KS_CRITICAL = 1.95 / Math.sqrt(N);

  it('normal: Kolmogorov–Smirnov distance under the critical value, and a wrong mean is rejected', () => {
    const values = draws(parseLengthDist('normal:mean=512,std=100', FLAG), N);
    expect(ksDistance(values, (x) => phi((x - 512) / 100))).toBeLessThan(KS_CRITICAL);
    expect(ksDistance(values, (x) => phi((x - 530) / 100))).toBeGreaterThan(KS_CRITICAL);
  });

  it('lognormal by its mean: KS under the critical value; the sample mean is the asked mean', () => {
    const dist = parseLengthDist('lognormal:mean=512,sigma=0.6', FLAG);
    const values = draws(dist, N);
    const mu = Math.log(512) - 0.18;
    expect(ksDistance(values, (x) => (x <= 0 ? 0 : phi((Math.log(x) - mu) / 0.6)))).toBeLessThan(KS_CRITICAL);
    const mean = values.reduce((a, b) => a + b, 0) / N;
    expect(Math.abs(mean - 512) / 512).toBeLessThan(0.04);
    expect(meanLength(dist)).toBeCloseTo(512, 6);
    // A lognormal is not a normal of the same mean and spread.
    const sd = 512 * Math.sqrt(Math.exp(0.36) - 1);
    expect(ksDistance(values, (x) => phi((x - 512) / sd))).toBeGreaterThan(KS_CRITICAL);
  });

  it('uniform: χ² over ten bins under the 0.001 critical value (27.9 for 9 degrees of freedom)', () => {
    const values = draws(parseLengthDist('uniform:100-199', FLAG), N);
    expect(Math.min(...values)).toBe(100);
    expect(Math.max(...values)).toBe(199);
    const bins = new Array(10).fill(0);
    for (const v of values) bins[Math.floor((v - 100) / 10)]++;
    expect(chiSquare(bins, new Array(10).fill(N / 10))).toBeLessThan(27.9);
  });

  it('empirical: each length as often as the histogram has it (χ², 3 degrees of freedom: 16.3)', () => {
    const h = parseHistogramCsv('tokens,count\n50,1\n200,2\n800,3\n3000,4\n', 'h.csv');
    const dist: LengthDist = { ...parseLengthDist('empirical:h.csv', FLAG), histogram: h };
    const values = draws(dist, N);
    const observed = [50, 200, 800, 3000].map((n) => values.filter((v) => v === n).length);
    expect(observed.reduce((a, b) => a + b, 0)).toBe(N);
    expect(
      chiSquare(
        observed,
        [0.1, 0.2, 0.3, 0.4].map((p) => p * N),
      ),
    ).toBeLessThan(16.3);
    expect(meanLength(dist)).toBe((50 + 400 + 2400 + 12000) / 10);
  });

  it('clamps to min and max, and is the same for the same seed and different for another', () => {
    const dist = parseLengthDist('normal:mean=100,std=80,min=50,max=150', FLAG);
    const values = draws(dist, 500);
    expect(Math.min(...values)).toBe(50);
    expect(Math.max(...values)).toBe(150);
    expect(draws(dist, 500)).toEqual(values);
    expect(draws(dist, 500, 8)).not.toEqual(values);
  });
});

describe('empirical histograms from files', () => {
  it('a histogram CSV: lengths, counts, sha256 and samples recorded; a bad line names file, line and field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'goodput-dist-'));
    const path = join(dir, 'hist.csv');
    await writeFile(path, 'tokens,count\n100,3\n300,1\n100,1\n');
    const dist = await loadLengthDist(`empirical:${path}`, FLAG, 'input');
    expect(Array.from(dist.histogram!.lengths)).toEqual([100, 300]);
    expect(Array.from(dist.histogram!.cumulative)).toEqual([4, 5]);
    expect(lengthDistSpec(dist)).toMatchObject({
      kind: 'empirical',
      mean: 140,
      source: { path, samples: 5, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    await writeFile(path, 'tokens,count\n100,3\n300,x\n');
    await expect(loadLengthDist(`empirical:${path}`, FLAG, 'input')).rejects.toMatchObject({
      code: 'E_DATASET',
      message: expect.stringMatching(/hist\.csv:3: field "count": expected a whole number ≥ 0, got 'x'/),
    });
  });

  it('a trace: its prompt lengths for prompts, its output lengths for outputs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'goodput-dist-'));
    const path = join(dir, 'trace.jsonl');
    const lines = [
      { timestamp: 0, input_length: 700, output_length: 20, hash_ids: [1] },
      { timestamp: 5, input_length: 700, output_length: 40, hash_ids: [2] },
      { timestamp: 9, input_length: 90, output_length: 40, hash_ids: [3] },
    ];
    await writeFile(path, lines.map((l) => JSON.stringify(l)).join('\n'));
    const input = await loadLengthDist(`empirical:${path}`, FLAG, 'input');
    expect(Array.from(input.histogram!.lengths)).toEqual([90, 700]);
    expect(lengthDistSpec(input).source).toMatchObject({ column: 'input', samples: 3 });
    const output = await loadLengthDist(`empirical:${path}`, '--max-tokens-dist', 'output');
    expect(Array.from(output.histogram!.cumulative)).toEqual([1, 3]);
    await expect(loadLengthDist(`empirical:${join(dir, 'none.csv')}`, FLAG, 'input')).rejects.toMatchObject({
      code: 'E_DATASET',
      message: expect.stringContaining('cannot read'),
    });
  });
});
