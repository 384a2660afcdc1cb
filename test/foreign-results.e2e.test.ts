/**
 * goodput reading guidellm, AIPerf and GenAI-Perf results (fixtures written from their
 * documented keys in test/fixtures/foreign-results.ts): gate --from on the figure the file
 * states, compare against a goodput run with every missing figure said per metric, a guidellm
 * sweep's benchmark picked with FILE#N or refused with a list, and commands that need a
 * goodput run refusing them with a hint.
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import {
  AIPERF_EXPORT,
  GENAI_PERF_EXPORT,
  GUIDELLM_SWEEP,
  VLLM_CURRENT,
} from './fixtures/foreign-results.js';
import { resultFilesWorkspace } from './helpers/cli.js';

const {
  work,
  goodputRun,
  cli,
  paths: [sweep, aiperf, genai],
} = resultFilesWorkspace('goodput-foreign-', [
  ['benchmarks.json', GUIDELLM_SWEEP],
  ['profile_export_aiperf.json', AIPERF_EXPORT],
  ['profile_export_genai_perf.json', GENAI_PERF_EXPORT],
]);

interface GateJson {
  source: string;
  benchmark?: { index: number; label: string };
  outcomes: Array<{ value: number | null; passed: boolean }>;
}

describe('gate --from another tool', () => {
  it("AIPerf: passes and breaches on the file's own p99 TTFT", async () => {
    const pass = await cli(['gate', '--from', aiperf, 'p99(ttft)<350', '--quiet']);
    expect(pass.code, pass.stderr).toBe(ExitCode.OK);
    expect(pass.stdout).toContain('[GATE PASS] p99(ttft): value 342.3 ms');
    const fail = await cli(['gate', '--from', aiperf, 'p99(ttft)<300']);
    expect(fail.code, fail.stderr).toBe(ExitCode.THRESHOLD_BREACH);
  });

  it('a vLLM file stating an impossible p99 TTFT (−5 ms) does not pass a gate on it: not measured', async () => {
    const file = join(work, 'impossible-vllm.json');
    writeFileSync(file, JSON.stringify({ ...VLLM_CURRENT, p99_ttft_ms: -5, request_throughput: -10 }));
    const r = await cli(['gate', '--from', file, 'p99(ttft)<350']);
    expect(r.code, r.stderr).toBe(ExitCode.THRESHOLD_BREACH);
    expect(r.stdout).toMatch(/\[GATE FAIL\] p99\(ttft\).*not measured/);
  });

  it('GenAI-Perf: its per-request inter_token_latency is TPOT', async () => {
    const r = await cli(['gate', '--from', genai, '--json', 'p50(tpot)<=12.25', 'p99(e2el)<2100']);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const g = JSON.parse(r.stdout) as GateJson;
    expect(g.source).toBe('genai-perf');
    expect(g.outcomes.map((o) => o.value)).toEqual([12.25, 2010.25]);
  });

  it('a guidellm sweep: #N picks a benchmark, both directions on its own figure', async () => {
    const pass = await cli(['gate', '--from', `${sweep}#2`, '--json', 'p99(ttft)<350', 'p99(e2el)<=2500']);
    expect(pass.code, pass.stderr).toBe(ExitCode.OK);
    const g = JSON.parse(pass.stdout) as GateJson;
    expect(g.benchmark).toMatchObject({ index: 2, label: 'constant 4 req/s' });
    expect(g.outcomes.map((o) => o.value)).toEqual([240.25, 2500]);
    const fail = await cli(['gate', '--from', `${sweep}#3`, 'p99(ttft)<350']);
    expect(fail.code, fail.stderr).toBe(ExitCode.THRESHOLD_BREACH);
    expect(fail.stdout).toContain('[GATE FAIL] p99(ttft): value 480.8 ms');
  });

  it('a guidellm sweep without #N is refused, listing its benchmarks', async () => {
    const r = await cli(['gate', '--from', sweep, 'p99(ttft)<350']);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain('holds 3 benchmarks');
    expect(r.stderr).toContain(`${sweep}#1: synchronous`);
    expect(r.stderr).toContain(`${sweep}#3: constant 8 req/s`);
    const out = await cli(['gate', '--from', `${sweep}#9`, 'p99(ttft)<350']);
    expect(out.code).toBe(ExitCode.USAGE);
    expect(out.stderr).toContain('no benchmark #9: it holds 3');
  });

  it('a figure guidellm defines otherwise (TPOT) fails its threshold and is named', async () => {
    const r = await cli(['gate', '--from', `${sweep}#1`, 'p99(tpot)<1000']);
    expect(r.code).toBe(ExitCode.THRESHOLD_BREACH);
    expect(r.stderr).toContain('(a guidellm benchmarks file) does not hold this figure');
  });
});

interface Delta {
  key: string;
  baseline?: number;
  candidate?: number;
  verdict: string;
  why?: string;
}

describe('compare with another tool', () => {
  it('AIPerf against a goodput run: each figure both have, and why each row has no verdict', async () => {
    const r = await cli(['compare', aiperf, goodputRun, '--allow-different', '--json']);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const report = JSON.parse(r.stdout) as {
      baseline: { source: string };
      comparisons: Array<{ deltas: Delta[] }>;
    };
    expect(report.baseline.source).toBe('aiperf');
    const by = new Map(report.comparisons[0]?.deltas.map((d) => [d.key, d]));
    expect(by.get('ttft_p99')).toMatchObject({ baseline: 342.25, verdict: 'untested' });
    expect(by.get('ttft_p99')?.why).toContain('has no per-request samples');
    expect(by.get('tpot_p99')?.baseline).toBe(55.875);
    expect(by.get('request_throughput')?.baseline).toBe(13.25);
    expect(by.get('request_throughput')?.verdict).not.toBe('untested');
    expect(by.get('request_goodput')?.why).toContain('does not state it');
    for (const d of report.comparisons[0]?.deltas ?? []) {
      if (d.verdict === 'untested') expect(d.why, d.key).toBeTruthy();
    }
    const table = await cli(['compare', aiperf, goodputRun, '--allow-different']);
    expect(table.stdout).toContain('profile_export_aiperf.json is an AIPerf result');
    expect(table.stdout).toMatch(
      /no verdict on TTFT p50, TTFT p99, TPOT p50, TPOT p99, E2EL p99: profile_export_aiperf.json has no per-request samples/,
    );
  });

  it('two benchmarks of a guidellm sweep: the figures they state, no interval without samples', async () => {
    const r = await cli(['compare', `${sweep}#1`, `${sweep}#3`, '--allow-different', '--json']);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const report = JSON.parse(r.stdout) as {
      comparisons: Array<{ candidate: { name: string }; deltas: Delta[] }>;
    };
    expect(report.comparisons[0]?.candidate.name).toBe('benchmarks.json#3');
    const by = new Map(report.comparisons[0]?.deltas.map((d) => [d.key, d]));
    expect(by.get('ttft_p99')).toMatchObject({ baseline: 120.5, candidate: 480.75 });
    expect(by.get('e2el_p99')).toMatchObject({ baseline: 1234.5, candidate: 4500 });
    expect(by.get('tpot_p99')?.baseline).toBeUndefined();
  });

  it('a sweep without #N is refused with the list', async () => {
    const r = await cli(['compare', sweep, goodputRun, '--allow-different']);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain(`${sweep}#2: constant 4 req/s`);
  });

  it('is refused without --allow-different', async () => {
    const r = await cli(['compare', goodputRun, genai]);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain('is a GenAI-Perf result: its sampling, workload and load cannot be checked');
  });
});

describe('commands that need a goodput run', () => {
  it("merge refuses another tool's result, naming what reads it", async () => {
    const r = await cli(['merge', goodputRun, aiperf, '--out', join(work, 'merged')]);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain('this looks like a GenAI-Perf / AIPerf profile export');
    expect(r.stderr).toContain('compare, gate --from and report read it');
  });

  it('#N on a file that is not a sweep is refused', async () => {
    const r = await cli(['gate', '--from', `${aiperf}#1`, 'p99(ttft)<350']);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain('is not one');
  });
});
