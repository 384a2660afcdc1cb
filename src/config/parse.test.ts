import { describe, expect, test } from 'vitest';
import { GoodputError } from '../errors.js';
import { formatSlo, parseDuration, parseSlo } from './parse.js';

function usageError(fn: () => unknown): GoodputError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GoodputError);
    expect((e as GoodputError).code).toBe('E_USAGE');
    expect((e as GoodputError).hint.length).toBeGreaterThan(10);
    return e as GoodputError;
  }
  throw new Error('expected a usage error');
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('parseDuration', () => {
  test.each([
    ['0', 0],
    ['0.0', 0],
    ['500ms', 500],
    ['60s', 60 * SECOND],
    ['1.5s', 1.5 * SECOND],
    ['.5s', 0.5 * SECOND],
    ['5m', 5 * MINUTE],
    ['2h', 2 * HOUR],
    ['30d', 30 * DAY],
    ['1m30s', MINUTE + 30 * SECOND],
    ['1h 15m', HOUR + 15 * MINUTE],
    ['  10S ', 10 * SECOND],
    ['250MS', 250],
  ])('%j → %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  test.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['5x', "unknown unit 'x'"],
    ['10 minutes', "unknown unit 'minutes'"],
    ['-5s', 'negative'],
    ['abc', "cannot read 'abc'"],
    ['1m30', "without a unit ('30')"],
    ['1500', "'1500' has no unit"],
    ['5s!', "cannot read '!'"],
  ])('%j is a usage error naming %s', (text, part) => {
    const err = usageError(() => parseDuration(text, '--timeout'));
    expect(err.message.startsWith('--timeout:')).toBe(true);
    expect(err.message).toContain(part);
  });
});

describe('a bare number is not a duration', () => {
  test.each([
    ['5', '--duration', 'did you mean 5s?'],
    ['30', '--timeout', 'did you mean 30s?'],
    ['2.5', '--every', 'did you mean 2.5s?'],
    ['500', '--scrape-interval', 'did you mean 500ms or 500s?'],
  ])('%j for %s → %s', (text, flag, hint) => {
    const err = usageError(() => parseDuration(text, flag));
    expect(err.message).toBe(`${flag}: '${text}' has no unit`);
    expect(err.hint.startsWith(hint)).toBe(true);
  });
});

describe('parseSlo', () => {
  test.each([
    ['ttft=500,tpot=100,e2el=5000', { ttftMs: 500, tpotMs: 100, e2elMs: 5000 }],
    ['ttft=500', { ttftMs: 500 }],
    ['tpot=50ms', { tpotMs: 50 }],
    ['e2el=5s,ttft=0.25s', { e2elMs: 5000, ttftMs: 250 }],
    [' TTFT = 300 , tpot=12.5 ', { ttftMs: 300, tpotMs: 12.5 }],
    ['ttft_ms=400,e2el_ms=2000', { ttftMs: 400, e2elMs: 2000 }],
    ['ttft=500,', { ttftMs: 500 }],
    ['ttft=500,user_tps=20', { ttftMs: 500, userTps: 20 }],
    ['user_tps=12.5tok/s', { userTps: 12.5 }],
  ])('%j → %o', (text, slo) => expect(parseSlo(text)).toEqual(slo));

  test.each([
    ['', 'empty'],
    ['ttft', "'ttft' is not NAME=VALUE"],
    ['=500', "'=500' is not NAME=VALUE"],
    ['tfft=500', "unknown objective 'tfft' in 'tfft=500' (did you mean 'ttft'?)"],
    ['itl=20', "unknown objective 'itl'"],
    ['ttft=fast', "bad value 'fast' for ttft"],
    ['ttft=0', "bad value '0' for ttft"],
    ['ttft=-5', "bad value '-5'"],
    ['tpot=5m', "bad value '5m'"],
    ['ttft=500,ttft=600', "'ttft' is given twice"],
    ['user_tps=0', "bad value '0' for user_tps"],
    ['user_tps=20ms', "bad value '20ms' for user_tps"],
    ['user_tsp=20', "(did you mean 'user_tps'?)"],
  ])('%j is a usage error naming %s', (text, part) => {
    const err = usageError(() => parseSlo(text));
    expect(err.message).toContain(part);
  });

  test('formatSlo is the inverse of parseSlo', () => {
    for (const text of [
      'ttft=500,tpot=100,e2el=5000',
      'tpot=40',
      'ttft=1.5,e2el=900',
      'tpot=40,user_tps=25',
    ]) {
      expect(formatSlo(parseSlo(text))).toBe(text);
    }
    expect(formatSlo({})).toBe('');
  });
});
