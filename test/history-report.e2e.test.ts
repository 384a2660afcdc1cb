/**
 * `goodput history --report` drawn in headless Chromium (issue 15.5): the x axis spans the
 * data's own time range (one window included) with UTC tick labels, attainment is a 0–100 %
 * axis, the page has the report's styling, and every chart draws.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadChartAssets } from '../src/report/html/index.js';
import type { StoredRollback, WindowFigures } from '../src/store/index.js';
import { renderHistoryHtml } from '../src/watch/history.js';

const OUT = resolve('test-output/history-report');
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 2, 14, 0, 0);

function chromiumPath(): string {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim() || '/usr/bin/chromium';
  } catch {
    return '/usr/bin/chromium';
  }
}

function win(i: number, attainment: number): WindowFigures {
  const l = (p50: number) => ({ count: 10, p50, p90: p50 * 1.5, p99: p50 * 2, mean: p50 * 1.1 });
  return {
    target: 'prod',
    start: T0 + i * HOUR,
    rounds: 12,
    invalidRounds: 0,
    attempted: 120,
    failed: 1,
    good: Math.round(120 * attainment),
    attainment,
    errors: { HTTP_FORBIDDEN: 1 },
    latency: { ttft: l(100 + i * 10), tpot: l(20), itl: l(20), e2el: l(900) },
  };
}

let browser: Browser;
beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--no-sandbox', '--headless', '--disable-gpu'],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** Per chart: id, x scale, y scale, x tick labels as drawn. */
const INSPECT = `(() => window.goodputCharts.map((c) => ({
  id: c.el.id,
  x: [c.plot.scales.x.min, c.plot.scales.x.max],
  y: [c.plot.scales.y.min, c.plot.scales.y.max],
  ticks: (c.plot.axes[0]._values || []).filter(Boolean),
  rendered: c.el.getAttribute('data-rendered') === 'true',
})))()`;

async function open(windows: WindowFigures[], rollbacks: StoredRollback[], name: string) {
  const html = renderHistoryHtml(windows, rollbacks, await loadChartAssets(), {
    windowMs: HOUR,
    version: 'test',
  });
  const file = join(OUT, `${name}.html`);
  writeFileSync(file, html);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(
    'window.goodputCharts && window.goodputCharts.every((c) => c.el.getAttribute("data-rendered") === "true")',
    undefined,
    { timeout: 10_000 },
  );
  const charts = (await page.evaluate(INSPECT)) as Array<{
    id: string;
    x: number[];
    y: number[];
    ticks: string[];
    rendered: boolean;
  }>;
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  const styled = await page.evaluate('getComputedStyle(document.querySelector("table.data")).borderCollapse');
  await page.close();
  return { html, charts, errors, styled };
}

describe('history --report in a browser', () => {
  it('one window: the x axis is that window, in UTC, attainment 0–100 %', async () => {
    const { charts, errors, html, styled } = await open([win(0, 0.97)], [], 'one-window');
    expect(errors).toEqual([]);
    expect(charts.map((c) => c.id)).toEqual(['trend-0-ttft', 'trend-0-tpot', 'trend-0-attainment']);
    for (const c of charts) {
      expect(c.rendered).toBe(true);
      expect(c.x).toEqual([T0 / 1000, (T0 + HOUR) / 1000]);
      expect(c.ticks.length).toBeGreaterThan(0);
      // ticks give a UTC time in the window, the first with the day under it: no other day, no local time
      expect(c.ticks[0]).toMatch(/^1[45]:\d\d\n12-02$/);
      for (const t of c.ticks.slice(1)) expect(t).toMatch(/^1[45]:\d\d$/);
    }
    expect(charts[2]!.y).toEqual([0, 100]);
    expect(html).toContain('2026-12-02 14:00 to 2026-12-02 15:00 UTC');
    expect(styled).toBe('collapse');
  });

  it('several windows with a rollback: the range is the data’s, the rollback inside it', async () => {
    const rollback: StoredRollback = {
      target: 'prod',
      at: T0 + 2.5 * HOUR,
      round: 30,
      rule: 'ttft_p99_ms > 200 for 5m',
      evidence: {},
    };
    const { charts, errors, html } = await open(
      [win(0, 1), win(1, 0.9), win(2, 0.5)],
      [rollback],
      'three-windows',
    );
    expect(errors).toEqual([]);
    for (const c of charts) expect(c.x).toEqual([T0 / 1000, (T0 + 3 * HOUR) / 1000]);
    expect(html).toContain('rollback: prod at 2026-12-02T16:30:00.000Z');
    expect(html).toContain('<table class="data">');
  });
});
