import { describe, expect, test } from 'vitest';
import { parseStartAt } from './start-at.js';

const NOW = Date.parse('2026-03-14T09:00:00.000Z');

describe('parseStartAt', () => {
  test.each([
    ['+2s', NOW + 2000],
    ['+1m30s', NOW + 90_000],
    ['+0s', NOW],
    ['2026-03-14T09:15:00Z', Date.parse('2026-03-14T09:15:00Z')],
    ['2026-03-14T10:15:00.250+01:00', Date.parse('2026-03-14T09:15:00.250Z')],
    ['2026-03-14T09:15Z', Date.parse('2026-03-14T09:15:00Z')],
    [String(NOW + 5000), NOW + 5000],
    // A shard started a little late still runs (and says it started late).
    ['2026-03-14T08:58:00Z', NOW - 120_000],
  ])('%j', (text, ms) => {
    expect(parseStartAt(text, NOW)).toBe(ms);
  });

  test.each([
    ['2026-03-14T09:15:00', /no time zone/],
    ['tomorrow', /cannot read 'tomorrow'/],
    ['+2', /has no unit/],
    ['2026-13-40T99:00:00Z', /cannot read/],
    ['', /cannot read/],
    // A typo for 2026: merged, it became one 25-year run with goodput 0.
    ['2001-03-14T09:15:00Z', /is 2001-03-14T09:15:00.000Z, 25.0 years ago/],
    ['2026-03-14T08:50:00Z', /10.0 minutes ago/],
  ])('%j is refused with a hint', (text, message) => {
    expect(() => parseStartAt(text, NOW)).toThrow(message);
  });
});
