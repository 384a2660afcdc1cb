/**
 * The report's charts checked where they are drawn (issue 26: "every report defect listed, each
 * checked in Chromium"): a report of one multi-turn run, a sweep and a vLLM result, and a trend
 * page with an ADR, each opened once in headless Chromium (Debian's chromium through
 * playwright-core), the properties read from the page's uPlot instances, canvas and DOM:
 * TPOT on a scale of its own, marker labels clear of each other, a Pareto frontier that never
 * turns back, an output-token rate without false zeros, a per-turn section, the imported
 * latency table's numbers under their own headers, bucket medians only where data are, and
 * the trend page's time labels apart and its limit lines drawn. And an experiment folder
 * (issue 27): one bar per configuration per key metric with its across-run interval, and the
 * Pareto chart of per-user against total tokens/s.
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeExperiment } from '../src/experiment/analysis/index.js';
import { gateSpecThresholds } from '../src/gate/index.js';
import { importResult, summarizeRecords } from '../src/metrics/index.js';
import { reportCommand } from '../src/report/html/command.js';
import {
  loadChartAssets,
  RunChartBuilder,
  renderHtmlReport,
  type SweepView,
} from '../src/report/html/index.js';
import type { WindowFigures } from '../src/store/index.js';
import type { RequestRecord } from '../src/types.js';
import { renderHistoryHtml } from '../src/watch/history.js';
import { VLLM_CURRENT } from './fixtures/foreign-results.js';
import { runCliInProcess } from './helpers/cli.js';
import { writeExperimentFixture } from './helpers/experiment-fixture.js';
import { syntheticMeta } from './helpers/synthetic-run.js';

const OUT = resolve('test-output/report-charts');

function chromiumPath(): string {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim() || '/usr/bin/chromium';
  } catch {
    return '/usr/bin/chromium';
  }
}

/**
 * Four sessions of ten turns, one after another in each session, on a 150 ms grid: a turn's
 * first token 150 ms (short prompts, 100–200 tokens) or 300 ms (long prompts, 1800–2000) after
 * its send, then four more one-token chunks 150 ms apart. Chunks land every 150 ms, so 100 ms
 * buckets counted by chunk instant hold 0 every third bucket; prompt lengths leave 256–1024
 * empty.
 */
function sessionRecords(): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let c = 0; c < 4; c++) {
    let sent = c * 150;
    for (let j = 0; j < 10; j++) {
      const i = c * 10 + j;
      const promptTokens = i % 2 === 0 ? 100 + 2 * i : 1800 + 2 * i;
      const first = sent + (promptTokens < 1000 ? 150 : 300);
      const chunkMs = Array.from({ length: 5 }, (_, k) => first + 150 * k);
      out.push({
        id: `r-${i}`,
        index: i,
        warmup: false,
        attempts: 1,
        scheduledMs: sent,
        sentMs: sent,
        firstSentMs: sent,
        promptTokens,
        maxTokens: 5,
        outputTokensSource: 'usage',
        outcome: 'success',
        httpStatus: 200,
        firstTokenMs: first,
        endMs: chunkMs[4]!,
        chunkMs,
        chunkChars: chunkMs.map(() => 4),
        outputTokens: 5,
        sessionId: `s-${c}`,
        turn: j + 1,
      });
      sent = chunkMs[4]!;
    }
  }
  return out;
}

/** A sweep whose saturation and capacity are neighbouring loads and whose throughput falls back past saturation. */
const SWEEP: SweepView = {
  loadLabel: 'concurrency',
  points: [1, 2, 4, 8, 16, 17, 32, 64].map((load, i) => ({
    load,
    values: {
      output_throughput: [100, 190, 350, 600, 900, 905, 880, 870][i]!,
      user_tps_p50: [100, 95, 88, 75, 56, 50, 52, 27][i]!,
      ttft_p99: [30, 32, 40, 60, 120, 130, 900, 2400][i]!,
      tpot_p99: [10, 10.5, 11, 13, 18, 20, 19, 37][i]!,
      e2el_p99: [600, 640, 700, 900, 1500, 1700, 4000, 9000][i]!,
    },
  })),
  saturationLoad: 16,
  capacityAtSloLoad: 17,
  userTpsSlo: { value: 40, label: 'SLO: user_tps ≥ 40' },
  notes: [],
};

