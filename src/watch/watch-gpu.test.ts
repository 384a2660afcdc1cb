/**
 * watch with GPU telemetry, end to end on the embedded engine: a loopback fake DCGM exporter
 * (the repo's fixture page, its values moving with every scrape) is scraped all along; each
 * round's store row, summary and `goodput_round_metric` gauges carry the figures of exactly
 * the scrapes since the previous round. A failing or hostile exporter (refused, garbage, huge
 * or endless body, slow headers, trickle) leaves every round measured, with no GPU figure and
 * one note per change of state, and watch ends in bounded time.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { dcgmPage } from '../../test/helpers/dcgm-fixture.js';
import { freePort, loopbacksClosedAfterEach } from '../../test/helpers/loopback.js';
import { writeEndless, writeTrickle } from '../../test/helpers/misbehave.js';
import { metric } from '../metrics/index.js';
import { WatchStore } from '../store/index.js';
import { WatchExporter } from './exporter.js';
import { windowGpuMetric } from './history.js';
import { parseRollbackFlag } from './rollback.js';
import type { RoundResult } from './round.js';
import { runWatch, type WatchConfig } from './watcher.js';

/**
 * The fixture as served at scrape n: GPU 0 at n % utilisation, GPU 1 at n + 10 (so their mean
 * is n + 5); framebuffer used 1000 + n and 2000 + n MiB (total 3000 + 2n); graphics engine
 * active n / 100 on both.
 */
function page(n: number): string {
  return dcgmPage((metric, gpu) => {
    if (metric === 'DCGM_FI_DEV_GPU_UTIL') return gpu === '0' ? n : n + 10;
    if (metric === 'DCGM_FI_DEV_FB_USED') return gpu === '0' ? 1000 + n : 2000 + n;
    if (metric === 'DCGM_FI_PROF_GR_ENGINE_ACTIVE') return n / 100;
    return undefined;
  });
}

const serve = loopbacksClosedAfterEach();
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'goodput-watch-gpu-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function config(gpuMetricsUrl: string, over: Partial<WatchConfig> = {}): WatchConfig {
  return {
    targets: [{ name: 'embedded', slo: { ttftMs: 1000 }, gpuMetricsUrl }],
    api: 'chat',
    sampling: { temperature: 0, maxTokens: 4, ignoreEos: true },
    promptTokens: 32,
    load: { mode: 'closed', concurrency: 2, requests: 2, warmup: 0, timeoutMs: 10_000, maxRetries: 0 },
    seed: 1,
    everyMs: 300,
    jitter: 0,
    storePath: join(dir, 'goodput.db'),
    retainMs: 86_400_000,
    cooldownMs: 3_600_000,
    serverMetrics: { enabled: false },
    gpuScrapeIntervalMs: 100,
    ...over,
  };
}

async function watch(cfg: WatchConfig, exporter?: WatchExporter) {
  const log: string[] = [];
  const results: RoundResult[] = [];
  const t0 = performance.now();
  const outcome = await runWatch(cfg, {
    stderr: { write: (s: string) => log.push(s) },
    cwd: dir,
    env: {},
    ...(exporter ? { exporter } : {}),
    onRound: (_t, r) => results.push(r),
  });
  const store = WatchStore.open(cfg.storePath, { readonly: true });
  const rounds = store.rounds();
  store.close();
  return { outcome, log: log.join(''), results, rounds, ms: performance.now() - t0 };
}

