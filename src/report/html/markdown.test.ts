import { describe, expect, it } from 'vitest';
import { syntheticMeta, syntheticRecord } from '../../../test/helpers/synthetic-run.js';
import { summarizeRecords } from '../../metrics/index.js';
import { markdownCell } from '../../util/index.js';
import { demoteHeadings, mdCell, renderReportMarkdown } from './markdown.js';
import { RunChartBuilder } from './prepare.js';

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

describe('renderReportMarkdown with hostile strings', () => {
  const HOSTILE = '<img src=x onerror=alert(1)> & </details>';
  const records = Array.from({ length: 20 }, (_, i) => {
    const r = syntheticRecord(i, { failEvery: 4 });
    if (r.error) r.error.message = `upstream said ${HOSTILE}`;
    return r;
  });
  const summary = summarizeRecords(records, syntheticMeta({ model: `model ${HOSTILE}` }));
  const builder = new RunChartBuilder(summary);
  for (const r of records) builder.addRecord(r);
  const md = renderReportMarkdown({
    title: `Report ${HOSTILE}`,
    generatedAt: '2026-01-01T00:00:00Z',
    runs: [{ label: `run ${HOSTILE}`, summary, charts: builder.finish() }],
  });

  it('escapes HTML as the HTML report does: no element can be opened', () => {
    expect(md).not.toMatch(/<\/?[a-z]/i);
    expect(md).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &lt;/details&gt;');
  });

  it('the hostile text still reaches every place it was put (title, label, model, error example)', () => {
    expect(md).toContain('# Report &lt;img');
    expect(md).toContain('## run &lt;img');
    expect(md).toContain('model &lt;img');
    expect(md).toContain('upstream said &lt;img');
  });
});

describe('markdownCell', () => {
  it.each([
    { input: '<b>x</b>', expected: '&lt;b&gt;x&lt;/b&gt;' },
    { input: 'a & b', expected: 'a &amp; b' },
    { input: 'a|<b', expected: 'a\\|&lt;b' },
    // shown as escapes; the backslash itself escaped for Markdown, which renders it as one
    { input: 'm\x1b]0;title\x07\r\x1b[2KPASS', expected: 'm\\\\x1b]0;title\\\\x07\\\\x0d\\\\x1b[2KPASS' },
  ])('$input', ({ input, expected }) => {
    expect(markdownCell(input)).toBe(expected);
  });
});

describe('renderReportMarkdown numbers', () => {
  it('writes every percentage one way, the terminal\'s "97.5 %", in the headlines and the nested run', () => {
    const records = Array.from({ length: 20 }, (_, i) => syntheticRecord(i, { failEvery: 4 }));
    const summary = summarizeRecords(records, syntheticMeta({ slo: { ttftMs: 30 } }));
    const charts = new RunChartBuilder(summary).finish();
    const md = renderReportMarkdown({
      title: 'r',
      generatedAt: '2026-01-01T00:00:00Z',
      runs: [{ label: 'a', summary, charts }],
    });
    const percentages = md.match(/\d %/g) ?? [];
    expect(percentages.length).toBeGreaterThan(2);
    expect(md).not.toMatch(/\d%/);
  });
});
