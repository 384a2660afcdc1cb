/**
 * Report size and speed on a large run: writes a synthetic 100,000-request result directory
 * (requests.jsonl with per-token chunk times, server-metrics.jsonl, summary.json), renders the
 * HTML report through the built CLI code, then opens it in headless Chromium and measures the
 * time from navigation to every chart drawn. Prints one line per figure with its target.
 *
 * Usage: npm run build && node bench/report.bench.mjs [--requests 100000] [--keep]
 *
 * @module
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { runCli } from '../dist/cli/dispatch.js';
import { reportCommand } from '../dist/report/html/index.js';
import { JsonlWriter, writeSummary } from '../dist/results/index.js';

const argv = process.argv.slice(2);
const requests = Number(argv[argv.indexOf('--requests') + 1] || 0) || 100_000;
const keep = argv.includes('--keep');
const root = resolve('.bench-out/report');
const dir = join(root, `run-${requests}`);

/** Deterministic uniform random numbers (LCG). */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function stats(values) {
  const s = Float64Array.from(values).sort();
  const n = s.length;
  const q = (p) => (n ? s[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))] : 0);
  const mean = n ? s.reduce((a, b) => a + b, 0) / n : 0;
  const std = n ? Math.sqrt(s.reduce((a, b) => a + (b - mean) ** 2, 0) / n) : 0;
  return {
    count: n,
    mean,
    std,
    min: s[0] ?? 0,
    max: s[n - 1] ?? 0,
    p50: q(0.5),
    p90: q(0.9),
    p95: q(0.95),
    p99: q(0.99),
    p999: q(0.999),
  };
}

/** Writes a synthetic open-loop run: 200 req/s, prompt 200–2000 tokens, 20–200 output tokens. */
async function writeSyntheticRun(outDir, n) {
  mkdirSync(outDir, { recursive: true });
  const rand = rng(42);
  const runId = `bench-${n}`;
  const startedAt = '2026-01-01T00:00:00.000Z';
  const records = new JsonlWriter(join(outDir, 'requests.jsonl'), {
    schemaVersion: 1,
    kind: 'goodput.requests',
    runId,
    startedAt,
  });
  const ttft = [];
  const tpot = [];
  const e2el = [];
  const itl = [];
  let failed = 0;
  let outTokens = 0;
  let inTokens = 0;
  let lastEnd = 0;
  const rate = 200;
  for (let i = 0; i < n; i++) {
    const scheduled = (i / rate) * 1000;
    const sent = scheduled + rand() * 2;
    const prompt = Math.round(200 + rand() * 1800);
    const load = 1 + 0.8 * Math.sin(i / 5000);
    const first = sent + (20 + prompt * 0.04) * load + rand() ** 8 * 400;
    const out = Math.round(20 + rand() * 180);
    const fail = rand() < 0.004;
    const chunkMs = [];
    let t = first;
    if (!fail) {
      for (let k = 0; k < out; k++) {
        chunkMs.push(Math.round(t * 1000) / 1000);
        const gap = (12 + rand() * 8) * load + (rand() < 0.01 ? 60 : 0);
        if (k > 0) itl.push(gap);
        t += gap;
      }
    }
    const end = fail ? sent + 30 : t;
    lastEnd = Math.max(lastEnd, end);
    const record = {
      id: `r-${i}`,
      index: i,
      warmup: false,
      outcome: fail ? 'error' : 'success',
      attempts: 1,
      scheduledMs: scheduled,
      sentMs: sent,
      firstSentMs: sent,
      endMs: end,
      ...(fail
        ? {
            error: { code: 'HTTP_SERVER_ERROR', message: 'internal error', httpStatus: 500 },
            httpStatus: 500,
          }
        : { firstTokenMs: first, httpStatus: 200 }),
      chunkMs,
      chunkChars: chunkMs.map(() => 4),
      promptTokens: prompt,
      outputTokens: fail ? 0 : out,
      outputTokensSource: 'usage',
      maxTokens: 256,
    };
    records.write(record);
    if (records.backlogged) await records.drained();
    inTokens += prompt;
    if (fail) {
      failed++;
      continue;
    }
    outTokens += out;
    ttft.push(first - sent);
    e2el.push(end - sent);
    tpot.push((end - first) / (out - 1));
  }
  await records.close();
  const server = new JsonlWriter(join(outDir, 'server-metrics.jsonl'), {
    schemaVersion: 1,
    kind: 'goodput.server-metrics',
    runId,
    startedAt,
  });
  let preempt = 0;
  for (let t = 0; t <= lastEnd; t += 1000) {
    const load = 1 + 0.8 * Math.sin(((t / 1000) * rate) / 5000);
    if (load > 1.6) preempt += Math.round(rand() * 3);
    server.write({
      tMs: t,
      engine: 'goodput-sim',
      values: {
        running: Math.round(40 * load),
        waiting: Math.max(0, Math.round(30 * (load - 1.2))),
        kvUsage: Math.min(1, 0.45 * load),
        preemptionsTotal: preempt,
      },
    });
  }
  await server.close();
  const duration = lastEnd / 1000;
  const lat = { ttft: stats(ttft), tpot: stats(tpot), itl: stats(itl), e2el: stats(e2el) };
  const vllm = {};
  for (const [name, st] of Object.entries(lat)) {
    vllm[`mean_${name}_ms`] = st.mean;
    vllm[`median_${name}_ms`] = st.p50;
    vllm[`std_${name}_ms`] = st.std;
    for (const [k, v] of [
      ['p50', st.p50],
      ['p90', st.p90],
      ['p95', st.p95],
      ['p99', st.p99],
      ['p99.9', st.p999],
    ])
      vllm[`${k}_${name}_ms`] = v;
  }
  const good = ttft.filter((v) => v < 200).length;
  const summary = {
    schemaVersion: 1,
    kind: 'goodput.run',
    ...vllm,
    duration,
    completed: n - failed,
    failed,
    total_input_tokens: inTokens,
    total_output_tokens: outTokens,
    request_throughput: (n - failed) / duration,
    request_goodput: good / duration,
    output_throughput: outTokens / duration,
    total_token_throughput: (inTokens + outTokens) / duration,
    max_output_tokens_per_s: (outTokens / duration) * 1.8,
    max_concurrent_requests: 900,
    meta: {
      tool: { name: 'goodput', version: '0.1.0' },
      runId,
      startedAt,
      target: { baseUrl: 'http://127.0.0.1:8000', api: 'chat', embedded: false },
      model: 'synthetic-bench',
      sampling: { temperature: 0, maxTokens: 256, ignoreEos: true },
      workload: {
        kind: 'synthetic',
        api: 'chat',
        promptTokens: 1100,
        promptTokensRange: 0.8,
        maxTokens: 256,
        tokenizer: 'o200k_base',
      },
      load: { mode: 'open', rate, requests: n, warmup: 0, timeoutMs: 60000, maxRetries: 0 },
      slo: { ttftMs: 200 },
      seed: 42,
    },
    counts: {
      attempted: n,
      completed: n - failed,
      failed,
      cancelled: 0,
      warmup: 0,
      retries: 0,
      usageMissing: 0,
      promptTokenMismatch: 0,
    },
    latency: {
      ...lat,
      itlPerToken: lat.itl,
      queueWait: stats([0]),
      ttftFromScheduled: lat.ttft,
      e2elFromScheduled: lat.e2el,
    },
    throughput: {
      requestsPerS: (n - failed) / duration,
      outputTokensPerS: outTokens / duration,
      totalTokensPerS: (inTokens + outTokens) / duration,
      peakOutputTokensPerS: (outTokens / duration) * 1.8,
    },
    goodput: {
      slo: { ttftMs: 200 },
      goodRequests: good,
      attempted: n,
      attainment: good / n,
      requestGoodput: good / duration,
      usefulOutputTokens: outTokens,
      totalOutputTokens: outTokens,
      wastedOutputTokens: 0,
      tokenGoodputRatio: 1,
      tokenSource: 'client',
    },
    errors: failed
      ? [{ code: 'HTTP_SERVER_ERROR', count: failed, example: 'internal error', httpStatus: 500 }]
      : [],
    load: { dispatchLag: stats([1]), lateSends: 0, dropped: 0, clientBound: false, peakInFlight: 900 },
    histograms: {},
    interrupted: false,
  };
  await writeSummary(join(outDir, 'summary.json'), summary);
}

