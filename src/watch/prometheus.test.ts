/**
 * The exporter against real Prometheus tooling: `promtool check metrics` is clean on a live
 * exposition; a real Prometheus (Debian's /usr/bin/prometheus) scrapes the exporter on loopback
 * every second and its query API returns exactly what watch stored; no key in the exposition.
 * (The emitted dashboard's expressions and alerts run against Prometheus in test/alerts.e2e.test.ts.)
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type SimServer, startSim } from '../sim/index.js';
import { WatchStore } from '../store/index.js';
import { WatchExporter } from './exporter.js';
import { parseRollbackFlag } from './rollback.js';
import { runWatch } from './watcher.js';

const CANARY = 'key-canary-prom-5e1b7d9a3c';
let sim: SimServer;
let dir: string;
let exporter: WatchExporter;
let exporterPort: number;
let prometheus: ChildProcess | undefined;
let promUrl: string;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function query(
  expr: string,
): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; data: { result: never[] }; error?: string };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
  return body.data.result;
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'goodput-prom-'));
  sim = await startSim({ host: '127.0.0.1', port: 0, apiKey: CANARY, seed: 5 });
  exporter = new WatchExporter({ thresholdsMs: { ttft: [100, 37.5] } });
  exporterPort = await exporter.listen(0);
  const promPort = await freePort();
  promUrl = `http://127.0.0.1:${promPort}`;
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: goodput\n    static_configs:\n      - targets: ['127.0.0.1:${exporterPort}']\n`,
  );
  prometheus = spawn(
    '/usr/bin/prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ],
    { stdio: 'ignore' },
  );
  await until('prometheus ready', async () => ((await fetch(`${promUrl}/-/ready`)).ok ? true : undefined));
  // Prometheus applies scrape targets on a 5 s tick: wait for its first scrape of the exporter.
  await until('first scrape', async () => ((await query('up == 1')).length > 0 ? true : undefined));
}, 20_000);

afterAll(async () => {
  prometheus?.kill('SIGTERM');
  await exporter?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('promtool check metrics and the Prometheus query API', async () => {
  let rounds = 0;
  await runWatch(
    {
      targets: [{ name: 'sim', url: sim.url, model: sim.model, apiKey: CANARY, slo: { ttftMs: 100 } }],
      api: 'chat',
      sampling: { temperature: 0, maxTokens: 6, ignoreEos: true },
      promptTokens: 32,
      load: { mode: 'closed', concurrency: 4, requests: 4, warmup: 0, timeoutMs: 10_000, maxRetries: 0 },
      seed: 2,
      everyMs: 700,
      jitter: 0,
      rounds: 6,
      storePath: join(dir, 'goodput.db'),
      retainMs: 86_400_000,
      rule: parseRollbackFlag('p99(ttft)>0 for 4 windows'),
      cooldownMs: 3_600_000,
      serverMetrics: { enabled: true },
    },
    {
      stderr: { write: () => undefined },
      cwd: dir,
      env: {},
      exporter,
      onRound: () => {
        rounds++;
        // some failures, so that the error series exist
        if (rounds === 2) sim.setFailures({ serverError: 0.5 });
        if (rounds === 3) sim.setFailures({});
      },
    },
  );
  const text = await (await fetch(`http://127.0.0.1:${exporterPort}/metrics`)).text();
  expect(text).not.toContain(CANARY);
  const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  expect(check.stdout + check.stderr).toBe('');
  expect(check.status).toBe(0);

  // What watch stored, to compare with what Prometheus scraped.
  const store = WatchStore.open(join(dir, 'goodput.db'), { readonly: true });
  const stored = store.rounds();
  store.close();
  const attempted = stored.reduce((a, r) => a + r.attempted, 0);
  const ttftCount = stored.reduce((a, r) => a + r.histograms.ttft.count, 0);
  const within100 = stored.reduce(
    (a, r) => a + r.histograms.ttft.fractionAtOrBelow(100) * r.histograms.ttft.count,
    0,
  );
  const failed = stored.reduce((a, r) => a + r.failed, 0);
  expect(failed).toBeGreaterThan(0);

  // After the last round, wait for a scrape that has it all.
  await until('final scrape', async () => {
    const r = await query('sum(goodput_requests_total)');
    return r[0] && Number(r[0].value[1]) === attempted ? true : undefined;
  });
  const one = async (expr: string) => Number((await query(expr))[0]?.value[1]);
  expect(await one('sum(goodput_ttft_seconds_count)')).toBe(ttftCount);
  expect(await one('sum(goodput_requests_total{outcome="error"})')).toBe(failed);
  expect(await one('sum(goodput_rollbacks_total)')).toBe(1);
  expect(await one('sum(goodput_rounds_total)')).toBe(6);
  // The last valid round's end: after the last stored round's start, not after now.
  const lastValid = Math.max(...stored.filter((r) => r.valid).map((r) => r.startedAt + r.durationMs));
  const lastValidAt = await one('goodput_last_valid_round_timestamp_seconds');
  expect(lastValidAt * 1000).toBeGreaterThanOrEqual(lastValid - 1);
  expect(lastValidAt * 1000).toBeLessThanOrEqual(Date.now());
  // The SLO is a bucket boundary: bucket{le="0.1"}/count is the exact share within 100 ms.
  expect(
    await one('sum(goodput_ttft_seconds_bucket{le="0.1"}) / sum(goodput_ttft_seconds_count)'),
  ).toBeCloseTo(within100 / ttftCount, 9);
  expect(await one('count(goodput_ttft_seconds_bucket{le="0.0375"})')).toBe(1);
}, 40_000);
