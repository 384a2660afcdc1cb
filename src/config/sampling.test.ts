import { describe, expect, test } from 'vitest';
import { GoodputError } from '../errors.js';
import { DEFAULT_SAMPLING, resolveSampling } from './sampling.js';

describe('resolveSampling', () => {
  test.each([
    [{}, { temperature: 0, maxTokens: 256, ignoreEos: false }],
    [
      { temperature: 0.7, topP: 0.9, maxTokens: 64, seed: 3, ignoreEos: true },
      { temperature: 0.7, topP: 0.9, maxTokens: 64, seed: 3, ignoreEos: true },
    ],
    [
      { temperature: 2, topP: 1, seed: 0 },
      { temperature: 2, topP: 1, maxTokens: 256, seed: 0, ignoreEos: false },
    ],
  ])('%o → %o', (input, expected) => expect(resolveSampling(input)).toEqual(expected));

  test('defaults can be replaced', () => {
    expect(resolveSampling({ seed: 1 }, { ...DEFAULT_SAMPLING, maxTokens: 32 })).toEqual({
      temperature: 0,
      maxTokens: 32,
      ignoreEos: false,
      seed: 1,
    });
  });

  test.each([
    [{ temperature: -0.1 }, '--temperature'],
    [{ temperature: 2.5 }, '--temperature'],
    [{ temperature: Number.NaN }, '--temperature'],
    [{ topP: 0 }, '--top-p'],
    [{ topP: 1.2 }, '--top-p'],
    [{ maxTokens: 0 }, '--max-tokens'],
    [{ maxTokens: 1.5 }, '--max-tokens'],
    [{ seed: -1 }, '--seed'],
    [{ seed: 0.5 }, '--seed'],
  ])('%o is a usage error naming %s', (input, flag) => {
    try {
      resolveSampling(input);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(GoodputError);
      expect((e as GoodputError).code).toBe('E_USAGE');
      expect((e as GoodputError).message.startsWith(flag)).toBe(true);
    }
  });
});
