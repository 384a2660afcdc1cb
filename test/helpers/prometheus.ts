/**
 * A real Prometheus (Debian's /usr/bin/prometheus) for end-to-end tests: started on a free
 * loopback port with a temporary config, rule files and TSDB directory, and its HTTP API.
 *
 * @module
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const PROMETHEUS = ['/usr/bin/prometheus', '/usr/local/bin/prometheus'].find((p) => existsSync(p));

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Polls fn every `everyMs` until it returns a value, or throws after `ms`. */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  ms = 15_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface MatrixSeries {
  metric: Record<string, string>;
  values: Array<[number, string]>;
}

export interface PromAlert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
  activeAt: string;
}

export interface RunningPrometheus {
  url: string;
  query(expr: string): Promise<VectorSample[]>;
  queryRange(expr: string, start: number, end: number, step: number): Promise<MatrixSeries[]>;
  /** Prometheus's own clock (Unix seconds). */
  time(): Promise<number>;
  alerts(): Promise<PromAlert[]>;
  stop(): void;
}

async function api<T>(url: string): Promise<T> {
  const body = (await (await fetch(url)).json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`${url}: ${body.error}`);
  return body.data;
}

/** Starts Prometheus scraping `target` (host:port) and evaluating `ruleFiles` every `intervalMs`; resolves once it scraped the target. */
export async function startPrometheus(
  dir: string,
  opts: { target: string; ruleFiles?: string[]; intervalMs: number },
): Promise<RunningPrometheus> {
  if (!PROMETHEUS) throw new Error('prometheus is not installed');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const iv = `${opts.intervalMs}ms`;
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      `  scrape_interval: ${iv}`,
      `  scrape_timeout: ${iv}`,
      `  evaluation_interval: ${iv}`,
      ...(opts.ruleFiles?.length
        ? ['rule_files:', ...opts.ruleFiles.map((f) => `  - ${JSON.stringify(f)}`)]
        : []),
      'scrape_configs:',
      '  - job_name: goodput',
      '    static_configs:',
      `      - targets: ['${opts.target}']`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  );
  const p: RunningPrometheus = {
    url,
    query: (expr) =>
      api<{ result: VectorSample[] }>(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`).then(
        (d) => d.result,
      ),
    queryRange: (expr, start, end, step) =>
      api<{ result: MatrixSeries[] }>(
        `${url}/api/v1/query_range?query=${encodeURIComponent(expr)}&start=${start}&end=${end}&step=${step}`,
      ).then((d) => d.result),
    time: async () =>
      Number((await api<{ result: [number, string] }>(`${url}/api/v1/query?query=time()`)).result[1]),
    alerts: () => api<{ alerts: PromAlert[] }>(`${url}/api/v1/alerts`).then((d) => d.alerts),
    stop: () => {
      child.kill('SIGTERM');
    },
  };
  try {
    await until('prometheus ready', async () => ((await fetch(`${url}/-/ready`)).ok ? true : undefined));
    // Prometheus applies scrape targets on a 5 s tick: wait for its first scrape.
    await until('first scrape', async () => ((await p.query('up == 1')).length > 0 ? true : undefined));
  } catch (e) {
    p.stop();
    throw e;
  }
  return p;
}
