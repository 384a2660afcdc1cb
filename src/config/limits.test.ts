import { describe, expect, it } from 'vitest';
import { describeLimit, FLAG_LIMITS, flagLimitProblem } from './limits.js';

describe('flagLimitProblem', () => {
  const cases: Array<[string, number, string | undefined]> = [
    ['port', 99_999, '--port must be at least 0 and at most 65535, got 99999'],
    ['port', 0, undefined],
    ['port', 65_535, undefined],
    ['metrics-port', 70_000, '--metrics-port must be at least 0 and at most 65535, got 70000'],
    ['timeout', 0, '--timeout must be at least 1ms and at most 1d (86400000 ms), got 0ms'],
    ['timeout', 30_000, undefined],
    [
      'timeout',
      2 * 86_400_000,
      '--timeout must be at least 1ms and at most 1d (86400000 ms), got 2d (172800000 ms)',
    ],
    ['ttft-timeout', 0, undefined],
    ['prompt-tokens', 100_000_000, '--prompt-tokens must be at most 2000000, got 100000000'],
    ['prompt-tokens', 2_000_000, undefined],
    ['max-tokens', 5_000_000, '--max-tokens must be at most 2000000, got 5000000'],
    ['concurrency', 10_000, undefined],
    ['concurrency', 0, '--concurrency must be at least 1 and at most 100000, got 0'],
    ['top-p', 1.5, '--top-p must be at least 0 and at most 1, got 1.5'],
    ['scrape-interval', 5, '--scrape-interval must be at least 10ms and at most 1h, got 5ms'],
    ['turn-tokens', 1e9, '--turn-tokens must be at least 1 and at most 2000000, got 1000000000'],
    ['bins', 1e9, '--bins must be at least 1 and at most 10000, got 1000000000'],
    ['not-a-bounded-flag', 1e12, undefined],
  ];
  for (const [name, value, want] of cases) {
    it(`--${name} ${value} → ${want ?? 'ok'}`, () => expect(flagLimitProblem(name, value)).toBe(want));
  }
  it('every bound is a real range', () => {
    for (const [name, limit] of Object.entries(FLAG_LIMITS)) {
      expect(limit.min !== undefined || limit.max !== undefined, name).toBe(true);
      if (limit.min !== undefined && limit.max !== undefined) expect(limit.min, name).toBeLessThan(limit.max);
      expect(describeLimit(limit), name).not.toBe('');
    }
  });
});