let browser: Browser;

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** Writes a page, opens it, waits for every chart; page errors collected. */
async function open(html: string, name: string): Promise<{ page: Page; errors: string[] }> {
  const file = join(OUT, `${name}.html`);
  writeFileSync(file, html);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(
    'window.goodputCharts && window.goodputCharts.every((c) => c.el.getAttribute("data-rendered") === "true")',
    undefined,
    { timeout: 10_000 },
  );
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  return { page, errors };
}

/** Page code: the uPlot instance of a chart and the non-missing (x, y) of a series by label prefix. */
const HELPERS = `
  const plotOf = (id) => window.goodputCharts.find((c) => c.el.id === id).plot;
  const seriesIndex = (u, prefix) => u.series.findIndex((s, i) => i > 0 && String(s.label).startsWith(prefix));
  const pairs = (u, k) => u.data[0].map((x, r) => [x, u.data[k][r]]).filter((p) => p[1] !== undefined);
  const boxes = (sel) => [...document.querySelectorAll(sel)].map((n) => n.getBoundingClientRect().toJSON());
`;

type Box = { left: number; right: number; top: number; bottom: number };
const intersect = (a: Box, b: Box) =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe('the run report in Chromium', () => {
  let page: Page;
  let errors: string[];
  const records = sessionRecords();
  const summary = summarizeRecords(records, syntheticMeta());

  beforeAll(async () => {
    const builder = new RunChartBuilder(summary, 100);
    for (const r of records) builder.addRecord(r);
    const imported = importResult('vllm', VLLM_CURRENT, { path: 'vllm.json', sha256: '0'.repeat(64) });
    const html = renderHtmlReport(
      {
        title: 'report charts',
        generatedAt: '2026-12-03T00:00:00.000Z',
        runs: [{ label: 'sessions', summary, charts: builder.finish(), samples: builder.samples() }],
        imported: imported.map((s) => ({ label: 'vllm.json', summary: s })),
        sweep: SWEEP,
      },
      await loadChartAssets(),
    );
    ({ page, errors } = await open(html, 'report'));
  }, 60_000);

  afterAll(async () => {
    await page?.close();
  });

  it('draws without a page error', () => {
    expect(errors).toEqual([]);
  });

  it('sweep: TPOT p99 on a scale of its own, drawn over most of the plot height, not flat at 0', async () => {
    const r = (await page.evaluate(`(() => { ${HELPERS}
      const u = plotOf('chart-sweep');
      const t = seriesIndex(u, 'TPOT p99'), e = seriesIndex(u, 'E2EL p99');
      const ys = pairs(u, t).map((p) => u.valToPos(p[1], u.series[t].scale));
      return { tpot: u.series[t].scale, e2el: u.series[e].scale, span: Math.max(...ys) - Math.min(...ys), height: u.bbox.height / devicePixelRatio,
        axes: u.axes.map((a) => a.scale) };
    })()`)) as { tpot: string; e2el: string; span: number; height: number; axes: string[] };
    expect(r.tpot).not.toBe(r.e2el);
    expect(r.axes).toContain(r.tpot);
    expect(r.span).toBeGreaterThan(r.height * 0.5);
  });

  it('sweep: the saturation and capacity labels do not overlap and stay inside the plot', async () => {
    const r = (await page.evaluate(`(() => { ${HELPERS}
      return { labels: boxes('#chart-sweep .chart-label'), texts: [...document.querySelectorAll('#chart-sweep .chart-label')].map((n) => n.textContent),
        plot: document.querySelector('#chart-sweep .u-over').getBoundingClientRect().toJSON() };
    })()`)) as { labels: Box[]; texts: string[]; plot: Box };
    expect(r.texts.sort()).toEqual(['capacity at SLO', 'saturation']);
    expect(intersect(r.labels[0]!, r.labels[1]!)).toBe(false);
    for (const b of r.labels) {
      expect(b.left).toBeGreaterThanOrEqual(r.plot.left - 0.5);
      expect(b.right).toBeLessThanOrEqual(r.plot.right + 0.5);
    }
  });

  it('Pareto: the frontier line goes one way (throughput up, per-user down), the dominated load is a point only', async () => {
    const r = (await page.evaluate(`(() => { ${HELPERS}
      const u = plotOf('chart-pareto');
      return { frontier: pairs(u, seriesIndex(u, 'Pareto frontier')), points: pairs(u, seriesIndex(u, 'Per-user')) };
    })()`)) as { frontier: Array<[number, number]>; points: Array<[number, number]> };
    expect(r.points).toHaveLength(8);
    expect(r.frontier.map((p) => p[0])).not.toContain(880);
    for (let i = 1; i < r.frontier.length; i++) {
      expect(r.frontier[i]![0]).toBeGreaterThan(r.frontier[i - 1]![0]);
      expect(r.frontier[i]![1]).toBeLessThan(r.frontier[i - 1]![1]);
    }
  });

  it('timeline: the output-token rate has no zero between two buckets that are not', async () => {
    const ys = (await page.evaluate(`(() => { ${HELPERS}
      const u = plotOf('chart-timeline-0');
      return pairs(u, seriesIndex(u, 'output tokens/s')).map((p) => p[1]);
    })()`)) as number[];
    const first = ys.findIndex((v) => v > 0);
    const last = ys.length - 1 - [...ys].reverse().findIndex((v) => v > 0);
    const inner = ys.slice(first, last + 1);
    expect(inner.length).toBeGreaterThan(30);
    // some stream always decodes (one token per 150 ms: 6.7 tokens/s); counted at chunk
    // instants, every third 100 ms bucket of this run would hold none
    expect(Math.min(...inner)).toBeGreaterThan(6);
  });

  it('turns: a per-turn section with one row per turn and its chart', async () => {
    const r = (await page.evaluate(`(() => ({
      rows: [...document.querySelectorAll('#turns table.data tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
      head: [...document.querySelectorAll('#turns table.data thead th')].map((c) => c.textContent),
      chart: document.querySelector('#turns #chart-turns') !== null,
    }))()`)) as { rows: string[][]; head: string[]; chart: boolean };
    expect(r.chart).toBe(true);
    expect(r.head.slice(0, 5)).toEqual(['turn', 'requests', 'ok', 'prompt tokens (mean)', 'TTFT p50']);
    expect(r.rows).toHaveLength(summary.turns!.length);
    expect(r.rows.map((row) => row[0])).toEqual(summary.turns!.map((t) => String(t.turn)));
    // E2EL by turn: short prompts (odd turns here) 150 + 600 ms, long ones 300 + 600 ms
    expect(r.head.slice(7)).toEqual(['E2EL p50', 'E2EL p99']);
    expect(r.rows.map((row) => Number.parseFloat(row[7]!))).toEqual(
      summary.turns!.map((t) => (t.turn % 2 === 1 ? 750 : 900)),
    );
  });

  it("imported: every number sits under its own header, and is the file's value for that key", async () => {
    const r = (await page.evaluate(`(() => {
      const rect = (cell) => { const range = document.createRange(); range.selectNodeContents(cell); return range.getBoundingClientRect().toJSON(); };
      const table = document.querySelector('#imported table.latency');
      const head = [...table.querySelectorAll('thead th')].map((c) => ({ text: c.textContent, box: rect(c) }));
      const rows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => ({ text: c.textContent, box: rect(c) })));
      return { head, rows };
    })()`)) as {
      head: Array<{ text: string; box: Box }>;
      rows: Array<Array<{ text: string; box: Box }>>;
    };
    const centre = (b: Box) => (b.left + b.right) / 2;
    for (const row of r.rows) {
      row.forEach((cell, j) => {
        if (j === 0) return;
        const nearest = r.head
          .map((h, k) => [Math.abs(centre(h.box) - centre(cell.box)), k] as const)
          .sort((a, b) => a[0] - b[0])[0]![1];
        expect(r.head[nearest]!.text, `${row[0]!.text} ${cell.text}`).toBe(r.head[j]!.text);
      });
    }
    const ttft = Object.fromEntries(r.rows[0]!.map((c, j) => [r.head[j]!.text, c.text]));
    expect(ttft).toMatchObject({
      'latency (ms)': 'TTFT',
      mean: String(VLLM_CURRENT.mean_ttft_ms),
      p50: String(VLLM_CURRENT.p50_ttft_ms),
      p90: String(VLLM_CURRENT.p90_ttft_ms),
      p95: '—',
      p99: String(VLLM_CURRENT.p99_ttft_ms),
    });
  });

  it('scatter: bucket medians only where requests are, the line broken across the empty prompt lengths', async () => {
    const r = (await page.evaluate(`(() => { ${HELPERS}
      const u = plotOf('chart-scatter-ttft');
      const k = seriesIndex(u, 'bucket median');
      const medians = pairs(u, k);
      const reqs = pairs(u, seriesIndex(u, 'requests')).map((p) => p[0]);
      // canvas columns from the last median of the short prompts to the first of the long ones,
      // their markers left out: no pixel of the median line (near-black, opaque; the grid is
      // black at low alpha)
      const drawn = medians.filter((p) => p[1] !== null).map((p) => p[0]);
      const lastShort = Math.max(...drawn.filter((x) => x < 1000));
      const firstLong = Math.min(...drawn.filter((x) => x > 1000));
      const px = devicePixelRatio;
      const from = Math.round(u.valToPos(lastShort, 'x', true) + 8 * px), to = Math.round(u.valToPos(firstLong, 'x', true) - 8 * px);
      const img = u.ctx.getImageData(from, u.bbox.top, to - from, u.bbox.height).data;
      let dark = 0;
      for (let i = 0; i < img.length; i += 4) if (img[i + 3] > 150 && img[i] < 60 && img[i + 1] < 60 && img[i + 2] < 90) dark++;
      return { medians, reqs, spanGaps: u.series[k].spanGaps, dark };
    })()`)) as { medians: Array<[number, number | null]>; reqs: number[]; spanGaps: boolean; dark: number };
    expect(r.spanGaps).toBe(false);
    const drawn = r.medians.filter((p) => p[1] !== null);
    expect(drawn.length).toBeGreaterThanOrEqual(2);
    for (const [x] of drawn) {
      // within the span of the requests of its cluster
      const cluster = r.reqs.filter((q) => q < 1000 === x < 1000);
      expect(x).toBeGreaterThanOrEqual(Math.min(...cluster));
      expect(x).toBeLessThanOrEqual(Math.max(...cluster));
    }
    // the line's rows: medians of the short prompts, then a gap (null) over every row up to the
    // median of the long ones
    const isGap = r.medians.map((p) => p[1] === null);
    const firstGap = isGap.indexOf(true);
    const lastGap = isGap.lastIndexOf(true);
    expect(firstGap).toBeGreaterThan(0);
    expect(isGap.slice(firstGap, lastGap + 1).every(Boolean)).toBe(true);
    expect(r.medians.slice(0, firstGap).every((p) => p[0] < 1000)).toBe(true);
    expect(r.medians.slice(lastGap + 1).length).toBeGreaterThan(0);
    expect(r.medians.slice(lastGap + 1).every((p) => p[0] > 1000)).toBe(true);
    expect(r.dark).toBe(0);
  });
});

