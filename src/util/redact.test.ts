import { describe, expect, it } from 'vitest';
import { makeRedactor, REDACTED, redactAndCut, redactDeep } from './redact.js';

const KEY = 'test-canary-0123456789abcdefXYZ';

describe('makeRedactor', () => {
  const r = makeRedactor([KEY]);

  it('removes the whole key wherever it appears', () => {
    expect(r(`a ${KEY} b ${KEY}`)).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  it('removes every prefix of 6+ characters, as left by a cut at any offset', () => {
    for (let n = 6; n <= KEY.length; n++) {
      const out = r(`Authorization: Bearer ${KEY.slice(0, n)}`);
      expect(out, `prefix of ${n}`).toBe(`Authorization: Bearer ${REDACTED}`);
    }
  });

  it('removes every suffix of 6+ characters', () => {
    for (let n = 6; n <= KEY.length; n++) {
      expect(r(`${KEY.slice(KEY.length - n)} tail`)).toBe(`${REDACTED} tail`);
    }
  });

  it('leaves text without the key alone, and short coincidences too', () => {
    expect(r('nothing here test-')).toBe('nothing here test-');
  });

  it('cutting after redaction never leaves a part of the key, at every offset', () => {
    const body = `{"echo":{"authorization":"Bearer ${KEY}"}}`;
    for (let max = 1; max <= body.length + 2; max++) {
      const out = redactAndCut(body, max, r);
      for (let n = 6; n <= KEY.length; n++) expect(out.includes(KEY.slice(0, n))).toBe(false);
    }
  });

  it('redacts keys and values inside JSON values', () => {
    const v = redactDeep({ a: [KEY, 1], [KEY]: { b: `x${KEY}` } }, r);
    expect(JSON.stringify(v)).not.toContain(KEY.slice(0, 6));
  });

  // The cases of the two redactors this one replaced (config's redact, client's redactKey).
  it('removes the key raw and trimmed (a key pasted with whitespace)', () => {
    const key = 'key-test-9f8e7d6c5b4a3210ZYXW';
    const text = `Authorization: Bearer ${key}\nretry with ${key}`;
    expect(makeRedactor([key])(text)).toBe('Authorization: Bearer [REDACTED]\nretry with [REDACTED]');
    expect(makeRedactor([` ${key}\n`])(`key=${key}`)).toBe('key=[REDACTED]');
    expect(makeRedactor(['sk-abcdef'])('key sk-abcdef and again sk-abcdef.')).toBe(
      'key [REDACTED] and again [REDACTED].',
    );
    expect(makeRedactor(['key-live-0123456789'])('got key-live-0123…')).toBe('got [REDACTED]…');
  });

  it('with no key, is the identity', () => {
    expect(makeRedactor([undefined, ''])('abc')).toBe('abc');
  });
});