function chromiumPath() {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim() || '/usr/bin/chromium';
  } catch {
    return '/usr/bin/chromium';
  }
}

rmSync(dir, { recursive: true, force: true });
let t0 = performance.now();
await writeSyntheticRun(dir, requests);
const jsonlMb = statSync(join(dir, 'requests.jsonl')).size / 1e6;
console.log(
  `synthetic run: ${requests} requests, requests.jsonl ${jsonlMb.toFixed(0)} MB, written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);

const out = join(root, `report-${requests}.html`);
const sink = { write: () => true };
globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
let heapPeak = heapBefore;
const sampler = setInterval(() => {
  heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
}, 20);
t0 = performance.now();
const code = await runCli(
  ['report', dir, '-o', out],
  { stdout: sink, stderr: sink, env: {}, cwd: process.cwd(), signal: new AbortController().signal },
  [reportCommand],
);
const renderS = (performance.now() - t0) / 1000;
clearInterval(sampler);
if (code !== 0) throw new Error(`report exited ${code}`);
console.log(
  `report generation: ${renderS.toFixed(2)} s, peak heap +${((heapPeak - heapBefore) / 1e6).toFixed(0)} MB while streaming ${jsonlMb.toFixed(0)} MB of records`,
);
const sizeMb = statSync(out).size / 1e6;
console.log(`report file size: ${sizeMb.toFixed(2)} MB (target < 5 MB, ratio ${(sizeMb / 5).toFixed(2)})`);

const browser = await chromium.launch({
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
try {
  const times = [];
  for (let i = 0; i < 3; i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const start = performance.now();
    await page.goto(`file://${out}`);
    await page.waitForFunction(() => {
      const charts = [...document.querySelectorAll('[data-chart]')];
      return charts.length > 0 && charts.every((c) => c.getAttribute('data-rendered') === 'true');
    });
    times.push((performance.now() - start) / 1000);
    await page.close();
  }
  const best = Math.min(...times);
  if (best >= 2 || sizeMb >= 5) process.exitCode = 1;
  console.log(
    `browser load-to-rendered: ${times.map((t) => t.toFixed(2)).join(' / ')} s, best ${best.toFixed(2)} s (target < 2 s, ratio ${(best / 2).toFixed(2)})`,
  );
} finally {
  await browser.close();
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
