/**
 * `goodput sweep` end to end against the simulated engine: the capacity at SLO it finds
 * must hold up when re-run, and one step above must miss.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { parseArgv } from '../src/flags/index.js';
import { type BenchmarkConfig, runBenchmark } from '../src/runner/index.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import { sweepCommand } from '../src/sweep/command.js';
import type { SweepResult } from '../src/sweep/index.js';
import { context } from './helpers/cli.js';

let work: string;
let sim: SimServer;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-sweep-e2e-'));
  // 4 sequences at most: a fifth request waits a whole request, so its TTFT jumps past the SLO.
  sim = await startSim({ seed: 7, engine: { maxNumSeqs: 4 }, slowdown: 2 });
});
afterAll(async () => {
  await sim.close();
  rmSync(work, { recursive: true, force: true });
});

function followUp(concurrency: number): BenchmarkConfig {
  return {
    url: sim.url,
    api: 'chat',
    sampling: { temperature: 0, maxTokens: 24, ignoreEos: true, seed: 1 },
    workload: { promptTokens: 128 },
    load: { mode: 'closed', concurrency, requests: 12, warmup: 0, timeoutMs: 30_000, maxRetries: 0 },
    slo: { ttftMs: 200 },
    seed: 1,
    outDir: join(work, `follow-${concurrency}`),
    serverMetrics: { enabled: true, intervalMs: 200 },
  };
}

describe('sweep against the simulator', () => {
  it('finds a capacity at SLO that a follow-up run confirms, and one step above misses', async () => {
    const out = join(work, 'sweep');
    const common = ['--url', sim.url, '--prompt-tokens', '128', '--max-tokens', '24', '--ignore-eos'];
    const slo = ['--slo', 'ttft=200', '--requests', '12', '--scrape-interval', '200ms'];
    const args = parseArgv(sweepCommand, [
      ...common,
      ...slo,
      '--concurrency',
      '2,4,8',
      '--min-attainment',
      '0.9',
      '--out',
      out,
    ]);
    const ctx = context(args, work);
    expect(await sweepCommand.run(ctx)).toBe(ExitCode.OK);
    const result = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as SweepResult;
    expect(result).toMatchObject({ schemaVersion: 1, kind: 'goodput.sweep', mode: 'concurrency' });
    expect(ctx.stdout.text).toMatch(/Capacity at SLO: concurrency \d+/);
    // Progress names each point against the most the plan can run (3 loads + 3 bisections).
    expect(ctx.stderr.text).toContain('sweep: point 1 of up to 6: 01-c2 (step)');
    const cap = result.capacity!;
    expect(cap.resolved).toBe(true);
    // Every point is a normal result directory.
    for (const p of result.points)
      expect(JSON.parse(readFileSync(join(p.dir, 'summary.json'), 'utf8')).kind).toBe('goodput.run');

    const at = async (concurrency: number) =>
      (await runBenchmark(followUp(concurrency), { cwd: work, quiet: true })).summary.goodput.attainment;
    expect(await at(cap.load)).toBeGreaterThanOrEqual(0.9);
    expect(await at(cap.load + 1)).toBeLessThan(0.9);
  });

  it('a rate sweep runs the synchronous and throughput anchors, then open-loop rates between them', async () => {
    const out = join(work, 'rate-sweep');
    const args = parseArgv(sweepCommand, [
      ...['--url', sim.url, '--prompt-tokens', '64', '--max-tokens', '8', '--ignore-eos', '--requests', '8'],
      ...[
        '--rate-max',
        'auto',
        '--steps',
        '2',
        '--throughput-concurrency',
        '8',
        '--bisect',
        '0',
        '--out',
        out,
      ],
    ]);
    const ctx = context(args, work);
    expect(await sweepCommand.run(ctx)).toBe(ExitCode.OK);
    const result = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as SweepResult;
    expect(result.mode).toBe('rate');
    expect(result.anchors!.map((a) => [a.phase, a.load])).toEqual([
      ['synchronous', 1],
      ['throughput', 8],
    ]);
    const [sync, max] = result.anchors!;
    expect(result.points.map((p) => p.phase)).toEqual(['step', 'step']);
    const [low, high] = result.points.map((p) => p.load);
    expect(low!).toBeGreaterThan(sync!.requestThroughput);
    // the top rate is the measured throughput, to three significant digits
    expect(Math.abs(high! - max!.requestThroughput) / max!.requestThroughput).toBeLessThan(0.01);
    for (const p of result.points) {
      const summary = JSON.parse(readFileSync(join(p.dir, 'summary.json'), 'utf8'));
      expect(summary.meta.load).toMatchObject({ mode: 'open', rate: p.load });
    }
  });

  it('stops rising when errors explode, and diagnoses them', async () => {
    const failing = await startSim({ seed: 3, failures: { serverError: 0.6 } });
    try {
      const out = join(work, 'exploding');
      const args = parseArgv(sweepCommand, [
        ...['--url', failing.url, '--prompt-tokens', '64', '--max-tokens', '4', '--requests', '10'],
        ...['--max-retries', '0', '--concurrency', '1,2,4', '--max-error-rate', '0.2', '--out', out],
      ]);
      const ctx = context(args, work);
      expect(await sweepCommand.run(ctx)).toBe(ExitCode.OK);
      const result = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as SweepResult;
      expect(result.points.map((p) => p.load)).toEqual([1]);
      expect(result.stoppedEarly).toMatch(/errors exploded: \d+% failed at concurrency 1/);
      expect(result.diagnosis?.some((f) => f.kind === 'errors' && /HTTP_SERVER_ERROR/.test(f.evidence))).toBe(
        true,
      );
      expect(ctx.stdout.text).toMatch(/Stopped early: errors exploded/);
    } finally {
      await failing.close();
    }
  });
});
