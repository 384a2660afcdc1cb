import { describe, expect, it } from 'vitest';
import { syntheticMeta, syntheticRecord } from '../../../test/helpers/synthetic-run.js';
import { summarizeRecords } from '../../metrics/index.js';
import { escapeHtml } from '../../util/index.js';
import { allCharts, roundSig, wantsLogAxis } from './charts.js';
import type { ReportRun } from './model.js';
import { RunChartBuilder } from './prepare.js';
import { jsonForScript, renderHtmlReport } from './render.js';

const HOSTILE = '</script><img src=x onerror=alert(1)>';

function run(label: string, failEvery?: number): ReportRun {
  const records = Array.from({ length: 30 }, (_, i) => syntheticRecord(i, failEvery ? { failEvery } : {}));
  const summary = summarizeRecords(records, syntheticMeta({ model: `model ${HOSTILE}` }));
  const builder = new RunChartBuilder(summary);
  for (const r of records) builder.addRecord(r);
  return { label, summary, charts: builder.finish() };
}

const ASSETS = { uplotJs: '/* uplot */ window.uPlot = function () {};', uplotCss: '.uplot{}' };

/** The JSON of the chart specs, as the page's script will read it. */
function embeddedSpecs(html: string): unknown {
  const m = /<script type="application\/json" id="goodput-charts">([\s\S]*?)<\/script>/.exec(html);
  return JSON.parse(m![1]!);
}

describe('renderHtmlReport', () => {
  const runs = [run(HOSTILE), run('candidate', 5)];
  const html = renderHtmlReport(
    { title: `Report ${HOSTILE}`, generatedAt: '2026-01-01T00:00:00Z', runs },
    ASSETS,
  );

  it('escapes every text: a hostile label or model cannot open an element', () => {
    expect(html).not.toContain('<img src=x');
    expect(html).toContain(escapeHtml(HOSTILE));
    expect(html.match(/<script/g)?.length).toBe(3);
  });

  it('embeds exactly the chart specs, parseable back', () => {
    expect(embeddedSpecs(html)).toEqual(JSON.parse(JSON.stringify(allCharts(runs))));
  });

  it('references nothing outside the file and inlines the assets', () => {
    expect(html).not.toMatch(/<(script|img|link|iframe)[^>]+(src|href)=/i);
    expect(html).toContain(ASSETS.uplotJs);
    expect(html).toContain(ASSETS.uplotCss);
  });

  it('has one chart container per spec, and the errors table with cause and fix', () => {
    const ids = (allCharts(runs) as Array<{ id: string }>).map((s) => s.id);
    for (const id of ids) expect(html).toContain(`id="${id}" data-chart role="img"`);
    expect(html).toContain('HTTP_SERVER_ERROR');
    expect(html).toContain('the server failed while handling the request (5xx)');
  });
});

describe('allCharts', () => {
  const runs = [run('a'), run('b')];
  const specs = allCharts(runs);
  it('overlays one series per run on each CDF and marks the SLO where one is set', () => {
    const cdfs = specs.filter((s) => s.group === 'cdf');
    expect(cdfs.map((s) => s.id)).toEqual([
      'chart-cdf-ttft',
      'chart-cdf-tpot',
      'chart-cdf-itl',
      'chart-cdf-e2el',
    ]);
    for (const s of cdfs) expect(s.series.map((x) => x.label)).toEqual(['a', 'b']);
    expect(cdfs[0]!.markers).toEqual([{ x: 50, label: 'SLO 50 ms', color: '#6b7280' }]);
    expect(cdfs[1]!.markers).toEqual([]);
  });
  it('gives each run a client timeline, none a server chart without samples', () => {
    expect(specs.filter((s) => s.group === 'timeline').map((s) => s.id)).toEqual([
      'chart-timeline-0',
      'chart-timeline-1',
    ]);
  });
});

describe('chart helpers', () => {
  it.each([1234.5678, 0.000123456789, -98765.4321, 0, 5])('roundSig(%d) keeps 5 significant digits', (v) => {
    expect(roundSig(v)).toBe(Number(v.toPrecision(5)));
  });
  it.each([
    { xs: [1, 50], log: false },
    { xs: [1, 101], log: true },
    { xs: [0, 0.5, 60], log: true },
    { xs: [], log: false },
  ])('wantsLogAxis($xs) is $log', ({ xs, log }) => {
    expect(wantsLogAxis([{ x: xs, y: xs }])).toBe(log);
  });
  it('jsonForScript cannot close its script element and round-trips', () => {
    const value = { a: '</script><!-- \u2028 \u2029' };
    const text = jsonForScript(value);
    expect(text).not.toMatch(/<\/script|<!--/i);
    expect(JSON.parse(text)).toEqual(value);
  });
});
