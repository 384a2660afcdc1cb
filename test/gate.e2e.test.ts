/**
 * `goodput gate` end to end against the embedded engine over loopback: every exit code it
 * documents is provoked for real — 0 pass, 4 breach, 2 invalid usage, 3 unmeasurable — with
 * the [GATE PASS]/[GATE FAIL] lines, JUnit XML and the GitHub step summary checked.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import type { RunSummary } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';
import { freePort } from './helpers/loopback.js';

const LOAD = [
  '--requests',
  '24',
  '--concurrency',
  '4',
  '--prompt-tokens',
  '32',
  '--max-tokens',
  '4',
  '--quiet',
];

let work: string;
let engine: SimServer;

function cli(argv: string[], env: Record<string, string> = {}) {
  return runCliInProcess(argv, { cwd: work, env });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-gate-e2e-'));
  engine = await startSim({ seed: 1 });
});

afterAll(async () => {
  await engine?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('goodput gate exit codes', () => {
  it('passes (0) when every threshold holds, writing JUnit and the step summary', async () => {
    const junit = join(work, 'pass', 'junit.xml');
    const stepSummary = join(work, 'step-summary.md');
    writeFileSync(stepSummary, '# earlier step\n');
    const r = await cli(
      [
        'gate',
        '--url',
        engine.url,
        ...LOAD,
        '--out',
        join(work, 'pass-run'),
        '--max-ttft-p99-ms',
        '60000',
        '--max-error-rate',
        '0',
        '--threshold',
        'completed>=24',
        '--junit',
        junit,
      ],
      { GITHUB_STEP_SUMMARY: stepSummary },
    );
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const lines = r.stdout.trim().split('\n');
    expect(lines.slice(0, 3).map((l) => l.slice(0, 11))).toEqual([
      '[GATE PASS]',
      '[GATE PASS]',
      '[GATE PASS]',
    ]);
    expect(lines[0]).toMatch(/^\[GATE PASS\] p99\(ttft\): value [\d.]+ ms, limit <= 60000 ms$/);
    expect(lines[2]).toBe('[GATE PASS] completed: value 24, limit >= 24');
    const xml = readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    expect(xml).not.toContain('<failure');
    const md = readFileSync(stepSummary, 'utf8');
    expect(md.startsWith('# earlier step\n')).toBe(true);
    expect(md).toContain('### goodput gate: PASS');
  });

  it('fails (4) on a breach, naming the threshold, its value and its limit', async () => {
    const junit = join(work, 'fail-junit.xml');
    const r = await cli([
      'gate',
      '--url',
      engine.url,
      ...LOAD,
      '--out',
      join(work, 'fail-run'),
      '--threshold',
      'p50(ttft)<0.001',
      '--threshold',
      'error_rate<0.5',
      '--junit',
      junit,
    ]);
    expect(r.code).toBe(ExitCode.THRESHOLD_BREACH);
    const summary = JSON.parse(readFileSync(join(work, 'fail-run', 'summary.json'), 'utf8')) as RunSummary;
    const p50 = summary.latency.ttft.p50;
    expect(r.stdout).toMatch(/^\[GATE FAIL\] p50\(ttft\): value [\d.]+ ms, limit < 0\.001 ms$/m);
    expect(r.stdout).toContain('[GATE PASS] error_rate: value 0, limit < 0.5');
    expect(r.stdout).toContain('1 of 2 threshold(s) breached');
    const xml = readFileSync(junit, 'utf8');
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('name="p50(ttft) &lt; 0.001 ms"');
    expect(p50).toBeGreaterThan(0.001);
  });

  it('evaluates an existing result with --from, without load', async () => {
    const ok = await cli([
      'gate',
      '--from',
      join(work, 'fail-run'),
      '--threshold',
      'completed>=24',
      '--json',
    ]);
    expect(ok.code).toBe(ExitCode.OK);
    const report = JSON.parse(ok.stdout) as {
      kind: string;
      passed: boolean;
      outcomes: Array<{ value: number }>;
    };
    expect([report.kind, report.passed, report.outcomes[0]?.value]).toEqual(['goodput.gate', true, 24]);
    const breach = await cli(['gate', '--from', join(work, 'fail-run'), '--min-attainment', '1.01']);
    expect(breach.code).toBe(ExitCode.THRESHOLD_BREACH);
  });

  it('rejects invalid usage (2) before sending any request', async () => {
    const bad = await cli(['gate', '--url', engine.url, ...LOAD, '--threshold', 'p99(ttf)<350']);
    expect(bad.code).toBe(ExitCode.USAGE);
    expect(bad.stderr).toContain('error[E_THRESHOLD]');
    expect(bad.stderr).toContain("unknown latency 'ttf'");
    expect(bad.stderr).toContain('hint: write SUBJECT OP NUMBER');
    const none = await cli(['gate', '--from', join(work, 'fail-run')]);
    expect(none.code).toBe(ExitCode.USAGE);
    expect(none.stderr).toContain('no threshold');
    const missing = await cli(['gate', '--from', join(work, 'nothing-here'), '--max-error-rate', '0']);
    expect(missing.code).toBe(ExitCode.USAGE);
  });

  it('reports an endpoint that could not be measured (3), apart from a breach', async () => {
    const port = await freePort();
    const r = await cli([
      'gate',
      '--url',
      `http://127.0.0.1:${port}`,
      '--model',
      'm',
      '--requests',
      '4',
      '--concurrency',
      '2',
      '--max-retries',
      '0',
      '--no-server-metrics',
      '--quiet',
      '--out',
      join(work, 'dead-run'),
      '--max-ttft-p99-ms',
      '350',
    ]);
    expect(r.code, r.stderr).toBe(ExitCode.UNMEASURABLE);
    expect(r.stderr).toMatch(/error\[E_(ALL_FAILED|UNREACHABLE)\]/);
  });

  it('shows the run in the --progress form asked, every --progress-every; refuses them with --from', async () => {
    const run = join(work, 'progress-run');
    const r = await cli([
      'gate',
      '--url',
      engine.url,
      '--duration',
      '1500ms',
      '--concurrency',
      '2',
      '--prompt-tokens',
      '32',
      '--max-tokens',
      '4',
      '--quiet',
      '--progress',
      'lines',
      '--progress-every',
      '1s',
      '--out',
      run,
      '--threshold',
      'completed>=1',
    ]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    // --quiet alone shows nothing and the default lines come every 10 s: these are the flags'.
    expect(r.stderr).toMatch(/^progress: \d+% /m);
    const from = await cli(['gate', '--from', run, '--progress', 'none', '--threshold', 'completed>=1']);
    expect(from.code).toBe(ExitCode.USAGE);
    expect(from.stderr).toContain('--progress show a run');
    expect(from.stderr).toMatch(/hint: drop --progress/);
  });
});
