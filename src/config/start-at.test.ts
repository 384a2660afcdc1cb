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
  ])('%j', (text, ms) => {
    expect(parseStartAt(text, NOW)).toBe(ms);
  });

  test.each([
    ['2026-03-14T09:15:00', /no time zone/],
    ['tomorrow', /cannot read 'tomorrow'/],
    ['+2', /has no unit/],
    ['2026-13-40T99:00:00Z', /cannot read/],
    ['', /cannot read/],
  ])('%j is refused with a hint', (text, message) => {
    expect(() => parseStartAt(text, NOW)).toThrow(message);
  });
});
