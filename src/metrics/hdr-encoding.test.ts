import { decodeFromCompressedBase64, encodeIntoCompressedBase64, Int32Histogram } from 'hdr-histogram-js';
import { describe, expect, test } from 'vitest';
import { decodeHistogram, encodeHistogram, Int32Histogram as OwnInt32Histogram } from './hdr-encoding.js';

/** A histogram as the library builds it, with `values` µs recorded (autoResize, as LatencyHistogram's). */
function libraryHistogram(values: readonly number[]) {
  const h = new Int32Histogram(1, 2, 4);
  h.autoResize = true;
  for (const v of values) h.recordValue(v);
  return h;
}

let seed = 12345;
/** A whole number in [0, n) from a small fixed LCG (the test's own, seeded). */
const next = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};
const cases: [string, number[]][] = [
  ['empty', []],
  ['one value', [1234]],
  ['small values, zero runs', [1, 2, 3, 50, 50, 51, 900]],
  ['spread to seconds', Array.from({ length: 5000 }, () => 1 + next(30_000_000))],
  ['counts past 2^14 in one bucket', Array.from({ length: 40_000 }, () => 777)],
  ['a day and a microsecond', [1, 86_400_000_000]],
];

describe('encodeHistogram / decodeHistogram (V2 compressed, without the library entry)', () => {
  test.each(cases)('%s: byte for byte the library encoding', (_name, values) => {
    const h = libraryHistogram(values);
    expect(encodeHistogram(h)).toBe(encodeIntoCompressedBase64(h));
  });

  test.each(cases)('%s: decodes what the library encoded to the same counts', (_name, values) => {
    const encoded = encodeIntoCompressedBase64(libraryHistogram(values));
    const ours = decodeHistogram(encoded);
    const theirs = decodeFromCompressedBase64(encoded, 32, false);
    expect(ours.totalCount).toBe(theirs.totalCount);
    expect(ours.maxValue).toBe(theirs.maxValue);
    expect(ours.minNonZeroValue).toBe(theirs.minNonZeroValue);
    for (const p of [1, 50, 90, 99, 99.9, 100])
      expect(ours.getValueAtPercentile(p)).toBe(theirs.getValueAtPercentile(p));
    expect(encodeHistogram(ours)).toBe(encoded);
  });

  test('the class is the library Int32 histogram', () => {
    expect(new OwnInt32Histogram(1, 2, 4).numberOfSignificantValueDigits).toBe(4);
  });

  test('other encodings are refused', () => {
    expect(() => decodeHistogram(Buffer.from('not a histogram').toString('base64'))).toThrow(/only V2/);
  });
});
