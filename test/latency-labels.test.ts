/**
 * One latency table (metrics/latencies.ts) names and computes every latency: the catalogue's
 * latency metrics, the terminal and Markdown run reports, the HTML report and compare read
 * their label from it, and compare's per-request samples are the summary's own values.
 *
 * Each view is rendered from one run that measured every latency (an open loop of a reasoning
 * model), and every latency row it shows is read back: its label must be the table's, with
 * no other spelling.
 */

import { describe, expect, test } from 'vitest';
import { compareRuns, renderCompareMarkdown, renderCompareTable } from '../src/compare/index.js';
import { samplesFromRecords } from '../src/compare/samples.js';
import { LATENCIES, LATENCY_STATS, latencyTitle, METRICS, summarizeRecords } from '../src/metrics/index.js';
import { allCharts } from '../src/report/html/charts.js';
import { renderReportMarkdown } from '../src/report/html/markdown.js';
import { RunChartBuilder } from '../src/report/html/prepare.js';
import { renderHtmlReport } from '../src/report/html/render.js';
import { renderRunMarkdown, renderRunTable } from '../src/report/index.js';
import { type RequestRecord, SUMMARY_LATENCY_NAMES } from '../src/types.js';
import { syntheticMeta, syntheticRecord } from './helpers/synthetic-run.js';

const LABELS = new Set(LATENCIES.map((d) => d.label));

/** Record i of the report's synthetic run, sent 3 ms after its schedule, its first three chunks reasoning. */
function reasoned(i: number, slower = 0): RequestRecord {
  const r = syntheticRecord(i);
  const shift = (t: number) => t + (r.sentMs === t ? 0 : slower);
  return {
    ...r,
    scheduledMs: r.sentMs - 3,
    firstTokenMs: shift(r.firstTokenMs as number),
    chunkMs: r.chunkMs.map(shift),
    endMs: shift(r.endMs),
    chunkReasoningChars: r.chunkMs.map((_, k) => (k < 3 ? 4 : 0)),
  };
}

const meta = syntheticMeta({
  load: { mode: 'open', rate: 10, requests: 30, warmup: 0, timeoutMs: 10_000, maxRetries: 0 },
});
const records = Array.from({ length: 30 }, (_, i) => reasoned(i));
const summary = summarizeRecords(records, meta);

describe('the latency table', () => {
  test('names every summary latency once, each with a label, a title, a unit and a formula', () => {
    expect(LATENCIES.map((d) => d.name)).toEqual([...SUMMARY_LATENCY_NAMES]);
    expect(new Set(LATENCIES.map((d) => d.text)).size).toBe(LATENCIES.length);
    expect(LABELS.size).toBe(LATENCIES.length);
    for (const d of LATENCIES) {
      expect(d.label, d.name).not.toBe('');
      expect(d.title, d.name).not.toBe('');
      expect(d.formula, d.name).not.toBe('');
      expect(d.unit).toBe('ms');
    }
  });

  test("every latency metric of the catalogue has exactly one row: its label, unit and id are the row's", () => {
    const latencyMetrics = METRICS.filter((m) => m.latency);
    expect(latencyMetrics).toHaveLength(LATENCIES.length * LATENCY_STATS.length);
    for (const m of latencyMetrics) {
      const rows = LATENCIES.filter((d) => d.name === m.latency!.name);
      expect(rows, m.id).toHaveLength(1);
      const [row] = rows;
      const statLabel = LATENCY_STATS.find(([, stat]) => stat === m.latency!.stat)![2];
      expect(m.label).toBe(`${row!.label} ${statLabel}`);
      expect(m.unit).toBe(row!.unit);
      expect(m.id.startsWith(`${row!.text}_`)).toBe(true);
      expect(Boolean(m.reasoning)).toBe(Boolean(row!.reasoning));
    }
  });

  test("compare's per-request samples are the summary's: the same requests, the same values", () => {
    const samples = samplesFromRecords(records);
    for (const name of ['ttft', 'tpot', 'itl', 'e2el', 'ttfrt', 'ttfat'] as const) {
      const stats = summary.latency[name]!;
      const values = samples[name]!;
      expect(values.length, name).toBe(stats.count);
      expect(values.length, name).toBeGreaterThan(0);
      expect(values[0], name).toBeCloseTo(stats.min, 1);
      expect(values[values.length - 1], name).toBeCloseTo(stats.max, 1);
    }
  });
});

