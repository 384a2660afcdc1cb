import { describe, expect, it } from 'vitest';
import { demoteHeadings, mdCell } from './markdown.js';

describe('demoteHeadings', () => {
  it.each([
    { input: '## Run\ntext\n### Latency', expected: '### Run\ntext\n#### Latency' },
    { input: '# Title', expected: '## Title' },
    { input: 'a #hashtag and ## not at line start', expected: 'a #hashtag and ## not at line start' },
    { input: '#nospace', expected: '#nospace' },
  ])('$input', ({ input, expected }) => {
    expect(demoteHeadings(input)).toBe(expected);
  });
});

describe('mdCell', () => {
  it.each([
    { input: 'a|b', expected: 'a\\|b' },
    { input: 'line\nbreak', expected: 'line break' },
    { input: 'back\\slash', expected: 'back\\\\slash' },
    { input: 'plain', expected: 'plain' },
  ])('$input', ({ input, expected }) => {
    expect(mdCell(input)).toBe(expected);
  });
});
