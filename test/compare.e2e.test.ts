/**
 * `goodput compare` end to end over loopback against the embedded engine: a truly slower
 * engine gets a significant verdict in the right direction, two seeds of the same
 * configuration get "no significant change" for TTFT p50, mismatched sampling is refused,
 * and --fail-on-worse exits REGRESSION.
 *
 * Design for robustness on a busy machine: a light open-loop load (20 req/s, one output
 * token) on an engine slowed to ~20 ms per step, so that most requests reach an idle engine
 * and their TTFT is the prefill step itself rather than a wait whose length depends on the
 * phase of other requests. The two same-configuration runs go to two identical engines at
 * the same time, so that whatever the machine does meanwhile hits both alike; the seed
 * changes which prompts and arrival times are drawn, not their distribution.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompareReport } from '../src/compare/index.js';
import { ExitCode } from '../src/errors.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import { runCliInProcess } from './helpers/cli.js';

const LOAD = [
  '--requests',
  '100',
  '--rate',
  '20',
  '--prompt-tokens',
  '64',
  '--prompt-tokens-range',
  '0.9',
  '--max-tokens',
  '1',
  '--ignore-eos',
  '--quiet',
  '--no-server-metrics',
];

let work: string;
let engine: SimServer;
let twinEngine: SimServer;
let slowEngine: SimServer;

function cli(argv: string[]) {
  return runCliInProcess(argv, { cwd: work });
}

const dir = (name: string) => join(work, name);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-compare-e2e-'));
  engine = await startSim({ seed: 1, slowdown: 3 });
  twinEngine = await startSim({ seed: 1, slowdown: 3 });
  // The "other configuration": the same engine with every step twice as slow.
  slowEngine = await startSim({ seed: 1, slowdown: 6 });
  const runs = await Promise.all([
    cli(['run', '--url', engine.url, ...LOAD, '--seed', '1', '--out', dir('a')]),
    cli(['run', '--url', twinEngine.url, ...LOAD, '--seed', '2', '--out', dir('b')]),
    cli(['run', '--url', slowEngine.url, ...LOAD, '--seed', '1', '--out', dir('slow')]),
  ]);
  for (const r of runs) expect(r.code, r.stderr).toBe(ExitCode.OK);
  const hot = await cli([
    'run',
    '--url',
    engine.url,
    ...LOAD.map((v) => (v === '100' ? '20' : v)),
    '--temperature',
    '0.7',
    '--seed',
    '1',
    '--out',
    dir('hot'),
  ]);
  expect(hot.code, hot.stderr).toBe(ExitCode.OK);
}, 60_000);

afterAll(async () => {
  await engine?.close();
  await twinEngine?.close();
  await slowEngine?.close();
  rmSync(work, { recursive: true, force: true });
});

async function compareJson(...runs: string[]): Promise<CompareReport> {
  const r = await cli(['compare', ...runs.map(dir), '--json']);
  expect(r.code, r.stderr).toBe(ExitCode.OK);
  return JSON.parse(r.stdout) as CompareReport;
}

function verdicts(report: CompareReport, i = 0): Record<string, string> {
  return Object.fromEntries((report.comparisons[i]?.deltas ?? []).map((d) => [d.key, d.verdict]));
}

describe('goodput compare over loopback', () => {
  it('calls the faster configuration better and the slower one worse, significantly', async () => {
    const fasterThanBaseline = await compareJson('slow', 'a');
    const v = verdicts(fasterThanBaseline);
    // The median is the robust figure at 100 requests; a p99 is one or two requests' worth.
    expect(v.ttft_p50).toBe('better');
    const ttft = fasterThanBaseline.comparisons[0]?.deltas.find((d) => d.key === 'ttft_p50');
    expect(ttft?.p).toBeLessThan(0.001);
    expect(ttft?.ci?.[1]).toBeLessThan(0);

    const slowerThanBaseline = await compareJson('a', 'slow');
    expect(verdicts(slowerThanBaseline).ttft_p50).toBe('worse');
    const change = slowerThanBaseline.comparisons[0]?.deltas.find((d) => d.key === 'ttft_p50')?.change;
    expect(change).toBeGreaterThan(0.3);
  });

  it('finds no significant change in TTFT p50 between two seeds of the same configuration', async () => {
    const report = await compareJson('a', 'b');
    const ttft = report.comparisons[0]?.deltas.find((d) => d.key === 'ttft_p50');
    expect(ttft?.verdict).toBe('unchanged');
    expect(ttft?.ci?.[0]).toBeLessThan(0.05);
    expect(ttft?.ci?.[1]).toBeGreaterThan(-0.05);
    expect(report.comparisons[0]?.differences).toEqual([]);
  });

  it('refuses runs whose sampling differs, naming the fields, unless --allow-different', async () => {
    const refused = await cli(['compare', dir('a'), dir('hot')]);
    expect(refused.code).toBe(ExitCode.USAGE);
    expect(refused.stderr).toContain('error[E_INCOMPARABLE]');
    expect(refused.stderr).toContain('sampling.temperature: 0 → 0.7');
    expect(refused.stderr).toContain('load.requests: 100 → 20');
    expect(refused.stderr).toContain('--allow-different');

    const allowed = await cli(['compare', dir('a'), dir('hot'), '--allow-different', '--json']);
    expect(allowed.code).toBe(ExitCode.OK);
    const paths = (JSON.parse(allowed.stdout) as CompareReport).comparisons[0]?.differences.map(
      (d) => d.path,
    );
    expect(paths).toContain('sampling.temperature');
  });

  it('exits REGRESSION when --fail-on-worse names a metric that got worse', async () => {
    const r = await cli(['compare', dir('a'), dir('slow'), '--fail-on-worse', 'ttft_p50']);
    expect(r.code).toBe(ExitCode.REGRESSION);
    expect(r.stderr).toContain('regression: significantly worse on slow: TTFT p50');
    const fine = await cli(['compare', dir('slow'), dir('a'), '--fail-on-worse', 'any']);
    expect(fine.code).toBe(ExitCode.OK);
  });

  it('prints a terminal table by default and Markdown on request', async () => {
    const table = await cli(['compare', dir('slow'), dir('a')]);
    expect(table.stdout).toMatch(
      /TTFT p50 \(ms\)\s+[\d.]+\s+[\d.]+\s+−[\d.]+% \[−[\d.]+, −[\d.]+\]\s+better/,
    );
    const md = await cli(['compare', dir('slow'), dir('a'), '--markdown']);
    expect(md.stdout.split('\n')[0]).toBe(
      '| Metric | slow (baseline) | a | Δ (95% CI, within run) | Verdict |',
    );
  });
});
