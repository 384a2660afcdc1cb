/**
 * End to end: two real runs against the embedded engine (different GPU profiles, the same
 * workload), a sweep directory built from them, `goodput report` on both, and each report
 * opened in headless Chromium (Debian's chromium through playwright-core): every chart drawn
 * with pixels, no console error, no request but the file itself; a screenshot is saved under
 * test-output/report/.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportCommand } from '../src/report/html/command.js';
import { readSummary } from '../src/results/index.js';
import { type BenchmarkConfig, runBenchmark } from '../src/runner/index.js';
import { pointFromSummary, type SweepResult } from '../src/sweep/index.js';
import { runCliInProcess } from './helpers/cli.js';

const OUT = resolve('test-output/report');

function chromiumPath(): string {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim() || '/usr/bin/chromium';
  } catch {
    return '/usr/bin/chromium';
  }
}

function config(outDir: string, profile: string, name: string): BenchmarkConfig {
  return {
    api: 'chat',
    sampling: { temperature: 0, maxTokens: 32, ignoreEos: true, seed: 7 },
    workload: { promptTokens: 400, promptTokensRange: 0.75 },
    load: { mode: 'closed', concurrency: 8, requests: 32, warmup: 2, timeoutMs: 30_000, maxRetries: 0 },
    slo: { ttftMs: 60, tpotMs: 20 },
    seed: 7,
    outDir,
    labels: { name },
    serverMetrics: { enabled: true },
    sim: { profile },
  };
}

/** Runs the report command in-process; returns its exit code and what it wrote. */
function report(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliInProcess(['report', ...args], { cwd: process.cwd(), commands: [reportCommand] });
}

// Code run inside the page, as strings: the test's TypeScript has no DOM types.

/** True once every chart container says it was drawn. */
const ALL_DRAWN = `(() => {
  const charts = [...document.querySelectorAll('[data-chart]')];
  return charts.length > 0 && charts.every((c) => c.getAttribute('data-rendered') === 'true');
})()`;

/** uPlot draws series, axes and grid on one canvas: counts the pixels that are not transparent. */
const INK = `function ink(el) {
  const canvas = el.querySelector('canvas');
  if (!canvas) return 0;
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let n = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
  return n;
}`;

/** Every chart: id, drawn flag, inked pixels, canvas width. */
const INSPECT_CHARTS = `(() => {
  ${INK}
  return [...document.querySelectorAll('[data-chart]')].map((el) => ({
    id: el.id,
    rendered: el.getAttribute('data-rendered') === 'true',
    inkedPixels: ink(el),
    width: el.querySelector('canvas') ? el.querySelector('canvas').width : 0,
  }));
})()`;

/**
 * Ink of every chart before and after hiding all its series through uPlot's own legend toggle
 * (a click on the entry's label), once the redraw has happened.
 */
const HIDE_EVERY_SERIES = `(async () => {
  ${INK}
  const charts = [...document.querySelectorAll('[data-chart]')];
  const before = charts.map(ink);
  for (const el of charts) {
    for (const label of [...el.querySelectorAll('.u-legend .u-series > th')].slice(1)) label.click();
  }
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return Object.fromEntries(charts.map((el, i) => [el.id, [before[i], ink(el)]]));
})()`;

interface PageCheck {
  charts: Array<{ id: string; rendered: boolean; inkedPixels: number; width: number }>;
  consoleErrors: string[];
  requests: string[];
}

/** Opens a report with every request routed through the test, waits for the charts, inspects them. */
async function openReport(
  browser: Browser,
  file: string,
  screenshot?: string,
): Promise<{ page: Page; check: PageCheck }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const fileUrl = pathToFileURL(file).href;
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    requests.push(url);
    return url === fileUrl ? route.continue() : route.abort();
  });
  await page.goto(fileUrl);
  await page.waitForFunction(ALL_DRAWN, undefined, { timeout: 10_000 });
  const charts = (await page.evaluate(INSPECT_CHARTS)) as PageCheck['charts'];
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  return { page, check: { charts, consoleErrors, requests } };
}

