import { describe, expect, it } from 'vitest';
import { boundsProblem, describeBounds, PORT_BOUNDS } from './bounds.js';
import { BENCHMARK_OPTIONS } from './index.js';
import { optionList } from './table.js';

const opt = (key: string) => optionList(BENCHMARK_OPTIONS).find((o) => o.key === key)!;
const problem = (key: string, value: number) => {
  const o = opt(key);
  return boundsProblem(o.name, o, value, o.type === 'duration');
};

describe('bounds in the option table', () => {
  const cases: Array<[string, number, string | undefined]> = [
    ['timeout', 0, '--timeout must be at least 1ms and at most 1d (86400000 ms), got 0ms'],
    ['timeout', 30_000, undefined],
    [
      'timeout',
      2 * 86_400_000,
      '--timeout must be at least 1ms and at most 1d (86400000 ms), got 2d (172800000 ms)',
    ],
    ['ttftTimeout', 0, undefined],
    ['promptTokens', 100_000_000, '--prompt-tokens must be at most 2000000, got 100000000'],
    ['promptTokens', 2_000_000, undefined],
    ['maxTokens', 5_000_000, '--max-tokens must be at least 1 and at most 2000000, got 5000000'],
    ['concurrency', 10_000, undefined],
    ['concurrency', 0, '--concurrency must be at least 1 and at most 100000, got 0'],
    ['topP', 1.5, '--top-p must be at least 0 and at most 1, got 1.5'],
    ['scrapeInterval', 5, '--scrape-interval must be at least 10ms and at most 1h, got 5ms'],
    ['turnTokens', 1e9, '--turn-tokens must be at least 1 and at most 2000000, got 1000000000'],
    ['rate', 0, '--rate must be > 0 and at most 1000000, got 0'],
    ['rate', Number.POSITIVE_INFINITY, undefined],
    ['promptTokensRange', 1, '--prompt-tokens-range must be in [0, 1), got 1'],
    ['promptTokensRange', 0, undefined],
    ['cancelRate', 1.5, '--cancel-rate must be between 0 and 1, got 1.5'],
  ];
  for (const [key, value, want] of cases) {
    it(`${key} ${value} → ${want ?? 'ok'}`, () => expect(problem(key, value)).toBe(want));
  }

  it('says a port range as before', () => {
    expect(boundsProblem('port', PORT_BOUNDS, 99_999)).toBe(
      '--port must be at least 0 and at most 65535, got 99999',
    );
    expect(boundsProblem('port', PORT_BOUNDS, 0)).toBeUndefined();
  });

  it('every bound of the table is a real range', () => {
    for (const o of optionList(BENCHMARK_OPTIONS)) {
      const low = o.min ?? o.above;
      const high = o.max ?? o.below;
      if (low !== undefined && high !== undefined) expect(low, o.name).toBeLessThan(high);
      if (low !== undefined || high !== undefined) expect(describeBounds(o), o.name).not.toBe('');
    }
  });
});
