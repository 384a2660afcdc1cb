import { describe, expect, it } from 'vitest';
import { closestName, editDistance, markdownCode, oneLine } from './text.js';

/** Plain recursive Levenshtein as the reference. */
function referenceDistance(a: string, b: string): number {
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const cost = a[0] === b[0] ? 0 : 1;
  return Math.min(
    referenceDistance(a.slice(1), b) + 1,
    referenceDistance(a, b.slice(1)) + 1,
    referenceDistance(a.slice(1), b.slice(1)) + cost,
  );
}

describe('editDistance', () => {
  const words = ['', 'a', 'rate', 'rte', 'url', 'urls', 'model', 'modle', 'kitten', 'sitting', 'json'];
  it('matches the recursive definition on every pair', () => {
    for (const a of words) for (const b of words) expect(editDistance(a, b)).toBe(referenceDistance(a, b));
  });
  it('suggests only within reach', () => {
    expect(closestName('concurency', ['concurrency', 'rate'])).toBe('concurrency');
    expect(closestName('xyz', ['concurrency', 'rate'])).toBeUndefined();
  });
});

describe('oneLine', () => {
  it('writes every line breaker and control character as an escape, keeps the rest', () => {
    const every = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join('') + '\u2028\u2029é→';
    const out = oneLine(every);
    expect(out).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(out).toContain('\\n');
    expect(out).toContain('\\r');
    expect(out).toContain('\\u2028');
    // A tab does not break a line: kept, as are letters beyond ASCII.
    expect(out).toContain('\t');
    expect(out.endsWith('é→')).toBe(true);
    expect(oneLine('p99(ttft)<350\ngroups: []')).toBe('p99(ttft)<350\\ngroups: []');
    expect(oneLine('plain: text # ok')).toBe('plain: text # ok');
  });
});

describe('markdownCode', () => {
  it.each([
    ['plain', '`plain`'],
    ['a`b', '``a`b``'],
    ['``x', '``` ``x ```'],
    ['x`', '`` x` ``'],
    ['', '` `'],
    ['<img src=x onerror=alert(1)>', '`<img src=x onerror=alert(1)>`'],
    ['two\nlines', '`two\\nlines`'],
  ])('%j → %s', (text, span) => {
    expect(markdownCode(text)).toBe(span);
  });
  it('the span is never ended early: its fence is longer than any run of backticks inside', () => {
    const text = 'a ` b `` c ``` d';
    const span = markdownCode(text);
    const fence = /^`+/.exec(span)![0];
    expect(fence).toBe('````');
    expect(span.slice(fence.length, -fence.length)).toBe(text);
  });
});