describe('the trend page in Chromium', () => {
  const T0 = Date.UTC(2026, 11, 2, 23, 50, 0);
  const STEP = 30_000;
  const win = (i: number): WindowFigures => {
    const l = (p50: number) => ({ count: 10, p50, p90: p50 * 1.5, p99: p50 * 2, mean: p50 * 1.1 });
    return {
      target: 'prod',
      start: T0 + i * STEP,
      rounds: 3,
      invalidRounds: 0,
      attempted: 30,
      failed: 0,
      good: 29,
      attainment: 29 / 30,
      errors: {},
      latency: { ttft: l(120 + 5 * i), tpot: l(20 + (i % 3)), itl: l(20), e2el: l(900) },
    };
  };
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    // 40 windows of 30 s across midnight: tick labels with seconds and a change of day
    const html = renderHistoryHtml(
      Array.from({ length: 40 }, (_, i) => win(i)),
      [],
      await loadChartAssets(),
      {
        windowMs: STEP,
        version: 'test',
        generatedAt: '2026-12-03T00:30:00.000Z',
        limits: {
          slo: { ttftMs: 500, tpotMs: 50 },
          gate: {
            adr: 'ADR-20261202-001',
            thresholds: gateSpecThresholds({ ttft_p99_ms: 480, tpot_p99_ms: 45, attainment_min: 0.95 }),
          },
        },
      },
    );
    ({ page, errors } = await open(html, 'trend'));
  }, 60_000);

  afterAll(async () => {
    await page?.close();
  });

  it('time labels: each tick label clear of its neighbours and inside the canvas', async () => {
    expect(errors).toEqual([]);
    const charts = (await page.evaluate(`(() => window.goodputCharts.map((c) => {
      const u = c.plot, a = u.axes[0];
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = a.font[0];
      const dpr = devicePixelRatio;
      const labels = (a._values || []).map((v, i) => {
        const w = Math.max(...String(v).split('\\n').map((line) => ctx.measureText(line).width));
        const x = u.valToPos(a._splits[i], 'x') + u.bbox.left / dpr;
        return { text: String(v), left: x - w / 2, right: x + w / 2 };
      }).filter((l) => l.text !== '');
      return { id: c.el.id, labels, width: u.width };
    }))()`)) as Array<{
      id: string;
      labels: Array<{ text: string; left: number; right: number }>;
      width: number;
    }>;
    expect(charts.length).toBe(3);
    for (const c of charts) {
      expect(c.labels.length, c.id).toBeGreaterThan(2);
      for (let i = 1; i < c.labels.length; i++)
        expect(c.labels[i]!.left, `${c.id}: ${c.labels[i - 1]!.text} | ${c.labels[i]!.text}`).toBeGreaterThan(
          c.labels[i - 1]!.right + 4,
        );
      expect(c.labels[0]!.left).toBeGreaterThanOrEqual(0);
      expect(c.labels.at(-1)!.right).toBeLessThanOrEqual(c.width);
      // UTC, on two lines: the date under the first tick and where the day changes
      expect(c.labels[0]!.text).toMatch(/^\d\d:\d\d(:\d\d)?\n12-0[23]$/);
      expect(c.labels.some((l) => l.text.endsWith('\n12-03'))).toBe(true);
    }
  });

  it("limit lines: the SLO and the ADR's gate thresholds drawn, labelled apart, each axis taking them in", async () => {
    const r = (await page.evaluate(`(() => { ${HELPERS}
      // red pixels (the ADR's colour) in a 5-pixel band around a value's row of the plot
      const redAt = (u, v) => {
        const y = Math.round(u.valToPos(v, 'y', true));
        const img = u.ctx.getImageData(u.bbox.left, y - 2, u.bbox.width, 5).data;
        let n = 0;
        for (let i = 0; i < img.length; i += 4) if (img[i + 3] > 150 && img[i] > 180 && img[i + 1] < 90 && img[i + 2] < 90) n++;
        return n;
      };
      return [['trend-0-ttft', 480], ['trend-0-tpot', 45], ['trend-0-attainment', 95]].map(([id, limit]) => {
        const u = plotOf(id);
        const labels = [...document.querySelectorAll('#' + id + ' .chart-label.limit')];
        return { id, max: u.scales.y.max, texts: labels.map((n) => n.textContent),
          boxes: labels.map((n) => n.getBoundingClientRect().toJSON()),
          red: redAt(u, limit), width: u.bbox.width };
      });
    })()`)) as Array<{ id: string; max: number; texts: string[]; boxes: Box[]; red: number; width: number }>;
    // each ADR line runs across the plot (dashed: more than a third of the row is red)
    for (const c of r) expect(c.red, c.id).toBeGreaterThan(c.width / 3);
    const [ttft, tpot, attain] = r;
    expect(ttft!.texts).toEqual(['SLO: TTFT ≤ 500 ms', 'ADR-20261202-001: p99(ttft) <= 480 ms']);
    expect(ttft!.max).toBeGreaterThanOrEqual(500);
    expect(intersect(ttft!.boxes[0]!, ttft!.boxes[1]!)).toBe(false);
    expect(tpot!.texts).toEqual(['SLO: TPOT ≤ 50 ms', 'ADR-20261202-001: p99(tpot) <= 45 ms']);
    expect(intersect(tpot!.boxes[0]!, tpot!.boxes[1]!)).toBe(false);
    expect(attain!.texts).toEqual(['ADR-20261202-001: attainment >= 0.95']);
  });
});

