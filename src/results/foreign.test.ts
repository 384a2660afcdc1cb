import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { checkForeignFile, parseForeignText, parseJsonLines } from './foreign.js';

describe('parseForeignText', () => {
  it.each([
    ['JSON', '{"a": 1}', { a: 1 }],
    [
      "Python's Infinity and NaN, as strings",
      '{"r": Infinity, "n": NaN, "m": -Infinity}',
      { r: 'Infinity', n: 'NaN', m: '-Infinity' },
    ],
    [
      'Infinity inside a string stays as it is',
      '{"s": "Infinity \\"NaN\\"", "r": Infinity}',
      { s: 'Infinity "NaN"', r: 'Infinity' },
    ],
    ['JSON Lines', '{"a": 1}\n\n{"a": 2}\n', [{ a: 1 }, { a: 2 }]],
    ['JSON Lines with a torn last line', '{"a": 1}\n{"a": 2}\n{"a": ', [{ a: 1 }, { a: 2 }]],
  ])('%s', (_, text, expected) => {
    expect(parseForeignText(text, 'f.json')).toEqual(expected);
  });

  it('is undefined for text that is neither (the caller names the JSON error)', () => {
    expect(parseForeignText('{"a": ', 'f.json')).toBeUndefined();
    expect(parseForeignText('not json', 'f.json')).toBeUndefined();
  });

  it('reads YAML only from a .yaml file, and refuses a broken one by name', () => {
    expect(parseForeignText('version: "0.2"\nrun: {uid: x}\n', 'r.yaml')).toEqual({
      version: '0.2',
      run: { uid: 'x' },
    });
    expect(parseForeignText('version: "0.2"\n', 'r.json')).toBeUndefined();
    expect(() => parseForeignText('a: [1, 2\nb: }', 'r.yml')).toThrow(/r\.yml is not YAML goodput can read/);
  });

  it('names a damaged line in the middle of JSON Lines', () => {
    let error: unknown;
    try {
      parseJsonLines('{"a": 1}\n{"a": \n{"a": 3}\n', 'out.jsonl');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GoodputError);
    expect((error as GoodputError).message).toBe(
      'out.jsonl line 2 is not a JSON object (a damaged JSON Lines file)',
    );
  });
});

describe('checkForeignFile', () => {
  it.each([
    [
      'llm-d',
      { version: '0.3', run: { uid: 'x' }, results: {} },
      /field version string "0\.3".*not a version/,
    ],
    ['guidellm', { metadata: { version: 3 }, benchmarks: [] }, /field metadata\.version number 3/],
    ['aiperf', { schema_version: '2.0' }, /field schema_version string "2\.0"/],
    [
      'inference-perf',
      { successes: { count: 'many' }, failures: { count: 0 } },
      /field successes\.count: expected number, found string "many"/,
    ],
  ] as const)('%s: refused naming the field', (tool, value, message) => {
    expect(() => checkForeignFile(tool, value, 'f.json')).toThrow(message);
  });

  it.each([
    ['llm-d', { version: '0.2.1', run: { uid: 'x' }, results: {} }],
    ['guidellm', { metadata: { version: 2 }, benchmarks: [] }],
    ['guidellm', { benchmarks: [] }],
    ['aiperf', { schema_version: '1.5', time_to_first_token: { unit: 'ms', avg: 3 } }],
    ['aiperf', {}],
  ] as const)('%s: %j read', (tool, value) => {
    expect(() => checkForeignFile(tool, value, 'f.json')).not.toThrow();
  });
});