/** `goodput_round_metric{metric="<id>"}` as the exporter serves it. */
function gauge(text: string, id: string): number | undefined {
  const line = text
    .split('\n')
    .find((l) => l.startsWith('goodput_round_metric{') && l.includes(`metric="${id}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** A series of the target as the exporter serves it (undefined: absent). */
function counter(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('watch --gpu-metrics-url', () => {
  test('each round carries the figures of exactly the scrapes since the previous round', async () => {
    let n = 0;
    const dcgm = await serve((_q, res) => {
      n++;
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(page(n));
    });
    const exporter = new WatchExporter();
    const { outcome, results, rounds, log } = await watch(
      config(`${dcgm.url}/metrics`, { rounds: 5 }),
      exporter,
    );
    expect(outcome.rounds).toBe(5);
    expect(rounds).toHaveLength(5);

    // The windows follow one another: round k read scrapes first..first+samples-1, the next
    // round starts at the scrape after. Each figure is the window's, as the served values say.
    let next = 1;
    let withSamples = 0;
    for (const [i, r] of rounds.entries()) {
      expect(r.completed, 'the probes still ran').toBe(r.attempted);
      const gpu = r.server?.gpu;
      expect(gpu, `round ${r.round} has a GPU window`).toBeDefined();
      expect(gpu!.scrapeFailures).toBe(0);
      const summary = results[i]!.summary;
      if (gpu!.samples === 0) {
        expect(gpu!.utilPct).toBeUndefined();
        expect(metric('gpu_util').read(summary)).toBeUndefined();
        continue;
      }
      withSamples++;
      const first = next;
      const last = first + gpu!.samples - 1;
      next = last + 1;
      expect(gpu!.gpuCount).toBe(2);
      expect(gpu!.utilPct).toMatchObject({ min: first + 5, max: last + 5, last: last + 5 });
      expect(gpu!.utilPct!.mean).toBeCloseTo((first + last) / 2 + 5, 9);
      expect(gpu!.fbUsedMiB!.max).toBe(3000 + 2 * last);
      expect(gpu!.grEngineActive!.mean).toBeCloseTo((first + last) / 200, 9);
      // The round summary reads them through the catalogue, as a run's does.
      expect(metric('gpu_util').read(summary)).toBeCloseTo(((first + last) / 2 + 5) / 100, 9);
      expect(metric('gpu_fb_used_peak').read(summary)).toBe(3000 + 2 * last);
      expect(metric('gpu_gr_active').read(summary)).toBeCloseTo((first + last) / 200, 9);
    }
    expect(withSamples, 'at 100 ms scrapes, most 300 ms rounds see a scrape').toBeGreaterThanOrEqual(3);
    expect(next - 1).toBeLessThanOrEqual(n);

    // The exporter's gauges hold the last valid round's figures.
    const lastValid = results.filter((r) => r.stored.valid).at(-1)!.summary;
    const text = await exporter.metrics();
    for (const id of ['gpu_util', 'gpu_gr_active', 'gpu_fb_used_peak', 'gpu_power']) {
      const want = metric(id).read(lastValid);
      if (want === undefined) expect(gauge(text, id)).toBeUndefined();
      else expect(gauge(text, id)).toBeCloseTo(want, 6);
    }
    expect(log).toContain('GPU metrics from');
    expect(log).not.toContain('failed');
    expect(counter(text, 'goodput_gpu_scrape_failures_total')).toBe(0);

    // History: a window's GPU figures are those of every scrape its valid rounds read.
    const store = WatchStore.open(join(dir, 'goodput.db'), { readonly: true });
    const windows = store.windows(3_600_000);
    store.close();
    for (const w of windows) {
      const scrapes = rounds
        .filter((r) => r.valid && r.startedAt >= w.start && r.startedAt < w.start + 3_600_000)
        .flatMap((r) => {
          const g = r.server!.gpu!;
          return g.samples === 0 ? [] : Array.from({ length: g.samples }, (_, j) => g.utilPct!.min - 5 + j);
        });
      expect(w.gpu!.samples).toBe(scrapes.length);
      if (scrapes.length === 0) continue;
      const mean = scrapes.reduce((a, b) => a + b, 0) / scrapes.length;
      expect(windowGpuMetric(w, 'gpu_util')).toBeCloseTo((mean + 5) / 100, 9);
      expect(windowGpuMetric(w, 'gpu_fb_used_peak')).toBe(3000 + 2 * Math.max(...scrapes));
      expect(windowGpuMetric(w, 'gpu_gr_active')).toBeCloseTo(mean / 100, 9);
    }
    expect(windows.reduce((a, w) => a + (w.gpu?.samples ?? 0), 0)).toBeGreaterThan(0);
  }, 30_000);

  test('a rollback rule on a GPU figure reads each round window, like any catalogue metric', async () => {
    let n = 0;
    const dcgm = await serve((_q, res) => {
      n++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(page(n));
    });
    const rule = parseRollbackFlag('gpu_util>0.01 for 2 windows');
    const { outcome, results } = await watch(
      config(`${dcgm.url}/metrics`, { rounds: 4, rule, gpuScrapeIntervalMs: 50 }),
    );
    // Utilisation is over 1 % from the first scrape on: every valid round that saw a scrape is
    // bad; one that saw none is unknown (not bad) and breaks the streak, an invalid one is skipped.
    const util = results.map((r) => (r.stored.valid ? metric('gpu_util').read(r.summary) : null));
    let streak = 0;
    let fired: number | undefined;
    for (const [i, u] of util.entries()) {
      if (u === null) continue;
      streak = u === undefined ? 0 : streak + 1;
      if (streak === 2 && fired === undefined) fired = i;
    }
    expect(fired, 'two measured rounds in a row').toBeDefined();
    expect(outcome.rollbacks).toBe(1);
    const store = WatchStore.open(join(dir, 'goodput.db'), { readonly: true });
    const [rollback] = store.rollbacks();
    store.close();
    expect(rollback!.round).toBe(fired! + 1);
    const evidence = (rollback!.evidence as { evidence: Array<{ value: number }> }).evidence;
    expect(evidence.at(-1)!.value).toBe(util[fired!]);
  }, 30_000);

  test('nothing listening: every round is measured, says it had no GPU sample, one note', async () => {
    const port = await freePort();
    const exporter = new WatchExporter();
    const { outcome, rounds, results, log } = await watch(
      config(`http://127.0.0.1:${port}/metrics`, { rounds: 4 }),
      exporter,
    );
    expect(outcome.rounds).toBe(4);
    for (const [i, r] of rounds.entries()) {
      expect(r.completed).toBe(r.attempted);
      expect(r.attempted).toBe(2);
      expect(r.server?.gpu).toMatchObject({ samples: 0, gpuCount: 0 });
      expect(r.server?.gpu?.utilPct).toBeUndefined();
      for (const id of ['gpu_util', 'gpu_gr_active', 'gpu_fb_used_peak', 'gpu_power'])
        expect(metric(id).read(results[i]!.summary)).toBeUndefined();
    }
    const failures = rounds.reduce((a, r) => a + (r.server?.gpu?.scrapeFailures ?? 0), 0);
    expect(failures).toBeGreaterThan(0);
    // The exporter counts them, for an alert on a broken exporter (gpu_* gauges are absent).
    expect(counter(await exporter.metrics(), 'goodput_gpu_scrape_failures_total')).toBe(failures);
    expect(log.match(/GPU metrics: scraping .* failed/g)).toHaveLength(1);
    expect(log).toMatch(/no GPU sample/);
  }, 30_000);

  test('an exporter that recovers: a note when it fails, one when it answers again', async () => {
    let n = 0;
    const dcgm = await serve((_q, res) => {
      n++;
      res.writeHead(n <= 3 ? 503 : 200, { 'content-type': 'text/plain' });
      res.end(n <= 3 ? 'warming up' : page(n));
    });
    const { rounds, log } = await watch(config(`${dcgm.url}/metrics`, { rounds: 5 }));
    expect(log.match(/GPU metrics: scraping .* failed \(.*HTTP 503\)/g)).toHaveLength(1);
    expect(log.match(/answers again/g)).toHaveLength(1);
    expect(rounds.reduce((a, r) => a + (r.server?.gpu?.scrapeFailures ?? 0), 0)).toBe(3);
    const later = rounds.filter((r) => (r.server?.gpu?.samples ?? 0) > 0);
    expect(later.length).toBeGreaterThan(0);
    // The first successful scrape was the 4th: its figures start there.
    expect(later[0]!.server!.gpu!.utilPct!.min).toBe(4 + 5);
  }, 30_000);

  test('a page of 12 MiB (every series repeated) is read, parsed in slices, and gives the same GPUs', async () => {
    const big = page(1).repeat(Math.ceil((12 * 1024 * 1024) / page(1).length));
    const dcgm = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(big);
    });
    const { rounds, log } = await watch(
      config(`${dcgm.url}/metrics`, { rounds: 3, everyMs: 600, gpuScrapeIntervalMs: 400 }),
    );
    for (const r of rounds) expect(r.completed).toBe(r.attempted);
    const seen = rounds.filter((r) => (r.server?.gpu?.samples ?? 0) > 0);
    expect(seen.length).toBeGreaterThan(0);
    for (const r of seen) expect(r.server!.gpu).toMatchObject({ gpuCount: 2, utilPct: { min: 6, max: 6 } });
    expect(log).not.toContain('failed');
  }, 30_000);

  test('watch ends without waiting for a scrape in flight (a slow exporter does not delay the exit)', async () => {
    const dcgm = await serve(() => undefined); // headers never come
    let lastRoundAt = 0;
    const t0 = performance.now();
    // A 3 s interval gives each scrape a 5 s timeout: the first is still in flight when round 3 ends.
    const outcome = await runWatch(config(`${dcgm.url}/metrics`, { rounds: 3, gpuScrapeIntervalMs: 3000 }), {
      stderr: { write: () => undefined },
      cwd: dir,
      env: {},
      onRound: () => {
        lastRoundAt = performance.now();
      },
    });
    const ended = performance.now();
    expect(outcome.rounds).toBe(3);
    expect(lastRoundAt - t0, 'the rounds ended before the scrape timed out').toBeLessThan(4500);
    expect(ended - lastRoundAt).toBeLessThan(1500);
  }, 30_000);

  const hostile: Array<[string, (res: ServerResponse) => void]> = [
    ['garbage', (res) => res.end('\u0000\u00ff<html>not metrics</html>\n'.repeat(100))],
    [
      'a page of another exporter',
      (res) => res.end('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 3\n'),
    ],
    [
      'an endless body',
      (res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        writeEndless(res, Buffer.from(page(1).repeat(50)));
      },
    ],
    [
      'a trickled body',
      (res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        writeTrickle(res, page(1), 20);
      },
    ],
    ['headers that never come', () => undefined],
  ];
  test.each(hostile)(
    '%s: rounds measured, no GPU figure, one note, bounded',
    async (_name, misbehave) => {
      const dcgm = await serve((_q, res) => misbehave(res));
      const { outcome, rounds, ms, log } = await watch(
        // Scrapes time out after 1 s (twice the interval, at least 1 s): the 4th round ends after the first did.
        config(`${dcgm.url}/metrics`, { rounds: 4, everyMs: 400, gpuScrapeIntervalMs: 500 }),
      );
      expect(outcome.rounds).toBe(4);
      for (const r of rounds) {
        expect(r.completed).toBe(r.attempted);
        expect(r.server?.gpu?.samples).toBe(0);
      }
      expect(rounds.reduce((a, r) => a + (r.server?.gpu?.scrapeFailures ?? 0), 0)).toBeGreaterThan(0);
      expect(log.match(/GPU metrics: scraping .* failed/g)).toHaveLength(1);
      // 4 rounds 400 ms apart, then at most one scrape in flight (1 s timeout): well under 10 s.
      expect(ms).toBeLessThan(10_000);
    },
    30_000,
  );
});
