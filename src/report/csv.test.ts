import { describe, expect, it } from 'vitest';
import { csvObjects, parseCsv } from '../../test/helpers/csv.js';
import { csvField, csvLine } from './csv.js';

describe('csvField', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['', ''],
    [3.5, '3.5'],
    [0, '0'],
    [Number.NaN, ''],
    [Number.POSITIVE_INFINITY, ''],
    [undefined, ''],
    [null, ''],
    [true, 'true'],
  ] as const)('%j → %j', (value, text) => {
    expect(csvField(value)).toBe(text);
  });
});

describe('csvLine', () => {
  it('round-trips awkward text through a strict RFC 4180 reader', () => {
    const awkward = ['a,"b"\r\nc', '"', ',', '\n\n', 'x y', ''];
    const text =
      csvLine(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']) + csvLine(awkward) + csvLine(awkward.slice().reverse());
    expect(text.endsWith('\r\n')).toBe(true);
    expect(parseCsv(text)).toEqual([
      ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'],
      awkward,
      awkward.slice().reverse(),
    ]);
    expect(csvObjects(text)[0]).toMatchObject({ h1: 'a,"b"\r\nc', h4: '\n\n' });
  });
});
