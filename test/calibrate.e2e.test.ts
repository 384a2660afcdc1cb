import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CalibrationReport,
  checkRun,
  readCalibrationRuns,
  runFigures,
  summarizeErrors,
} from '../src/calibrate/index.js';
import { collect, readRecords } from '../src/results/index.js';
import { benchmarkConfig, runBenchmark } from '../src/runner/index.js';
import { loadProfileFile, resolveProfile } from '../src/sim/index.js';
import type { RunSummary } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';

/**
 * The server to calibrate against: the simulated engine as Llama-3.1-70B on 4 H100s, measured
 * in virtual time at three concurrencies and two prompt lengths. The fit starts from the A100
 * profile of the same model (3.2× less compute, 1.6× less bandwidth) and must recover TTFT and
 * TPOT of runs it did not see within 10 %.
 */
const TRUE_PROFILE = 'h100:llama-3.1-70b';
const START_PROFILE = 'a100:llama-3.1-70b';
const HELD_OUT = ['c4-p2048', 'c16-p256'];

let root: string;
const dirs: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'goodput-calibrate-'));
  for (const concurrency of [1, 4, 16])
    for (const promptTokens of [256, 2048]) {
      const outDir = join(root, `c${concurrency}-p${promptTokens}`);
      await runBenchmark(
        benchmarkConfig({
          sim: { profile: TRUE_PROFILE, timeMode: 'virtual' },
          load: { concurrency, requests: 16 },
          workload: { promptTokens, promptTokensRange: 0.5 },
          sampling: { temperature: 0, maxTokens: 32, ignoreEos: true },
          serverMetrics: { enabled: false },
          outDir,
        }),
        { cwd: root, quiet: true },
      );
      dirs.push(outDir);
    }
}, 60_000);

/** The first n measured requests of a run, by index. */
async function readRecordsOf(dir: string, n: number) {
  const all = await collect(readRecords(dir));
  return all
    .filter((r) => !r.warmup)
    .sort((a, b) => a.index - b.index)
    .slice(0, n);
}

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('goodput sim calibrate', () => {
  it('recovers TTFT and TPOT of held-out runs within 10 %, from another GPU profile, and writes the profile', async () => {
    const out = join(root, 'fitted.json');
    const res = await runCliInProcess(
      [
        'sim',
        'calibrate',
        ...dirs,
        '--profile',
        START_PROFILE,
        ...HELD_OUT.flatMap((h) => ['--holdout', h]),
        '--out',
        out,
        '--json',
      ],
      { cwd: root },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout) as CalibrationReport;
    expect(report.kind).toBe('goodput.calibration');
    expect(report.schemaVersion).toBe(1);
    expect(report.holdout).toEqual({ kind: 'split', heldOut: HELD_OUT });
    expect(report.runs.map((r) => r.concurrency)).toEqual([1, 1, 4, 4, 16, 16]);
    expect(report.fitted.map((c) => c.run)).toEqual(['c1-p256', 'c1-p2048', 'c4-p256', 'c16-p2048']);
    expect(report.heldOut.map((c) => c.run)).toEqual(HELD_OUT);
    for (const figure of ['meanTtftMs', 'p50TtftMs', 'meanTpotMs', 'p50TpotMs'] as const)
      expect(report.heldOutError[figure].maxAbs, figure).toBeLessThan(0.1);

    // The starting profile itself misses them by far more: the fit did the work.
    const runs = await readCalibrationRuns(dirs);
    const start = resolveProfile(START_PROFILE);
    const before = summarizeErrors(
      runs.filter((r) => HELD_OUT.includes(r.name)).map((r) => checkRun(r, start)),
    );
    expect(before.meanTtftMs.maxAbs).toBeGreaterThan(0.5);
    expect(before.meanTpotMs.maxAbs).toBeGreaterThan(0.3);

    // Read back as sim --profile-file reads it: the true GPU's rates, near enough (the start's
    // were 3.2× and 1.6× off), and the held-out runs replay as the report says.
    const file = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    expect(file.gpu).toBe('a100');
    expect(file.calibration).toMatchObject({ schemaVersion: 1, from: START_PROFILE, holdout: 'split' });
    const profile = await loadProfileFile(out);
    const truth = resolveProfile(TRUE_PROFILE);
    const trueFlops = truth.gpu.peakFlops * truth.gpu.computeEfficiency * truth.tensorParallel;
    const trueBytes = truth.gpu.memBandwidth * truth.gpu.bandwidthEfficiency * truth.tensorParallel;
    for (const ratio of [profile.stepTime!.flopsPerS / trueFlops, profile.stepTime!.bytesPerS / trueBytes]) {
      expect(ratio).toBeGreaterThan(0.8);
      expect(ratio).toBeLessThan(1.25);
    }
    const again = checkRun(runs.find((r) => r.name === 'c4-p2048')!, profile);
    expect(again.error.meanTtftMs).toBeCloseTo(report.heldOut[0]!.error.meanTtftMs, 9);

    // The embedded engine runs it too: a virtual run on the fitted profile sees the true server's TPOT.
    const run = await runCliInProcess(
      [
        'run',
        '--time',
        'virtual',
        '--sim-profile-file',
        out,
        '--concurrency',
        '4',
        '--requests',
        '16',
        '--prompt-tokens',
        '2048',
        '--prompt-tokens-range',
        '0.5',
        '--max-tokens',
        '32',
        '--ignore-eos',
        '--no-server-metrics',
        '--quiet',
        '--out',
        join(root, 'on-fitted'),
      ],
      { cwd: root },
    );
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(await readFile(join(root, 'on-fitted', 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.meta.target.simProfile).toBe(`${START_PROFILE}+calibrated`);
    expect(Math.abs(summary.mean_tpot_ms / runs[3]!.measured.meanTpotMs - 1)).toBeLessThan(0.1);
  });

  it('holds each run out in turn by default, and says so', async () => {
    const text = await runCliInProcess(
      [
        'sim',
        'calibrate',
        ...dirs.slice(0, 3),
        '--profile',
        START_PROFILE,
        '--max-iterations',
        '3',
        '--out',
        join(root, 'loo.json'),
      ],
      { cwd: root },
    );
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/held-out runs, leave-one-out/);
    // Each run is a held-out row and a fitted row.
    for (const run of ['c1-p256', 'c1-p2048', 'c4-p256'])
      expect(text.stdout.split(`  ${run} `).length - 1, run).toBe(2);
    expect(text.stdout).toMatch(/prefill per token \(µs\)/);
    expect(text.stdout).toContain(`use: goodput sim --profile-file ${join(root, 'loo.json')}`);
  });

  it('refuses too few runs and a holdout that names no run, with hints', async () => {
    const few = await runCliInProcess(['sim', 'calibrate', dirs[0]!, dirs[1]!], { cwd: root });
    expect(few.code).toBe(2);
    expect(few.stderr).toMatch(/at least 3 runs[\s\S]*hint: measure the server at several concurrencies/);
    const cut = await readCalibrationRuns(dirs.slice(0, 1), 5);
    expect(cut[0]!.requests).toHaveLength(5);
    expect(cut[0]!.measured).toEqual(runFigures(await readRecordsOf(dirs[0]!, 5)));
    const bad = await runCliInProcess(['sim', 'calibrate', ...dirs.slice(0, 3), '--holdout', 'nope'], {
      cwd: root,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--holdout nope names none of the runs[\s\S]*hint: name one of: c1-p256/);
  });
});
