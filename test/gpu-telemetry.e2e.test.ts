/**
 * GPU telemetry end to end over real loopback HTTP: a small server exposes the DCGM exporter
 * fixture (two GPUs) at /metrics, its values changing every scrape, while the embedded engine
 * serves the run (`goodput run --gpu-metrics-url`). The summary's server block carries the GPU
 * figures, equal to what the samples kept in gpu-metrics.jsonl say; the run table shows them.
 * Hostile exporters (a huge body, a body that never ends, garbage, nothing listening) cost a
 * note, never the run; a malformed URL is a usage error.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metric } from '../src/metrics/index.js';
import { roundSig } from '../src/report/html/charts.js';
import { collect, readGpuSamples, readSummary } from '../src/results/index.js';
import { gpuAggregate } from '../src/server-metrics/index.js';
import { runCliInProcess } from './helpers/cli.js';
import { dcgmPage } from './helpers/dcgm-fixture.js';
import { startTinyServer } from './helpers/sse-server.js';

/** The fixture with utilisation and power moving with the scrape number. */
function exporterPage(n: number): string {
  return dcgmPage((metric, gpu) => {
    if (metric === 'DCGM_FI_DEV_GPU_UTIL') return gpu === '0' ? 40 + 10 * (n % 5) : 10 + 5 * (n % 3);
    if (metric === 'DCGM_FI_DEV_POWER_USAGE') return gpu === '0' ? 300.5 + n : 200.5 + 2 * n;
    return undefined;
  });
}

interface EmbeddedChart {
  id: string;
  series: Array<{ label: string; data: { x: number[]; y: number[] } }>;
}

function embeddedCharts(html: string): EmbeddedChart[] {
  const m = /<script type="application\/json" id="goodput-charts">([\s\S]*?)<\/script>/.exec(html);
  return JSON.parse(m![1]!) as EmbeddedChart[];
}

/** Opens the report in headless Chromium (no network): the chart is drawn, with ink on its canvas. */
async function expectDrawn(file: string, id: string): Promise<void> {
  let path = '/usr/bin/chromium';
  try {
    path = execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim() || path;
  } catch {}
  const browser = await chromium.launch({ executablePath: path });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const url = pathToFileURL(file).href;
    await page.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
    await page.goto(url);
    await page.waitForFunction(
      `document.getElementById('${id}')?.getAttribute('data-rendered') === 'true'`,
      undefined,
      {
        timeout: 10_000,
      },
    );
    const ink = await page.evaluate(`(() => {
      const c = document.querySelector('#${id} canvas');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      return n;
    })()`);
    expect(ink as number).toBeGreaterThan(2000);
  } finally {
    await browser.close();
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const servers: Server[] = [];

async function serve(handler: Handler): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

let work: string;
let scrapes = 0;
let exporterUrl: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-gpu-e2e-'));
  exporterUrl = await serve((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(exporterPage(scrapes++));
  });
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  rmSync(work, { recursive: true, force: true });
});

const RUN = ['run', '--requests', '16', '--concurrency', '2', '--prompt-tokens', '32', '--max-tokens', '24'];

async function run(name: string, gpuUrl: string, extra: string[] = []) {
  const out = join(work, name);
  const res = await runCliInProcess([...RUN, '--gpu-metrics-url', gpuUrl, '--out', out, ...extra], {
    cwd: work,
  });
  return { ...res, out };
}