describe('an experiment folder in Chromium', () => {
  const dir = join(OUT, 'experiment');
  let page: Page;
  let errors: string[];
  let analysis: Awaited<ReturnType<typeof analyzeExperiment>>;

  beforeAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await writeExperimentFixture(dir, {
      name: 'gpus',
      common: {
        load: { concurrency: 4, requests: 12 },
        workload: { promptTokens: 256, promptTokensRange: 0.3 },
        sampling: { temperature: 0, maxTokens: 12, ignoreEos: true },
        slo: { ttftMs: 200, tpotMs: 40 },
      },
      configurations: [
        { name: 'h100', config: { sim: { profile: 'h100:llama-3.1-8b' } } },
        { name: 'a100', config: { sim: { profile: 'a100:llama-3.1-8b' } } },
      ],
    });
    analysis = await analyzeExperiment(dir, { resamples: 50 });
    const file = join(OUT, 'experiment.html');
    const r = await runCliInProcess(['report', dir, '-o', file], { cwd: OUT, commands: [reportCommand] });
    expect(r.code, r.stderr).toBe(0);
    ({ page, errors } = await open(readFileSync(file, 'utf8'), 'experiment'));
  }, 120_000);

  afterAll(async () => {
    await page?.close();
  });

  it('one bar per configuration per key metric, at the mean of its runs, with its interval as whiskers', async () => {
    expect(errors).toEqual([]);
    const charts = (await page.evaluate(`(() => window.goodputCharts.map((c) => {
      const u = c.plot;
      const ys = u.data[1];
      // near-black whisker pixels in a 3-pixel column at each bar's centre, above and below its top
      const whisker = u.data[0].map((x, r) => {
        const cx = Math.round(u.valToPos(x, 'x', true));
        const top = Math.round(u.valToPos(ys[r], u.series[1].scale, true));
        if (!Number.isFinite(top) || !Number.isFinite(cx)) return -1;
        const img = u.ctx.getImageData(cx - 1, top - 40, 3, 80).data;
        let n = 0;
        for (let i = 0; i < img.length; i += 4) if (img[i + 3] > 150 && img[i] < 60 && img[i + 1] < 60 && img[i + 2] < 70) n++;
        return n;
      });
      return { id: c.el.id, xs: [...u.data[0]], ys: [...ys], ticks: (u.axes[0]._values || []).filter(Boolean), whisker,
        labels: u.series.slice(1).map((s) => s.label) };
    }))()`)) as Array<{
      id: string;
      xs: number[];
      ys: number[];
      ticks: string[];
      whisker: number[];
      labels: string[];
    }>;
    const bars = charts.filter(
      (c) => c.id.startsWith('chart-experiment-') && c.id !== 'chart-experiment-pareto',
    );
    expect(bars.map((c) => c.id)).toEqual(
      expect.arrayContaining([
        'chart-experiment-ttft_p99',
        'chart-experiment-tpot_p99',
        'chart-experiment-output_throughput',
      ]),
    );
    for (const c of bars) {
      const id = c.id.replace('chart-experiment-', '');
      expect(c.xs, c.id).toEqual([0, 1]);
      expect(c.ticks, c.id).toEqual(['Baseline', 'Exp-1']);
      analysis.configurations.forEach((conf, i) => {
        const cell = conf.cells[id]!;
        const k = id === 'attainment' || id === 'kv_fragmentation' ? 100 : 1;
        expect(c.ys[i]! / k, `${c.id} ${conf.name}`).toBeCloseTo(cell.spread.mean, 2);
        // three runs each: an interval, drawn where the runs differ
        if (cell.spread.ci && cell.spread.ci[1] - cell.spread.ci[0] > Math.abs(cell.spread.mean) * 0.01)
          expect(c.whisker[i], `${c.id} ${conf.name} whisker`).toBeGreaterThan(3);
      });
    }
    // the slower GPU: worse TPOT p99 drawn as the higher bar
    const tpot = bars.find((c) => c.id === 'chart-experiment-tpot_p99')!;
    expect(tpot.ys[1]).toBeGreaterThan(tpot.ys[0]!);
    const pareto = charts.find((c) => c.id === 'chart-experiment-pareto')!;
    expect(pareto.labels.slice(0, 2)).toEqual(['Baseline (h100)', 'Exp-1 (a100)']);
    expect(pareto.labels.at(-1)).toMatch(/^Pareto frontier/);
  });

  it('the section names each configuration with its conclusion, and the winner', async () => {
    const text = (await page.locator('#experiment').textContent()) ?? '';
    expect(text).toContain('Experiment gpus');
    expect(text).toContain('2 configurations × 3 runs');
    for (const c of analysis.configurations) expect(text).toContain(c.conclusion);
  });
});
