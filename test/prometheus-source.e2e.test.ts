/**
 * A Prometheus server as the source of server metrics, end to end: a real Prometheus (Debian's)
 * scraping one simulated engine every second, and a run against that engine with
 * `--metrics-prometheus --metrics-selector`. While the run goes, the test scrapes the same
 * engine directly; both readings give the same figures.
 *
 * Tolerance: counters (generated and prompt tokens, preemptions, prefix-cache queries and hits,
 * the server's TTFT histogram) must agree exactly: the engine is idle before the run and after
 * it, so Prometheus's last scrape before the run and its first after it read the same counter
 * values as the direct baseline and final scrape. Gauges (running, KV usage) are sampled at
 * different instants (Prometheus each 1 s, the direct scrape each 100 ms), so only what both
 * must have seen is held: the steady state of 4 running requests in a closed loop of 4, which
 * lasts longer than two of Prometheus's intervals.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerMetricsRecorder } from '../src/server-metrics/index.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import type { RunSummary, ServerSummary } from '../src/types.js';
import { readRunSummary, runCliInProcess } from './helpers/cli.js';
import { PROMETHEUS, type RunningPrometheus, startPrometheus } from './helpers/prometheus.js';

let work: string;
let sim: SimServer | undefined;
let prom: RunningPrometheus | undefined;
let summary: RunSummary;
let direct: ServerSummary;

const RUN = [
  '--requests',
  '16',
  '--concurrency',
  '4',
  '--prompt-tokens',
  '128',
  '--max-tokens',
  '48',
  '--ignore-eos',
];

beforeAll(async () => {
  if (!PROMETHEUS) return;
  work = mkdtempSync(join(tmpdir(), 'goodput-prom-source-e2e-'));
  sim = await startSim({ host: '127.0.0.1', port: 0, seed: 3 });
  prom = await startPrometheus(work, { target: `127.0.0.1:${sim.port}`, intervalMs: 1000 });
  const clock = { now: () => performance.now() };
  const recorder = startServerMetricsRecorder({
    metricsUrl: `${sim.url}/metrics`,
    runId: 'direct',
    startedAt: new Date().toISOString(),
    clock,
    intervalMs: 100,
  });
  await recorder.scraper.scrapeNow();
  const out = join(work, 'run');
  const res = await runCliInProcess(
    [
      'run',
      '--url',
      sim.url,
      ...RUN,
      '--metrics-prometheus',
      prom.url,
      '--metrics-selector',
      '{job="goodput"}',
      '--out',
      out,
    ],
    { cwd: work },
  );
  expect(res.code, res.stderr).toBe(0);
  direct = await recorder.finish();
  summary = readRunSummary(out);
}, 60_000);

afterAll(async () => {
  prom?.stop();
  await sim?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('--metrics-prometheus against a real Prometheus scraping the engine', () => {
  it('gives the same counters as a direct scrape of the same engine, over the same window', (ctx) => {
    if (!PROMETHEUS) return ctx.skip();
    const viaProm = summary.server!;
    expect(viaProm.engine).toBe('goodput-sim');
    expect(viaProm.metricsUrl).toBe(`${prom!.url} {job="goodput"}`);
    expect(viaProm.generatedTokens).toBe(16 * 48);
    expect(viaProm.generatedTokens).toBe(direct.generatedTokens);
    expect(viaProm.preemptions).toBe(direct.preemptions);
    expect(viaProm.prefixCacheHitRate).toBe(direct.prefixCacheHitRate);
    expect(viaProm.serverTtftMeanMs).toBeCloseTo(direct.serverTtftMeanMs!, 6);
    expect(viaProm.serverItlMeanMs).toBeCloseTo(direct.serverItlMeanMs!, 6);
    // One instance: no replica table.
    expect(viaProm.replicas).toBeUndefined();
  });

  it('sees the steady state the direct scrape sees', (ctx) => {
    if (!PROMETHEUS) return ctx.skip();
    expect(direct.series.running?.max).toBe(4);
    expect(summary.server!.series.running?.max).toBe(4);
    expect(summary.server!.series.kvUsage?.max).toBeGreaterThan(0);
  });

  it('a selector that matches nothing is a usage error before any request, with a hint', async (ctx) => {
    if (!PROMETHEUS) return ctx.skip();
    const res = await runCliInProcess(
      [
        'run',
        '--url',
        sim!.url,
        ...RUN,
        '--metrics-prometheus',
        prom!.url,
        '--metrics-selector',
        '{job="vllm"}',
      ],
      { cwd: work },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('has no series matching {job="vllm"}');
    expect(res.stderr).toMatch(/api\/v1\/series\?match/);
  });

  it('a selector Prometheus refuses is a usage error naming its errorType', async (ctx) => {
    if (!PROMETHEUS) return ctx.skip();
    // A regex that does not compile: Prometheus answers status "error", errorType "bad_data".
    const res = await runCliInProcess(
      [
        'run',
        '--url',
        sim!.url,
        ...RUN,
        '--metrics-prometheus',
        prom!.url,
        '--metrics-selector',
        '{job=~"("}',
      ],
      { cwd: work },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('answered bad_data');
    expect(res.stderr).toContain('--metrics-selector');
  });
});