describe('--gpu-metrics-url against a DCGM exporter', () => {
  it('the server block carries the GPUs, as the kept samples say; the run table shows them', async () => {
    const { code, stdout, stderr, out } = await run('ok', exporterUrl, ['--scrape-interval', '50ms']);
    expect(code, stderr).toBe(0);
    const summary = await readSummary(out);
    const gpu = summary.server?.gpu;
    expect(gpu).toBeDefined();
    // The embedded engine's own /metrics is scraped beside the exporter.
    expect(summary.server!.engine).toBe('goodput-sim');
    const samples = await collect(readGpuSamples(out));
    expect(samples.length).toBe(gpu!.samples);
    expect(samples.length).toBeGreaterThanOrEqual(2);
    expect(gpu!.gpuCount).toBe(2);
    expect(gpu!.gpus.map((g) => [g.gpu, g.modelName, g.hostname])).toEqual([
      ['0', 'NVIDIA H100 80GB HBM3', 'gpu-node-7'],
      ['1', 'NVIDIA H100 80GB HBM3', 'gpu-node-7'],
    ]);
    // Recomputed from the kept samples: mean utilisation over GPUs, total power, per scrape.
    const util = samples.map((s) => (s.gpus[0]!.values.utilPct! + s.gpus[1]!.values.utilPct!) / 2);
    const power = samples.map((s) => s.gpus[0]!.values.powerW! + s.gpus[1]!.values.powerW!);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(gpu!.utilPct!.mean).toBeCloseTo(mean(util), 9);
    expect(gpu!.utilPct!.min).toBe(Math.min(...util));
    expect(gpu!.powerW!.max).toBeCloseTo(Math.max(...power), 9);
    expect(gpu!.fbUsedMiB).toEqual({ min: 150030, mean: 150030, max: 150030, last: 150030 });
    expect(gpu!.fbTotalMiB).toBe(75058 + 6021 + 74972 + 6107);
    expect(gpu!.grEngineActive!.mean).toBeCloseTo((0.812345 + 0.298765) / 2, 9);
    // The values moved during the run, and the samples are the exporter's pages.
    expect(new Set(samples.map((s) => s.gpus[0]!.values.utilPct)).size).toBeGreaterThan(1);
    expect(gpuAggregate(samples[0]!.gpus).fbUsedMiB).toBe(150030);
    // Gate, compare and report read the same figures through the catalogue.
    expect(metric('gpu_util')!.read(summary)).toBeCloseTo(gpu!.utilPct!.mean / 100, 12);
    expect(metric('gpu_power')!.read(summary)).toBe(gpu!.powerW!.mean);
    expect(metric('gpu_fb_used_peak')!.read(summary)).toBe(150030);
    expect(stdout).toMatch(/GPU utilisation, mean of 2 GPUs/);
    expect(stdout).toMatch(/GPU power W, total/);
    expect(stdout).toMatch(/2 × NVIDIA H100 80GB HBM3 on gpu-node-7/);

    // The HTML report draws the GPU timeline beside the server's, from the kept samples.
    const html = join(work, 'report.html');
    const report = await runCliInProcess(['report', out, '-o', html], { cwd: work });
    expect(report.code, report.stderr).toBe(0);
    const specs = embeddedCharts(readFileSync(html, 'utf8'));
    expect(specs.map((c) => c.id)).toEqual(expect.arrayContaining(['chart-server-0', 'chart-gpu-0']));
    const chart = specs.find((c) => c.id === 'chart-gpu-0')!;
    const byLabel = new Map(chart.series.map((c) => [c.label, c.data]));
    expect([...byLabel.keys()]).toEqual([
      'GPU gpu-node-7:0 utilisation %',
      'GPU gpu-node-7:1 utilisation %',
      'GPU utilisation % (mean)',
      'GPU power W (total)',
    ]);
    expect(byLabel.get('GPU utilisation % (mean)')!.y).toEqual(util);
    expect(byLabel.get('GPU power W (total)')!.y).toEqual(power);
    expect(byLabel.get('GPU utilisation % (mean)')!.x).toEqual(samples.map((s) => roundSig(s.tMs / 1000)));
    await expectDrawn(html, 'chart-gpu-0');

    // `goodput summarize` rebuilds the same GPU block from gpu-metrics.jsonl.
    unlinkSync(join(out, 'summary.json'));
    const rebuilt = await runCliInProcess(['summarize', out], { cwd: work });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect((await readSummary(out)).server?.gpu).toEqual({ ...gpu, scrapeFailures: undefined });
  });

  it('--no-server-metrics: the GPUs still make a server block of their own', async () => {
    const { code, stderr, out } = await run('gpu-only', exporterUrl, ['--no-server-metrics']);
    expect(code, stderr).toBe(0);
    const server = (await readSummary(out)).server!;
    expect(server.samples).toBe(0);
    expect(server.gpu!.gpuCount).toBe(2);
  });

  it('a malformed URL is a usage error with an example', async () => {
    for (const bad of [
      'gpu-node:9400/metrics',
      'ftp://gpu-node/metrics',
      'http://user:pw@gpu-node:9400/metrics',
    ]) {
      const res = await run('bad', bad);
      expect(res.code, bad).toBe(2);
      expect(res.stderr).toMatch(/--gpu-metrics-url/);
      expect(res.stderr).toMatch(/http:\/\/gpu-node:9400\/metrics/);
      expect(res.stderr).not.toMatch(/pw@/);
    }
  });
});

