import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { SCHEMA_VERSION } from '../types.js';
import { RunSummarySchema } from './schema.js';
import {
  describeValue,
  fieldPath,
  parseJsonFile,
  recogniseForeign,
  refuseNewerSchema,
  validateValue,
} from './validate.js';

function errorOf(fn: () => unknown): GoodputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GoodputError) return e;
    throw e;
  }
  throw new Error('expected a GoodputError');
}

describe('describeValue and fieldPath', () => {
  it.each([
    [undefined, 'nothing (the field is missing)'],
    [null, 'null'],
    ['12', 'string "12"'],
    [12, 'number 12'],
    [true, 'boolean true'],
    [[1, 2, 3], 'an array of 3'],
    [{}, 'an object'],
    ['x'.repeat(50), `string "${'x'.repeat(40)}…"`],
  ])('%j → %s', (value, text) => expect(describeValue(value)).toBe(text));

  it('spells paths with dots and indexes', () => {
    expect(fieldPath(['counts', 'completed'])).toBe('counts.completed');
    expect(fieldPath(['errors', 2, 'code'])).toBe('errors[2].code');
    expect(fieldPath([])).toBe('(the whole value)');
  });
});

describe('parseJsonFile', () => {
  const full = JSON.stringify({ a: 1, b: [1, 2], c: 'text' });
  it('parses whole JSON', () =>
    expect(parseJsonFile(full, 'f.json', 'rerun')).toEqual({ a: 1, b: [1, 2], c: 'text' }));
  it.each([5, 8, 12, 20, full.length - 1])('calls a file cut after %i characters truncated', (n) => {
    const e = errorOf(() => parseJsonFile(full.slice(0, n), 'f.json', 'rerun'));
    expect(e.code).toBe('E_RESULT');
    expect(e.message).toMatch(/^f\.json is truncated/);
  });
  it('calls damage in the middle not valid JSON, and an empty file empty', () => {
    expect(errorOf(() => parseJsonFile('{"a":1}x', 'f.json', 'rerun')).message).toMatch(/is not valid JSON/);
    expect(errorOf(() => parseJsonFile(' \n', 'f.json', 'rerun')).message).toBe('f.json is empty');
  });
});

describe('recogniseForeign', () => {
  it.each([
    [{ backend: 'vllm', model_id: 'm', mean_ttft_ms: 1, request_throughput: 2 }, /vLLM --save-result/],
    [{ benchmarks: [] }, /guidellm/],
    [{ time_to_first_token: { avg: 1, unit: 'ms' } }, /GenAI-Perf/],
    [{ request_throughput: { avg: 1, unit: 'requests/sec' } }, /GenAI-Perf/],
    [{ kind: 'goodput.sweep' }, /goodput sweep file/],
    [{ kind: 'goodput.compare' }, /goodput compare file/],
  ])('%j', (value, expected) => expect(recogniseForeign(value)).toMatch(expected));
  it.each([[{}], [[]], [null], [3], [{ kind: 'goodput.run' }], [{ something: 1 }]])(
    'does not guess for %j',
    (value) => expect(recogniseForeign(value)).toBeUndefined(),
  );
});

describe('validateValue', () => {
  it('names where, the field path, what was expected and what was found, at most three', () => {
    const e = errorOf(() =>
      validateValue(RunSummarySchema, { kind: 'goodput.run', schemaVersion: 1 }, 'x.json', 'a run'),
    );
    expect(e.message).toMatch(/^x\.json is not a run: field /);
    expect(e.message).toMatch(/expected number, found nothing \(the field is missing\)/);
    expect(e.message).toMatch(/\(and \d+ more\)$/);
    expect(e.exitCode).toBe(2);
  });
  it('names a wrong literal with what is allowed', () => {
    const e = errorOf(() =>
      validateValue(RunSummarySchema, { kind: 7, schemaVersion: 1 }, 'x.json', 'a run'),
    );
    expect(e.message).toContain('field kind: expected one of "goodput.run", found number 7');
  });
});

describe('refuseNewerSchema', () => {
  const KINDS = ['goodput.run', 'goodput.imported'];
  it.each([
    ['a run of this version', { kind: 'goodput.run', schemaVersion: SCHEMA_VERSION }],
    ['an older run', { kind: 'goodput.run', schemaVersion: SCHEMA_VERSION - 1 }],
    ['a newer file of another kind', { kind: 'goodput.sweep', schemaVersion: SCHEMA_VERSION + 1 }],
    ['a schemaVersion that is not a number', { kind: 'goodput.run', schemaVersion: '99' }],
    ['no kind', { schemaVersion: SCHEMA_VERSION + 1 }],
    ['null', null],
    ['a number', 3],
  ])('lets %s through to validation', (_, value) => {
    expect(() => refuseNewerSchema(value, 'r/summary.json', KINDS)).not.toThrow();
  });

  it.each(KINDS)('refuses a newer %s, naming the file and both versions, hint: upgrade', (kind) => {
    const e = errorOf(() =>
      refuseNewerSchema({ kind, schemaVersion: SCHEMA_VERSION + 1 }, 'r/summary.json', KINDS),
    );
    expect(e.code).toBe('E_RESULT');
    expect(e.message).toBe(
      `r/summary.json has schemaVersion ${SCHEMA_VERSION + 1}, newer than this goodput understands (${SCHEMA_VERSION})`,
    );
    expect(e.hint).toBe('upgrade goodput');
  });
});
