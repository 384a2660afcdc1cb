import { describe, expect, it } from 'vitest';
import { csvField, csvLine } from './csv.js';

describe('csvField', () => {
  it.each<[string | number | undefined, string]>([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    [3.5, '3.5'],
    [-2, '-2'],
    [Number.NaN, ''],
    [undefined, ''],
    // Formula injection: text a spreadsheet would evaluate opens as text.
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['+cmd', "'+cmd"],
    ["-2+3+cmd|' /C calc'!A0", `'-2+3+cmd|' /C calc'!A0`],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\t=1+1', "'\t=1+1"],
    ['\r=1+1', `"'\r=1+1"`],
    // A number written as text stays a number.
    ['-3.25', '-3.25'],
    ['+1e-3', '+1e-3'],
  ])('%j → %s', (value, out) => {
    expect(csvField(value)).toBe(out);
  });

  it('every formula-leading character of a server-chosen model id is neutralised in a line', () => {
    const line = csvLine(['=1+1', '+1+1', '-1+1', '@x', 'ok']);
    const cells = line.trimEnd().split(',');
    for (const cell of cells.slice(0, 4)) expect(cell.startsWith("'")).toBe(true);
    expect(cells[4]).toBe('ok');
  });
});
