import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loopbacksClosedAfterEach } from '../../test/helpers/loopback.js';
import { writeEndless, writeTrickle } from '../../test/helpers/misbehave.js';
import type { Clock } from '../types.js';
import { chooseMetricsUrl } from './choose.js';
import { startServerMetricsRecorder } from './recorder.js';
import { probeMetricsUrl, scrapeOnce, serverRootUrl, startScraper } from './scraper.js';

const clock: Clock = { now: () => performance.now() };

/** A tiny metrics server: each scrape answers the next scripted response. */
async function metricsServer(script: Array<{ status: number; body: string } | 'hang'>, slots?: unknown) {
  let i = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === '/slots') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(slots ?? []));
      return;
    }
    const step = script[Math.min(i++, script.length - 1)]!;
    if (step === 'hang') return; // never answers: the scraper's timeout must fire
    res.writeHead(step.status, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(step.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/metrics`,
    scrapes: () => i,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const vllm = (running: number, preemptions: number) =>
  `vllm:num_requests_running{model_name="m"} ${running}\nvllm:num_preemptions_total{model_name="m"} ${preemptions}\n`;

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup) await c();
  cleanup = [];
});

describe('serverRootUrl', () => {
  it('strips /v1 and credentials', () => {
    expect(serverRootUrl('http://u:p@h:8000/v1/', '/metrics')).toBe('http://h:8000/metrics');
    expect(serverRootUrl('http://h:8000', '/metrics')).toBe('http://h:8000/metrics');
    expect(serverRootUrl('https://h/proxy/v1', '/slots')).toBe('https://h/proxy/slots');
  });
});

describe('startScraper', () => {
  it('scrapes on an interval, counts failures instead of throwing, and scrapes once more on stop', async () => {
    const srv = await metricsServer([
      { status: 200, body: vllm(1, 0) },
      { status: 500, body: 'boom' },
      { status: 200, body: 'not prometheus at all {{{' },
      'hang',
      { status: 200, body: vllm(3, 2) },
    ]);
    cleanup.push(srv.close);
    const seen: number[] = [];
    const scraper = startScraper({
      url: srv.url,
      intervalMs: 20,
      timeoutMs: 150,
      clock,
      onSample: (s) => seen.push(s.values.running ?? -1),
    });
    const deadline = Date.now() + 5000;
    while (srv.scrapes() < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await scraper.stop();
    expect(scraper.failures).toBe(3);
    expect(scraper.lastError).toBeDefined();
    expect(seen[0]).toBe(1);
    expect(seen.at(-1)).toBe(3);
    expect(scraper.samples.length).toBe(seen.length);
    expect(scraper.samples.every((s, i, all) => i === 0 || s.tMs >= all[i - 1]!.tMs)).toBe(true);
    expect(scraper.samples.at(-1)?.values.preemptionsTotal).toBe(2);
  });

  it('a loop that does not keep its samples hands each to onSample only (a watcher runs for months)', async () => {
    const srv = await metricsServer([{ status: 200, body: vllm(2, 0) }]);
    cleanup.push(srv.close);
    const seen: number[] = [];
    const scraper = startScraper({
      url: srv.url,
      intervalMs: 10,
      clock,
      keepSamples: false,
      onSample: (s) => seen.push(s.values.running ?? -1),
    });
    const deadline = Date.now() + 5000;
    while (seen.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await scraper.stop();
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seen)).toEqual(new Set([2]));
    expect(scraper.samples).toEqual([]);
  });

  it('an unreachable endpoint is only failures', async () => {
    const srv = await metricsServer([{ status: 200, body: '' }]);
    const url = srv.url;
    await srv.close();
    const scraper = startScraper({ url, intervalMs: 10, timeoutMs: 200, clock });
    await new Promise((r) => setTimeout(r, 60));
    await scraper.stop();
    expect(scraper.samples.length).toBe(0);
    expect(scraper.failures).toBeGreaterThanOrEqual(2);
    expect(await probeMetricsUrl(url, 200)).toBeUndefined();
  });

  it('reads llama.cpp /slots when /metrics has no KV usage', async () => {
    const srv = await metricsServer(
      [{ status: 200, body: 'llamacpp:requests_processing 1\nllamacpp:requests_deferred 0\n' }],
      [
        { n_ctx: 1000, is_processing: true, n_past: 250 },
        { n_ctx: 1000, is_processing: false },
      ],
    );
    cleanup.push(srv.close);
    expect(await probeMetricsUrl(srv.url)).toBe('llamacpp');
    const scraper = startScraper({ url: srv.url, intervalMs: 1000, clock });
    await scraper.stop();
    expect(scraper.samples[0]?.values).toEqual({ running: 1, waiting: 0, kvUsage: 0.125 });
  });
});

describe('startServerMetricsRecorder', () => {
  it('writes a header and one sample a line to server-metrics.jsonl', async () => {
    const srv = await metricsServer([
      { status: 200, body: vllm(1, 0) },
      { status: 200, body: vllm(2, 1) },
      { status: 200, body: vllm(2, 4) },
    ]);
    cleanup.push(srv.close);
    const dir = await mkdtemp(join(tmpdir(), 'goodput-sm-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const rec = startServerMetricsRecorder({
      metricsUrl: srv.url,
      dir,
      runId: 'run-1',
      startedAt: new Date(0).toISOString(),
      clock,
      intervalMs: 15,
    });
    const deadline = Date.now() + 5000;
    while (srv.scrapes() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const summary = await rec.finish();
    const lines = (await readFile(join(dir, 'server-metrics.jsonl'), 'utf8')).trim().split('\n');
    const header = JSON.parse(lines[0]!);
    expect(header).toMatchObject({ schemaVersion: 1, kind: 'goodput.server-metrics', runId: 'run-1' });
    expect(lines.length - 1).toBe(summary.samples);
    expect(summary.preemptions).toBe(JSON.parse(lines.at(-1)!).values.preemptionsTotal);
  });
});

describe('chooseMetricsUrl and the baseline scrape', () => {
  it("uses the target's /metrics only when it answers, and returns its scrape as the baseline", async () => {
    const srv = await metricsServer([{ status: 200, body: vllm(0, 5) }]);
    cleanup.push(srv.close);
    const base = srv.url.replace('/metrics', '/v1');
    const chosen = await chooseMetricsUrl({ enabled: true }, base);
    expect(chosen.url).toBe(srv.url);
    expect(chosen.baseline?.values.preemptionsTotal).toBe(5);
    expect(await chooseMetricsUrl({ enabled: false }, base)).toEqual({});

    const dead = await metricsServer([{ status: 404, body: 'not found' }]);
    cleanup.push(dead.close);
    const none = await chooseMetricsUrl({ enabled: true }, dead.url.replace('/metrics', ''));
    expect(none.url).toBeUndefined();
    expect(none.note).toMatch(/no Prometheus metrics at .*\/metrics/);
    // An explicit URL is kept even when it does not answer yet: its failures will be counted.
    const explicit = await chooseMetricsUrl({ enabled: true, url: dead.url }, base);
    expect(explicit.url).toBe(dead.url);
    expect(explicit.baseline).toBeUndefined();
  });

  it('records the baseline as the first sample and waits an interval before scraping again', async () => {
    const srv = await metricsServer([{ status: 200, body: vllm(2, 9) }]);
    cleanup.push(srv.close);
    let now = 1000;
    const fixed: Clock = { now: () => now };
    const scraper = startScraper({
      url: srv.url,
      intervalMs: 60_000,
      clock: fixed,
      baseline: { engine: 'vllm', values: { preemptionsTotal: 4 } },
    });
    expect(scraper.samples).toEqual([{ tMs: 1000, engine: 'vllm', values: { preemptionsTotal: 4 } }]);
    await new Promise((r) => setTimeout(r, 50));
    expect(srv.scrapes()).toBe(0);
    now = 2000;
    await scraper.stop();
    expect(srv.scrapes()).toBe(1);
    expect(scraper.samples.map((x) => x.values.preemptionsTotal)).toEqual([4, 9]);
  });
});

describe('scrapeOnce against a hostile metrics endpoint', () => {
  const serve = loopbacksClosedAfterEach();

  it('an endless body is cut at 16 MiB: a failure with its cause, memory flat', async () => {
    const lb = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      writeEndless(res, Buffer.from(`${vllm(1, 0)}`.repeat(2000)));
    });
    const rss0 = process.memoryUsage().rss;
    const err = await scrapeOnce(`${lb.url}/metrics`, { timeoutMs: 20_000 }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/more than 16 MiB/);
    expect(process.memoryUsage().rss - rss0).toBeLessThan(200 * 1024 * 1024);
  });

  it('a trickled body fails at the timeout', async () => {
    const lb = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      writeTrickle(res, vllm(1, 0), 50);
    });
    const t0 = performance.now();
    const err = await scrapeOnce(`${lb.url}/metrics`, { timeoutMs: 500 }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/did not finish its answer within 500 ms/);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});