describe('diagnosis reads the GPUs', () => {
  it('idle GPUs behind a standing queue with KV to spare: scheduler-bound, in summary.json', async () => {
    const tiny = await startTinyServer({ ttftMs: 5, gapMs: 5, chunks: 4 });
    try {
      // The engine's own view: 2 running, 5 waiting in every scrape, KV at 30 %.
      const engine = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(
          [
            'vllm:num_requests_running{model_name="m"} 2',
            'vllm:num_requests_waiting{model_name="m"} 5',
            'vllm:kv_cache_usage_perc{model_name="m"} 0.3',
            'vllm:num_preemptions_total{model_name="m"} 0',
            '',
          ].join('\n'),
        );
      });
      // The GPUs at 20 %.
      const idle = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(exporterPage(0).replace(/^(DCGM_FI_DEV_GPU_UTIL\{.*\}) \S+$/gm, '$1 20'));
      });
      const { code, stderr, out } = await run('scheduler', idle, [
        '--url',
        tiny.url,
        '--metrics-url',
        engine,
        '--scrape-interval',
        '50ms',
      ]);
      expect(code, stderr).toBe(0);
      const summary = await readSummary(out);
      expect(summary.server?.gpu?.utilPct?.mean).toBe(20);
      const finding = summary.diagnosis?.find((f) => f.kind === 'scheduler-bound');
      expect(finding, JSON.stringify(summary.diagnosis)).toBeDefined();
      expect(finding!.evidence).toMatch(/GPU utilisation averaged 20% over 2 GPUs/);
    } finally {
      await tiny.close();
    }
  });
});

describe('hostile or missing exporters cost a note, never the run', () => {
  const hostile: Array<[string, Handler]> = [
    [
      'a body without end, fast (cut at the byte bound)',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = `DCGM_FI_DEV_GPU_UTIL{gpu="0"} 1\n`.repeat(2048);
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) {}
          if (!res.destroyed) res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
      },
    ],
    [
      'a body that never ends, trickled (cut at the time bound)',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('# HELP x\n'), 50);
        res.on('close', () => clearInterval(timer));
      },
    ],
    [
      'garbage',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('<html>\x00\x01 not { prometheus ] at all\n');
      },
    ],
    [
      'Prometheus text without DCGM fields',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('vllm:num_requests_running{model_name="m"} 1\n');
      },
    ],
  ];
  it.each(hostile)('%s', async (name, handler) => {
    const url = await serve(handler);
    const started = performance.now();
    const { code, stderr, out } = await run(name.replace(/\W+/g, '-'), url, ['--scrape-interval', '1s']);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/GPU metrics: no scrape of http:\/\/127\.0\.0\.1:\d+\/metrics succeeded \(.+\)/);
    const summary = await readSummary(out);
    expect(summary.server?.gpu).toBeUndefined();
    expect(summary.counts.completed).toBe(16);
    // Bounded: a scrape gives up within its timeout (2 s at this interval), the run goes on.
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it('nothing listening', async () => {
    const closed = await serve((_req, res) => res.end());
    const server = servers.pop()!;
    await new Promise<void>((r) => server.close(() => r()));
    const { code, stderr } = await run('closed', closed);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/GPU metrics: no scrape of .* succeeded/);
  });
});
