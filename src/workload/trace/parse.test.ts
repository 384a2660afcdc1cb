import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GoodputError } from '../../errors.js';
import { loadTrace, parseTrace } from './load.js';
import { parseDateTimeMs, splitCsvLine } from './parse.js';
import { entryHashIds } from './trace.js';

const mooncake = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n');

function errorOf(fn: () => unknown): GoodputError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GoodputError);
    return e as GoodputError;
  }
  throw new Error('expected an error');
}

describe('parseTrace: Mooncake JSONL', () => {
  it('reads times (relative to the first), lengths and hash ids', () => {
    const t = parseTrace(
      mooncake([
        { timestamp: 1000, input_length: 700, output_length: 5, hash_ids: [0, 1] },
        { timestamp: 1250, input_length: 30, output_length: 0, hash_ids: [0] },
        { timestamp: 1250, input_length: 2, output_length: 9 },
      ]),
      'm.jsonl',
    );
    expect(t.format).toBe('mooncake');
    expect(t.count).toBe(3);
    expect([...t.offsetMs]).toEqual([0, 250, 250]);
    expect([...t.input]).toEqual([700, 30, 2]);
    expect([...t.output]).toEqual([5, 0, 9]);
    expect([...entryHashIds(t, 0)]).toEqual([0, 1]);
    expect([...entryHashIds(t, 1)]).toEqual([0]);
    expect([...entryHashIds(t, 2)]).toEqual([]);
    expect(t.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('places a session turn given by its delay after the turn before it, in time order', () => {
    const t = parseTrace(
      mooncake([
        { timestamp: 0, session_id: 'a', input_length: 10, output_length: 1 },
        { timestamp: 100, session_id: 'b', input_length: 20, output_length: 1 },
        { session_id: 'a', delay: 50, input_length: 30, output_length: 1 },
        { timestamp: 300, input_length: 40, output_length: 1 },
      ]),
      'm.jsonl',
    );
    expect([...t.offsetMs]).toEqual([0, 50, 100, 300]);
    expect([...t.input]).toEqual([10, 30, 20, 40]);
    expect(t.sessions).toBe(2);
    // Each entry's conversation moves with it: a, a, b, none.
    expect([...t.conversation!]).toEqual([1, 1, 2, 0]);
  });

  it.each([
    [
      'a timestamp going back',
      mooncake([
        { timestamp: 10, input_length: 1, output_length: 1 },
        { timestamp: 5, input_length: 1, output_length: 1 },
      ]),
      /m\.jsonl:2: field "timestamp": timestamp 5 goes back in time .*m\.jsonl:1/,
    ],
    [
      'a missing field',
      mooncake([{ timestamp: 1, output_length: 1 }]),
      /m\.jsonl:1: field "input_length": expected a whole number, got missing/,
    ],
    [
      'a negative length',
      mooncake([
        { timestamp: 1, input_length: 3, output_length: 1 },
        { timestamp: 2, input_length: 3, output_length: -4 },
      ]),
      /m\.jsonl:2: field "output_length": expected a whole number ≥ 0, got -4/,
    ],
    [
      'a bad hash id',
      mooncake([{ timestamp: 1, input_length: 3, output_length: 1, hash_ids: [1, 'x'] }]),
      /field "hash_ids\[1\]"/,
    ],
    ['no timestamp', mooncake([{ input_length: 3, output_length: 1 }]), /field "timestamp": missing/],
    [
      'a prompt longer than any context',
      mooncake([{ timestamp: 1, input_length: 1e9, output_length: 1 }]),
      /m\.jsonl:1: field "input_length": 1000000000 is more than 2,000,000/,
    ],
    [
      'a length past 2³²−1 (it wrapped to 1)',
      mooncake([{ timestamp: 1, input_length: 3, output_length: 4294967297 }]),
      /field "output_length": 4294967297 is more than/,
    ],
    [
      'a hash id past 2³²−1',
      mooncake([{ timestamp: 1, input_length: 3, output_length: 1, hash_ids: [4294967296] }]),
      /field "hash_ids\[0\]": 4294967296 is more than 4,294,967,295/,
    ],
    ['not JSON', '{"timestamp": 1,', /m\.jsonl:1: not valid JSON/],
  ])('refuses %s naming the line and the field', (_, text, message) => {
    const err = errorOf(() => parseTrace(text, 'm.jsonl'));
    expect(err.code).toBe('E_DATASET');
    expect(err.message).toMatch(message);
    expect(err.hint).toMatch(/timestamp/);
  });
});

describe('parseTrace: Azure and generic CSV/JSONL', () => {
  it('reads the Azure CSV shape, date-times to the sub-millisecond', () => {
    const text = [
      'TIMESTAMP,ContextTokens,GeneratedTokens',
      '2023-11-16 18:15:46.6805900,4808,10',
      '2023-11-16 18:15:50.9951690,3180,8',
      '2023-11-16 18:16:00.0000000,110,27',
    ].join('\r\n');
    const t = parseTrace(text, 'azure.csv');
    expect(t.format).toBe('azure');
    expect(t.offsetMs[1]).toBeCloseTo(4314.579, 3);
    expect(t.offsetMs[2]).toBeCloseTo(13319.41, 2);
    expect([...t.input]).toEqual([4808, 3180, 110]);
    expect([...t.output]).toEqual([10, 8, 27]);
  });

  it('maps the columns of a generic CSV, numeric times in seconds', () => {
    const text = 'ts,model,"prompt, tokens",gen\n0.5,x,100,7\n1.25,"y",200,8\n';
    const t = parseTrace(text, 'g.csv', {
      columns: { timestamp: 'ts', input: 'prompt, tokens', output: 'gen' },
      timeUnit: 's',
    });
    expect(t.format).toBe('csv');
    expect([...t.offsetMs]).toEqual([0, 750]);
    expect([...t.input]).toEqual([100, 200]);
    expect(t.columns).toEqual({ timestamp: 'ts', input: 'prompt, tokens', output: 'gen' });
    expect(t.timeUnit).toBe('s');
  });

  it('maps the fields of a generic JSONL trace', () => {
    const text = mooncake([
      { t: 5, p: 10, o: 2 },
      { t: 9, p: 11, o: 3 },
    ]);
    const t = parseTrace(text, 'g.jsonl', { columns: { timestamp: 't', input: 'p', output: 'o' } });
    expect(t.format).toBe('jsonl');
    expect([...t.offsetMs]).toEqual([0, 4]);
  });

  it('names a missing column of the header, and a bad cell by its line and column', () => {
    const missing = errorOf(() => parseTrace('TIMESTAMP,ContextTokens\n1,2\n', 'a.csv', { format: 'azure' }));
    expect(missing.message).toMatch(/a\.csv:1: field "GeneratedTokens": no such column/);
    const negative = errorOf(() =>
      parseTrace(
        'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-01-01 00:00:00,5,1\n2023-01-01 00:00:01,-5,1\n',
        'a.csv',
      ),
    );
    expect(negative.message).toMatch(/a\.csv:3: field "ContextTokens": expected a whole number ≥ 1, got -5/);
    const back = errorOf(() =>
      parseTrace(
        'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-01-01 00:00:02,5,1\n2023-01-01 00:00:01,5,1\n',
        'a.csv',
      ),
    );
    expect(back.message).toMatch(/a\.csv:3: field "TIMESTAMP": .* goes back in time/);
  });

  it('splits quoted CSV cells and reads date-times with zones', () => {
    expect(splitCsvLine('a,"b,c","d""e", f ')).toEqual(['a', 'b,c', 'd"e', 'f']);
    expect(parseDateTimeMs('2024-05-01T00:00:00.5Z')).toBe(Date.UTC(2024, 4, 1) + 500);
    expect(parseDateTimeMs('2024-05-01 02:00:00+02:00')).toBe(Date.UTC(2024, 4, 1));
    expect(parseDateTimeMs('yesterday')).toBeUndefined();
  });
});

describe('loadTrace', () => {
  it('streams a file to the same trace as parseTrace, and names the file and line of an error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'goodput-trace-'));
    const rows = Array.from({ length: 5000 }, (_, i) => ({
      timestamp: i * 3,
      input_length: 1 + (i % 900),
      output_length: i % 50,
      hash_ids: [i % 7, i],
    }));
    const text = `${mooncake(rows)}\n`;
    const path = join(dir, 'big.jsonl');
    await writeFile(path, text);
    const loaded = await loadTrace(path);
    const parsed = parseTrace(text, path);
    expect(loaded.count).toBe(5000);
    expect(loaded.sha256).toBe(parsed.sha256);
    expect([...loaded.hashIds]).toEqual([...parsed.hashIds]);
    const bad = join(dir, 'bad.jsonl');
    await writeFile(
      bad,
      `${mooncake(rows.slice(0, 10))}\n{"timestamp": 100, "input_length": -1, "output_length": 1}\n`,
    );
    await expect(loadTrace(bad)).rejects.toThrow(`trace ${bad}:11: field "input_length"`);
    await expect(loadTrace(join(dir, 'none.jsonl'))).rejects.toThrow(/cannot read trace .*ENOENT/);
  });
});
