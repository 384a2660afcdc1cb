import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, readRecords } from '../src/results/index.js';
import { benchmarkConfig, runBenchmark } from '../src/runner/index.js';
import { runCliInProcess } from './helpers/cli.js';

const tmp = () => mkdtemp(join(tmpdir(), 'goodput-virtual-'));

describe('goodput run --time virtual', () => {
  it('agrees with a live run of the same engine and workload (TPOT within 25%, same output lengths)', async () => {
    // A 70B model on 4 GPUs: decode steps of tens of ms, so timer jitter on this machine is small beside them.
    const common = {
      sim: { profile: 'h100x4:llama-3.1-70b' },
      load: { concurrency: 4, requests: 24 },
      workload: { promptTokens: 512 },
      sampling: { temperature: 0, maxTokens: 24, ignoreEos: false },
      serverMetrics: { enabled: false },
    };
    const live = await runBenchmark(benchmarkConfig({ ...common, outDir: await tmp() }), {
      cwd: process.cwd(),
      quiet: true,
    });
    const virt = await runBenchmark(
      benchmarkConfig({ ...common, sim: { ...common.sim, timeMode: 'virtual' }, outDir: await tmp() }),
      { cwd: process.cwd(), quiet: true },
    );
    expect(virt.summary.meta.target.timeMode).toBe('virtual');
    expect(live.summary.meta.target.timeMode).toBe('live');
    expect(virt.summary.completed).toBe(24);
    // Output lengths are drawn as the live engine draws them.
    expect(virt.summary.total_output_tokens).toBe(live.summary.total_output_tokens);
    const ratio = virt.summary.median_tpot_ms / live.summary.median_tpot_ms;
    expect(ratio).toBeGreaterThan(0.75);
    expect(ratio).toBeLessThan(1.25);
    expect(virt.summary.median_ttft_ms).toBeGreaterThan(0);
  });

  it('writes ordinary records, is deterministic, and counts simulated cancels as wasted', async () => {
    const cfg = (outDir: string) =>
      benchmarkConfig({
        sim: { timeMode: 'virtual' },
        load: { concurrency: 16, requests: 200 },
        workload: { promptTokens: 256, cancelAfterMs: 300, cancelRate: 0.3 },
        sampling: { temperature: 0, maxTokens: 64, ignoreEos: true },
        outDir,
      });
    const a = await runBenchmark(cfg(await tmp()), { cwd: process.cwd(), quiet: true });
    const b = await runBenchmark(cfg(await tmp()), { cwd: process.cwd(), quiet: true });
    expect(b.summary.p99_ttft_ms).toBe(a.summary.p99_ttft_ms);
    expect(b.summary.mean_tpot_ms).toBe(a.summary.mean_tpot_ms);
    const records = await collect(readRecords(a.dir));
    expect(records).toHaveLength(200);
    const cancelled = records.filter((r) => r.outcome === 'cancelled');
    expect(cancelled.length).toBe(a.summary.counts.cancelled);
    expect(cancelled.length).toBeGreaterThan(20);
    for (const r of cancelled) {
      expect(r.error?.code).toBe('ABORTED');
      expect(r.endMs - r.sentMs).toBeCloseTo(300, 3);
      expect(r.chunkMs.length).toBe(r.outputTokens);
    }
    for (const r of records.filter((x) => x.outcome === 'success')) expect(r.outputTokens).toBe(64);
    expect(a.summary.goodput.tokenGoodputRatio).toBeLessThan(1);
    expect(a.summary.goodput.wastedOutputTokens).toBeGreaterThan(0);
  });

  it('refuses a real server, and says so through the CLI', async () => {
    const { code, stderr: err } = await runCliInProcess(
      ['run', '--url', 'http://127.0.0.1:9', '--time', 'virtual', '--requests', '5'],
      { cwd: process.cwd() },
    );
    expect(code).toBe(2);
    expect(err).toMatch(/--time virtual applies to the embedded engine only/);
    expect(err).toMatch(/hint: drop --url/);
  });

  it('runs through the CLI and the summary names the time mode', async () => {
    const dir = await tmp();
    const { code, stdout: out } = await runCliInProcess(
      ['run', '--time', 'virtual', '--requests', '300', '--concurrency', '32', '--out', dir, '--json'],
      { cwd: process.cwd() },
    );
    expect(code).toBe(0);
    const summary = JSON.parse(out);
    expect(summary.meta.target.timeMode).toBe('virtual');
    expect(JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')).completed).toBe(300);
  });
});

describe('goodput run --time virtual --duration', () => {
  it('stops at the deadline in simulated time, interrupting what is in flight, in a fraction of it in real time', async () => {
    const dir = await tmp();
    const t0 = performance.now();
    const { code, stdout: out } = await runCliInProcess(
      [
        'run',
        '--time',
        'virtual',
        '--rate',
        '20',
        '--duration',
        '60s',
        '--max-tokens',
        '256',
        '--out',
        dir,
        '--json',
      ],
      { cwd: process.cwd() },
    );
    const realMs = performance.now() - t0;
    expect(code).toBe(0);
    const summary = JSON.parse(out);
    const records = await collect(readRecords(dir));
    // About 20/s for 60 simulated seconds were sent; none after the deadline.
    expect(summary.counts.attempted).toBeGreaterThan(1000);
    expect(summary.counts.attempted).toBeLessThan(1400);
    const last = Math.max(...records.map((r) => r.sentMs));
    expect(last).toBeLessThan(60_000);
    // Requests still running at the deadline end there as INTERRUPTED, as in a live run.
    const interrupted = records.filter((r) => r.error?.code === 'INTERRUPTED');
    expect(interrupted.length).toBeGreaterThan(0);
    for (const r of interrupted) expect(r.endMs).toBeCloseTo(60_000, 0);
    expect(summary.interrupted).toBe(true);
    expect(realMs).toBeLessThan(30_000);
  });
});
