/**
 * The connection warm-up before the clock starts is bounded: against a server that accepts
 * connections and never answers, `--duration 3s` ends in a few seconds (it used to wait
 * --timeout, 60 s, per warm-up request), Ctrl-C during the warm-up returns at once, and the
 * summary says what the warm-up did.
 *
 * @module
 */

import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WARMUP_BUDGET_MS } from '../src/client/index.js';
import { benchmarkConfig, runBenchmark } from '../src/runner/index.js';
import type { RunSummary } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';
import { type Loopback, startLoopback } from './helpers/loopback.js';

const tmp = () => mkdtemp(join(tmpdir(), 'goodput-warmup-'));

let blackHole: Loopback | undefined;
afterEach(async () => {
  await blackHole?.close();
  blackHole = undefined;
});

/** Accepts every connection and reads every request, answers none. */
const startBlackHole = () => startLoopback(() => undefined);

describe('connection warm-up', () => {
  it('a black-hole server: --duration 3s ends within a few seconds and the summary says the warm-up gave up', async () => {
    blackHole = await startBlackHole();
    const dir = join(await tmp(), 'r');
    const t0 = performance.now();
    const r = await runCliInProcess(
      ['run', '--url', blackHole.url, '--model', 'm', '--duration', '3s', '--concurrency', '4', '--out', dir],
      { cwd: process.cwd() },
    );
    const seconds = (performance.now() - t0) / 1000;
    // Warm-up (≤ 2 s) + 3 s of load + writing; it used to be 60 s + 3 s.
    expect(seconds).toBeLessThan(9);
    expect(r.stderr).toMatch(/connection warm-up: 0 of 4 connections ready \(the server did not answer/);
    const summary = JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.load.connectionWarmup).toMatchObject({ requested: 4, ok: 0, reason: 'budget' });
    expect(summary.load.connectionWarmup!.ms).toBeLessThan(WARMUP_BUDGET_MS + 1000);
    expect(summary.load.connectionWarmup!.ms).toBeGreaterThanOrEqual(WARMUP_BUDGET_MS - 50);
    // The load itself ran to the deadline: every request interrupted there, none answered.
    expect(summary.counts.attempted).toBeGreaterThan(0);
    expect(summary.counts.completed).toBe(0);
    expect(summary.interrupted).toBe(true);
  }, 30_000);

  it('Ctrl-C during the warm-up returns at once, with the results written', async () => {
    blackHole = await startBlackHole();
    const outDir = join(await tmp(), 'r');
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const t0 = performance.now();
    const result = await runBenchmark(
      benchmarkConfig({
        url: blackHole.url,
        model: 'm',
        load: { concurrency: 4, requests: 8 },
        serverMetrics: { enabled: false },
        outDir,
      }),
      { cwd: process.cwd(), quiet: true, signal: ac.signal },
    );
    const ms = performance.now() - t0;
    // Stopped at 300 ms, well before the warm-up budget would have ended it.
    expect(ms).toBeLessThan(WARMUP_BUDGET_MS - 300);
    expect(result.summary.load.connectionWarmup).toMatchObject({ requested: 4, ok: 0, reason: 'aborted' });
    expect(result.summary.interrupted).toBe(true);
    expect(result.summary.counts.completed).toBe(0);
    expect(JSON.parse(await readFile(join(outDir, 'summary.json'), 'utf8')).kind).toBe('goodput.run');
  }, 30_000);

  it('a healthy server: every connection warmed, no reason given', async () => {
    const result = await runBenchmark(
      benchmarkConfig({
        load: { concurrency: 3, requests: 3 },
        sampling: { maxTokens: 4 },
        serverMetrics: { enabled: false },
        outDir: join(await tmp(), 'r'),
      }),
      { cwd: process.cwd(), quiet: true },
    );
    expect(result.summary.load.connectionWarmup).toMatchObject({ requested: 3, ok: 3 });
    expect(result.summary.load.connectionWarmup!.reason).toBeUndefined();
  }, 30_000);
});
