/**
 * Load shapes (issue 13.3): `--stages` of concurrency (closed loop) and of rate (open loop)
 * in virtual time, with the load each stage achieved in the summary, the run table and a
 * summary.json that reads back valid.
 */

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { readSummary } from '../src/results/index.js';
import type { RunSummary } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';

async function run(argv: string[]): Promise<{ summary: RunSummary; stdout: string }> {
  const cwd = await mkdtemp(join(tmpdir(), 'goodput-stages-'));
  const out = join(cwd, 'run');
  const r = await runCliInProcess(['run', '--time', 'virtual', '--max-tokens', '32', '--out', out, ...argv], {
    cwd,
  });
  expect(r.code, r.stderr).toBe(ExitCode.OK);
  return { summary: await readSummary(out), stdout: r.stdout };
}

describe('--stages', () => {
  it('ramps the concurrency up and down; each stage holds its mean target in flight', async () => {
    const { summary, stdout } = await run(['--stages', '10s:20,0s:40,10s:40,10s:0']);
    const stages = summary.load.stages!;
    expect(stages.map((s) => [s.from, s.to, s.durationMs])).toEqual([
      [0, 20, 10_000],
      [20, 40, 0],
      [40, 40, 10_000],
      [40, 0, 10_000],
    ]);
    for (const s of stages.filter((x) => x.durationMs > 0)) {
      expect(s.of).toBe('concurrency');
      expect(s.sent).toBeGreaterThan(0);
      // In flight follows the target (requests still running as it falls finish, as in k6).
      expect(Math.abs(s.meanInFlight - s.targetMean)).toBeLessThan(0.15 * s.targetMean + 1);
    }
    expect(summary.load.peakInFlight).toBe(40);
    expect(summary.meta.load).toMatchObject({
      mode: 'closed',
      concurrency: 40,
      durationMs: 30_000,
      stagesOf: 'concurrency',
    });
    expect(stdout).toMatch(/stage 3 \(10–20 s\)\s+concurrency 40→40: sent \d+/);
  }, 60_000);

  it('ramps the arrival rate; each stage sends about its mean rate', async () => {
    const { summary, stdout } = await run(['--stages', '20s:10,20s:40,10s:40', '--stages-of', 'rate']);
    const stages = summary.load.stages!;
    const expected = [5, 25, 40];
    stages.forEach((s, i) => {
      expect(s.of).toBe('rate');
      // Poisson arrivals: within 25% of the mean rate over 10–20 s.
      expect(Math.abs(s.achievedRate - expected[i]!)).toBeLessThan(0.25 * expected[i]!);
    });
    expect(stages[1]!.achievedRate).toBeGreaterThan(stages[0]!.achievedRate * 2);
    expect(summary.load.dispatchLag.max).toBeLessThanOrEqual(1);
    expect(summary.counts.attempted).toBe(stages.reduce((n, s) => n + s.sent, 0));
    expect(stdout).toMatch(/stages of rate 20s:10,20s:40,10s:40/);
  }, 60_000);
});