describe('goodput report, end to end', () => {
  let browser: Browser;
  const runA = join(OUT, 'runs', 'h100');
  const runB = join(OUT, 'runs', 'a100');

  beforeAll(async () => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(join(OUT, 'runs'), { recursive: true });
    const io = { cwd: OUT, quiet: true, version: 'test' };
    // Two independent engines on their own ports: the runs may overlap in time.
    await Promise.all([
      runBenchmark(config(runA, 'h100:llama-3.1-8b', 'h100'), io),
      runBenchmark(config(runB, 'a100:llama-3.1-8b', 'a100'), io),
    ]);
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('renders two runs: CDFs overlaid, scatter, timelines with server metrics, comparison, no network', async () => {
    const file = join(OUT, 'report.html');
    const result = await report([runA, runB, '-o', file, '--title', 'H100 against A100']);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.code).toBe(0);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
    expect(html).toContain('H100 against A100');
    expect(html).toContain('Comparison against h100');

    const { page, check } = await openReport(browser, file, join(OUT, 'report.png'));
    try {
      expect(check.consoleErrors).toEqual([]);
      expect(check.requests).toEqual([pathToFileURL(file).href]);
      const ids = check.charts.map((c) => c.id);
      expect(ids).toEqual(
        expect.arrayContaining([
          'chart-cdf-ttft',
          'chart-cdf-tpot',
          'chart-cdf-itl',
          'chart-cdf-e2el',
          'chart-scatter-ttft',
          'chart-timeline-0',
          'chart-timeline-1',
          'chart-server-0',
          'chart-server-1',
        ]),
      );
      for (const chart of check.charts) {
        expect(chart.rendered, chart.id).toBe(true);
        expect(chart.width, chart.id).toBeGreaterThan(300);
        expect(chart.inkedPixels, chart.id).toBeGreaterThan(2000);
      }
      // Each CDF legend lists both runs; uPlot drew one path per series.
      const legend = await page.locator('#chart-cdf-ttft .u-legend').textContent();
      expect(legend ?? '').toContain('h100');
      expect(legend ?? '').toContain('a100');
      const verdicts = await page.locator('#comparison').textContent();
      expect(verdicts ?? '').toMatch(/better|worse|no significant change/);
      // One run a side: the interval is labelled as what it is.
      expect(verdicts ?? '').toContain(
        'confidence interval (within run: a within-run interval cannot see drift',
      );
    } finally {
      await page.close();
    }
    expect(existsSync(join(OUT, 'report.png'))).toBe(true);
    expect(statSync(join(OUT, 'report.png')).size).toBeGreaterThan(10_000);
  });

  it('draws series, not just axes: hiding every series removes ink from the chart', async () => {
    const file = join(OUT, 'report.html');
    const { page } = await openReport(browser, file);
    try {
      const ink = (await page.evaluate(HIDE_EVERY_SERIES)) as Record<string, [number, number]>;
      for (const [id, [before, after]] of Object.entries(ink)) {
        expect(after, id).toBeLessThan(before);
      }
    } finally {
      await page.close();
    }
  });

  it('renders a sweep directory with throughput and p99 against load, markers drawn', async () => {
    const sweepDir = join(OUT, 'sweep');
    mkdirSync(sweepDir, { recursive: true });
    // The shape goodput sweep writes (typed, so that a change of that shape fails here), with the
    // two real runs as its points at nominal loads 4 and 8.
    const [a, b] = [await readSummary(runA), await readSummary(runB)];
    const sweep: SweepResult = {
      schemaVersion: 1,
      kind: 'goodput.sweep',
      mode: 'concurrency',
      startedAt: a.meta.startedAt,
      slo: a.meta.slo,
      minAttainment: 0.9,
      points: [
        pointFromSummary(a, runA, 'step', 'concurrency', 4, 0.9),
        pointFromSummary(b, runB, 'step', 'concurrency', 8, 0.9),
      ],
      knee: {
        load: 8,
        mode: 'concurrency',
        requestThroughput: b.request_throughput,
        meanE2elMs: b.mean_e2el_ms,
        method: 'kneedle: max of normalised throughput minus normalised mean E2EL',
      },
      capacity: { mode: 'concurrency', load: 4, attainment: 0.95, firstFailingLoad: 8, resolved: false },
      interrupted: false,
    };
    writeFileSync(join(sweepDir, 'sweep.json'), JSON.stringify(sweep));
    const file = join(OUT, 'sweep.html');
    const result = await report([sweepDir, '-o', file]);
    expect(result.code).toBe(0);
    const { page, check } = await openReport(browser, file, join(OUT, 'sweep.png'));
    try {
      expect(check.consoleErrors).toEqual([]);
      expect(check.requests).toEqual([pathToFileURL(file).href]);
      const sweepChart = check.charts.find((c) => c.id === 'chart-sweep');
      expect(sweepChart?.rendered).toBe(true);
      expect(sweepChart!.inkedPixels).toBeGreaterThan(2000);
      // the Pareto chart of capacity planning: per-user tokens/s p50 against total tokens/s,
      // one point per load, the TPOT SLO as 1000 / TPOT tokens/s
      const pareto = check.charts.find((c) => c.id === 'chart-pareto');
      expect(pareto?.rendered).toBe(true);
      expect(pareto!.inkedPixels).toBeGreaterThan(2000);
      const legend = (await page.locator('#chart-pareto .u-legend').textContent()) ?? '';
      expect(legend).toContain('Per-user output tokens/s p50');
      expect(legend).toContain('SLO: TPOT ≤ 20 ms (1000 / TPOT)');
      const notes = await page.locator('#sweep').textContent();
      expect(notes ?? '').toContain('Saturation at concurrency 8');
      expect(notes ?? '').toContain('capacity at SLO: concurrency 4');
    } finally {
      await page.close();
    }
  });

  it('writes the headline tables as Markdown', async () => {
    const result = await report([runA, runB, '--format', 'markdown']);
    expect(result.code).toBe(0);
    const md = result.stdout;
    // With -o the same text goes to the file, its directory created when missing.
    const file = join(OUT, 'md', 'nested', 'report.md');
    expect((await report([runA, runB, '--format', 'markdown', '-o', file])).code).toBe(0);
    expect(readFileSync(file, 'utf8').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '')).toBe(
      md.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, ''),
    );
    expect(md).toMatch(/^# goodput report — 2 runs/);
    expect(md).toMatch(/\| Run \| TTFT p50 \| TTFT p99 \| TPOT p50 \| TPOT p99 \|/);
    expect(md).toMatch(/\| h100 \| [\d.,]+ ms \|/);
    expect(md).toMatch(/\| a100 \| [\d.,]+ ms \|/);
    expect(md).toContain('## Comparison against h100');
    // Each run in full through the run renderer, nested under its label.
    expect(md).toMatch(/## h100\n\n### goodput run [^\n]+\n[\s\S]*#### Latency/);
    expect(md).toMatch(/## a100\n\n### goodput run /);
  });

  it('fails with a coded error naming a directory that is not a run', async () => {
    const result = await report([join(OUT, 'nope'), '-o', join(OUT, 'x.html')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('E_RESULT');
    expect(result.stderr).toContain('hint');
  });
});