/** The first cell of each line from the header line on, up to the first blank line. */
function firstCells(lines: string[], header: RegExp, cell: (line: string) => string): string[] {
  const start = lines.findIndex((l) => header.test(l));
  expect(start, String(header)).toBeGreaterThanOrEqual(0);
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break;
    out.push(cell(line));
  }
  return out;
}

describe("every view shows each latency under the table's label", () => {
  const every = LATENCIES.map((d) => d.label);

  test('terminal run report', () => {
    const lines = renderRunTable(summary).split('\n');
    expect(firstCells(lines, /^latency \(ms\)/, (l) => l.split(/\s{2,}/)[0]!)).toEqual(every);
  });

  test('Markdown run report', () => {
    const lines = renderRunMarkdown(summary).split('\n');
    const rows = firstCells(lines, /^\| latency \(ms\) \|/, (l) => l.split('|')[1]!.trim()).slice(1);
    expect(rows).toEqual(every);
  });

  const builder = new RunChartBuilder(summary);
  for (const r of records) builder.addRecord(r);
  const run = { label: 'base', summary, charts: builder.finish() };
  const input = { title: 'Report', generatedAt: '2026-01-01T00:00:00Z', runs: [run] };

  test('HTML report: the latency table, with each formula on hover, and the CDF charts', () => {
    const html = renderHtmlReport(input, { uplotJs: '', uplotCss: '' });
    const section = /<section id="latency">([\s\S]*?)<\/section>/.exec(html)![1]!;
    const heads = [...section.matchAll(/<tr><th title="([^"]*)">([^<]*)<\/th>/g)];
    expect(heads.length).toBeGreaterThan(0);
    for (const [, title, label] of heads) {
      const row = LATENCIES.find((d) => d.label === label);
      expect(row, label).toBeDefined();
      expect(title).toBe(`${row!.title}: ${row!.formula}`);
    }
    expect(heads.map(([, , label]) => label)).toEqual(['TTFT', 'TPOT', 'ITL', 'E2EL', 'Queue wait']);
    const cdfs = allCharts([run]).filter((c) => c.id.startsWith('chart-cdf-'));
    expect(cdfs.length).toBeGreaterThan(0);
    for (const c of cdfs) {
      expect(
        LATENCIES.some((d) => c.title === latencyTitle(d.name)),
        c.title,
      ).toBe(true);
    }
  });

  test("the report's Markdown nests the run report with the same labels", () => {
    const lines = renderReportMarkdown(input).split('\n');
    const rows = firstCells(lines, /^\| latency \(ms\) \|/, (l) => l.split('|')[1]!.trim()).slice(1);
    expect(rows).toEqual(every);
  });

  test('compare: every latency row (terminal and Markdown) is a table label and a statistic', () => {
    const slower = Array.from({ length: 30 }, (_, i) => reasoned(i, 7));
    const base = { name: 'base', summary, samples: samplesFromRecords(records) };
    const candidate = {
      name: 'candidate',
      summary: summarizeRecords(slower, meta),
      samples: samplesFromRecords(slower),
    };
    const report = compareRuns([base, candidate]);
    const latencyRows = report.comparisons[0]!.deltas.filter(
      (d) => METRICS.find((m) => m.id === d.key)?.latency,
    );
    expect(latencyRows.map((d) => d.key)).toEqual(
      expect.arrayContaining(['ttft_p99', 'tpot_p50', 'e2el_p99', 'ttfrt_p50', 'ttfat_p99']),
    );
    const statLabels = LATENCY_STATS.map(([, , label]) => label);
    /** "TTFRT p50 (ms)" → the latency label "TTFRT"; undefined for a row that is not a latency statistic. */
    const latencyOf = (cell: string) => {
      const stat = statLabels.find((st) => cell.endsWith(` ${st} (ms)`));
      return stat === undefined ? undefined : cell.slice(0, -` ${stat} (ms)`.length);
    };
    const tableLines = renderCompareTable(report).split('\n');
    const terminal = firstCells(tableLines, /^─/, (l) => l.split(/\s{2,}/)[0]!).filter(
      (c) => !c.startsWith(' '),
    );
    const markdown = firstCells(renderCompareMarkdown(report).split('\n'), /^\| --- /, (l) =>
      l.split('|')[1]!.trim(),
    );
    for (const cells of [terminal, markdown]) {
      const latencies = cells.map(latencyOf).filter((l) => l !== undefined);
      expect(latencies).toHaveLength(latencyRows.length);
      for (const label of latencies) expect(LABELS.has(label), label).toBe(true);
    }
  });
});
