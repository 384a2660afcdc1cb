import { describe, expect, it } from 'vitest';
import { classesMeta, ofClass, runMeta, streamed } from '../../test/fixtures/records.js';
import { summarizeRecords } from '../metrics/index.js';
import type { RequestRecord } from '../types.js';
import { escapeHtml } from '../util/index.js';
import { RunChartBuilder } from './html/prepare.js';
import { renderHtmlReport } from './html/render.js';
import { renderRunMarkdown } from './markdown.js';
import { renderRunTable } from './terminal.js';

const HOSTILE = '<b>x</b>';

function records(): RequestRecord[] {
  return [
    ofClass(streamed({ index: 0, sentMs: 0, ttft: 100, gap: 10, tokens: 5 }), 'chat'),
    ofClass(streamed({ index: 1, sentMs: 10, ttft: 300, gap: 10, tokens: 5 }), 'chat'),
    ofClass(streamed({ index: 2, sentMs: 20, ttft: 1500, gap: 40, tokens: 5 }), 'batch'),
  ];
}

function summary() {
  const meta = classesMeta(
    [
      { name: 'chat', share: 0.5, slo: { ttftMs: 150 }, priority: 0 },
      { name: 'batch', share: 0.5, model: HOSTILE },
    ],
    { slo: { ttftMs: 5000 } },
  );
  return summarizeRecords(records(), meta);
}

describe('reports: the by-class table', () => {
  const s = summary();

  it('shows each class in the terminal with its own SLO and attainment', () => {
    const text = renderRunTable(s);
    expect(text).toContain('By traffic class (each against its own SLO)');
    expect(text).toMatch(
      /workload\s+2 traffic classes \(chat 50 %, batch 50 % of the requests\), each its own lengths over prompt/,
    );
    const chat = text.split('\n').find((l) => /^\s+chat\s/.test(l))!;
    expect(chat).toContain('50.0 %'); // 1 of 2 under 150 ms
    expect(chat).toContain('TTFT ≤ 150 ms');
    const batch = text.split('\n').find((l) => /^\s+batch\s/.test(l))!;
    expect(batch).toContain('100.0 %'); // the run's 5 s SLO
    expect(batch).toContain('TTFT ≤ 5000 ms');
  });

  it('shows the same rows in Markdown and HTML, escaped', () => {
    const md = renderRunMarkdown(s);
    expect(md).toContain('### By traffic class');
    expect(md).toMatch(/\| chat \| 50\.0 % \| 0 \|/);
    // Per-user tokens/s p50 of each class: about 1000 / TPOT (10 ms for chat, 40 ms for batch).
    expect(md).toContain('Per-user output tokens/s p50');
    const cells = (name: string) =>
      md
        .split('\n')
        .find((l) => l.startsWith(`| ${name}`))!
        .split(' | ');
    const col = md
      .split('\n')
      .find((l) => l.startsWith('| class'))!
      .split(' | ')
      .findIndex((h) => h.startsWith('Per-user'));
    expect(Number.parseFloat(cells('chat')[col]!)).toBeCloseTo(97.56, 1);
    expect(Number.parseFloat(cells('batch')[col]!)).toBeCloseTo(24.84, 1);
    expect(md).not.toContain(HOSTILE);
    const builder = new RunChartBuilder(s);
    for (const r of records()) builder.addRecord(r);
    const html = renderHtmlReport(
      {
        title: 'r',
        generatedAt: '2026-01-01T00:00:00Z',
        runs: [{ label: 'run', summary: s, charts: builder.finish() }],
      },
      { uplotJs: '', uplotCss: '' },
    );
    expect(html).toContain('<section id="classes">');
    expect(html).toContain(escapeHtml(`batch (${HOSTILE})`));
    expect(html).not.toContain(HOSTILE);
  });

  it('has no class table without classes', () => {
    const plain = summarizeRecords(
      [streamed({ index: 0, sentMs: 0, ttft: 100, gap: 10, tokens: 5 })],
      runMeta(),
    );
    expect(renderRunTable(plain)).not.toContain('By traffic class');
    expect(renderRunMarkdown(plain)).not.toContain('By traffic class');
  });
});
