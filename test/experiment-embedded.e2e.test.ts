/**
 * `goodput experiment` on the embedded engine in virtual time: 3 configurations × 3 runs
 * finish in seconds, interleaved, each run an ordinary result folder, experiment.json in the
 * contract's shape, and the engine flags reach the engine (prefix caching off, with a long
 * shared system prompt, raises TTFT).
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { benchmarkConfig, embeddedConfiguration, runExperiment } from '../src/index.js';
import type { ExperimentFile } from '../src/types.js';
import { readRunSummary, runCliInProcess } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'goodput-experiment-embedded-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PLAN = `name: prefix
output: out
runs: 3
configurations:
  - name: Baseline
    params: { enable-prefix-caching: true }
  - name: No prefix cache
    params: { enable-prefix-caching: false }
  - name: Small batches
    params: { max-num-batched-tokens: 1024 }
run:
  concurrency: 8
  requests: 24
  prompt-tokens: 64
  prompt-tokens-range: 0.5
  system-prompt-tokens: 2048
  max-tokens: 16
`;

describe('goodput experiment (embedded engine, virtual time)', () => {
  it('runs 3 configurations × 3 runs interleaved, in seconds, into ordinary run folders', async () => {
    const plan = join(work, 'plan.yaml');
    writeFileSync(plan, PLAN);
    const t0 = performance.now();
    const r = await runCliInProcess(['experiment', plan, '--quiet'], { cwd: work });
    const wallS = (performance.now() - t0) / 1000;
    expect(r.code, r.stderr).toBe(0);
    const dir = join(work, 'out');
    const state = JSON.parse(readFileSync(join(dir, 'experiment.json'), 'utf8')) as ExperimentFile;
    expect(state).toMatchObject({
      schemaVersion: 1,
      kind: 'goodput-experiment',
      status: 'done',
      virtual: true,
    });
    expect(state.configurations.map((c) => [c.name, c.slug, c.baseline, c.status, c.target])).toEqual([
      ['Baseline', 'baseline', true, 'ok', 'embedded'],
      ['No prefix cache', 'no-prefix-cache', false, 'ok', 'embedded'],
      ['Small batches', 'small-batches', false, 'ok', 'embedded'],
    ]);
    expect(state.configurations[1]!.engineArgs).toEqual(['--no-enable-prefix-caching']);
    // Interleaved: ABC ABC ABC, by the recorded order and by the start times.
    const runs = state.configurations
      .flatMap((c, ci) => c.runs.map((run) => ({ ci, ...run })))
      .sort((a, b) => a.order - b.order);
    expect(runs.map((x) => x.ci)).toEqual([0, 1, 2, 0, 1, 2, 0, 1, 2]);
    const starts = runs.map((x) => Date.parse(x.startedAt!));
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    // Each run is an ordinary result folder; simulated time is far longer than the wall time.
    let simulatedS = 0;
    const ttft: number[][] = [[], [], []];
    for (const x of runs) {
      const s = readRunSummary(join(dir, x.dir));
      expect(s.completed).toBe(24);
      expect(s.meta.target.timeMode).toBe('virtual');
      simulatedS += s.duration;
      ttft[x.ci]!.push(s.mean_ttft_ms);
    }
    expect(simulatedS).toBeGreaterThan(0);
    expect(wallS).toBeLessThan(60);
    // The engine flags reached the engine: without prefix caching every request prefills 2048 shared tokens.
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(ttft[1]!)).toBeGreaterThan(1.5 * mean(ttft[0]!));
    // Repeats differ (seed + repeat), so the spread across runs is measured, not zero.
    expect(new Set(ttft[0]).size).toBeGreaterThan(1);
    expect(r.stdout).toContain('No prefix cache');
  }, 90_000);

  it('runs from the library: embedded configurations in virtual time, no plan file', async () => {
    const dir = join(work, 'library');
    const { state } = await runExperiment(
      {
        name: 'library',
        dir,
        configurations: [
          embeddedConfiguration('Baseline', { 'max-num-seqs': 4 }),
          embeddedConfiguration('Wide', { 'max-num-seqs': 64 }),
        ],
        runs: 2,
        order: { mode: 'random-blocks', seed: 3 },
        cooldownMs: 0,
        restart: 'per-config',
        virtual: true,
        cacheReset: { kind: 'none' },
        measurement: benchmarkConfig({
          load: { concurrency: 16, requests: 32 },
          workload: { promptTokens: 64 },
          sampling: { maxTokens: 8 },
        }),
        plan: { note: 'built in code' },
        planSha256: 'none',
      },
      { cwd: work, quiet: true },
    );
    expect(state.status).toBe('done');
    expect(state.order).toEqual({ mode: 'random-blocks', seed: 3 });
    const tput = state.configurations.map((c) =>
      c.runs.map((r) => readRunSummary(join(dir, r.dir)).request_throughput),
    );
    // 16 users against 4 sequences at a time queue; against 64 they do not.
    expect(Math.min(...tput[1]!)).toBeGreaterThan(1.5 * Math.max(...tput[0]!));
  }, 60_000);

  it('refuses run flags that belong to the experiment, and a changed workload per configuration', async () => {
    const plan = join(work, 'bad.yaml');
    writeFileSync(plan, 'grid: { block-size: [16] }\nrun: "--url http://127.0.0.1:1 --requests 4"\n');
    const r = await runCliInProcess(['experiment', plan], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('run: --url cannot be part of');
    expect(r.stderr).toContain('url: or serve:');
    // Run flags on the command line override the plan's, and --grid adds configurations.
    writeFileSync(plan, 'output: flags\nruns: 1\nrun: { requests: 4, prompt-tokens: 16, max-tokens: 4 }\n');
    const ok = await runCliInProcess(
      ['experiment', plan, '--grid', 'max-num-seqs=2,8', '--requests', '6', '--quiet'],
      { cwd: work },
    );
    expect(ok.code, ok.stderr).toBe(0);
    const state = JSON.parse(readFileSync(join(work, 'flags', 'experiment.json'), 'utf8')) as ExperimentFile;
    expect(state.configurations.map((c) => c.engineArgs)).toEqual([
      ['--max-num-seqs', '2'],
      ['--max-num-seqs', '8'],
    ]);
    expect(readRunSummary(join(work, 'flags', state.configurations[0]!.runs[0]!.dir)).completed).toBe(6);
  }, 60_000);
});
