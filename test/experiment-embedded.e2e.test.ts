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
});
