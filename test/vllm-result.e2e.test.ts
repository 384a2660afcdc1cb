/**
 * goodput reading a vLLM `vllm bench serve --save-result` JSON. The fixtures are written from
 * the keys vLLM documents (current, in test/fixtures/foreign-results.ts: with goodput, std and
 * --percentile-metrics keys and per-request arrays; old, here: only the mean, median and p99 of
 * TTFT, TPOT and ITL). Each gate verdict is on the value the file states; a figure the file
 * lacks fails its threshold and is named, never invented.
 */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { VLLM_DETAILED } from './fixtures/foreign-results.js';
import { resultFilesWorkspace } from './helpers/cli.js';

/** An older vLLM (benchmark_serving.py): no goodput, std, e2el or p90 keys, no per-request arrays. */
const OLD = {
  backend: 'vllm',
  model_id: 'facebook/opt-125m',
  tokenizer_id: 'facebook/opt-125m',
  num_prompts: 10,
  request_rate: 'inf',
  duration: 3.1,
  completed: 10,
  total_input_tokens: 1000,
  total_output_tokens: 1280,
  request_throughput: 3.2,
  output_throughput: 412.9,
  mean_ttft_ms: 410.2,
  median_ttft_ms: 402.0,
  p99_ttft_ms: 512.3,
  mean_tpot_ms: 12.1,
  median_tpot_ms: 12.0,
  p99_tpot_ms: 14.2,
  mean_itl_ms: 12.1,
  median_itl_ms: 11.9,
  p99_itl_ms: 20.4,
};

const {
  work,
  goodputRun,
  cli,
  paths: [current, old],
} = resultFilesWorkspace('goodput-vllm-result-', [
  ['vllm-current.json', VLLM_DETAILED],
  ['vllm-old.json', OLD],
]);

describe('gate --from a vLLM result', () => {
  it("passes and fails on the file's own p99 TTFT", async () => {
    const pass = await cli(['gate', '--from', current, 'p99(ttft)<350', '--quiet']);
    expect(pass.code, pass.stderr).toBe(ExitCode.OK);
    expect(pass.stdout).toContain('[GATE PASS] p99(ttft): value 340.7 ms');
    const fail = await cli(['gate', '--from', old, 'p99(ttft)<350', '--quiet']);
    expect(fail.code, fail.stderr).toBe(ExitCode.THRESHOLD_BREACH);
    expect(fail.stdout).toContain('[GATE FAIL] p99(ttft): value 512.3 ms');
  });

  it('reads each figure under its vLLM key, the median as p50, throughput and goodput as stated', async () => {
    const r = await cli([
      'gate',
      '--from',
      current,
      '--json',
      '--threshold',
      'p50(tpot)<=20.5',
      '--threshold',
      'p90(e2el)<700',
      '--threshold',
      'std(itl)<1',
      '--threshold',
      'request_goodput>=1.2',
      '--threshold',
      'output_throughput>25',
      '--threshold',
      'completed>=4',
    ]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const report = JSON.parse(r.stdout) as { source: string; outcomes: Array<{ value: number | null }> };
    expect(report.source).toBe('vllm');
    expect(report.outcomes.map((o) => o.value)).toEqual([20.5, 650.3, 0.8, 1.2, 25.6, 4]);
    // The old file has no p50 key, only the median: the same statistic.
    const median = await cli(['gate', '--from', old, '--json', 'p50(ttft)<=402']);
    expect(median.code, median.stderr).toBe(ExitCode.OK);
    expect((JSON.parse(median.stdout) as { outcomes: Array<{ value: number }> }).outcomes[0]?.value).toBe(
      402,
    );
  });

  it('a figure the file lacks fails its threshold and is named, never invented', async () => {
    const r = await cli([
      'gate',
      '--from',
      old,
      '--json',
      '--threshold',
      'p99(e2el)<100000',
      '--threshold',
      'request_goodput>0',
      '--threshold',
      'attainment>=0',
      '--threshold',
      'p99(tpot)<100',
    ]);
    expect(r.code, r.stderr).toBe(ExitCode.THRESHOLD_BREACH);
    const report = JSON.parse(r.stdout) as { outcomes: Array<{ value: number | null; passed: boolean }> };
    expect(report.outcomes.map((o) => o.value)).toEqual([null, null, null, 14.2]);
    expect(report.outcomes.map((o) => o.passed)).toEqual([false, false, false, true]);
    for (const t of ['p99(e2el) < 100000 ms', 'request_goodput > 0', 'attainment >= 0']) {
      expect(r.stderr).toContain(
        `warning: ${t}: ${old} (a vLLM --save-result file) does not hold this figure`,
      );
    }
    expect(r.stderr).not.toContain('p99(tpot) < 100 ms:');
  });

  it('--junit is refused with a hint, before any output', async () => {
    const r = await cli(['gate', '--from', current, 'p99(ttft)<350', '--junit', join(work, 'j.xml')]);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain('drop --junit when gating a vLLM result');
    expect(r.stdout).toBe('');
  });
});

interface Delta {
  key: string;
  p?: number;
  why?: string;
  baseline?: number;
  candidate?: number;
  ci?: [number, number];
  verdict: string;
}
interface Report {
  baseline: { source?: string; runId?: string; sourceDate?: string };
  comparisons: Array<{ candidate: { source?: string; runId?: string }; deltas: Delta[]; notes?: string[] }>;
}

describe('compare with a vLLM result', () => {
  it('is refused without --allow-different: its workload cannot be checked', async () => {
    const r = await cli(['compare', current, goodputRun]);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain(
      `${current} is a vLLM result: its sampling, workload and load cannot be checked`,
    );
    expect(r.stderr).toContain('--allow-different');
  });

  it("shows the file's figures as stated, — for what it lacks, intervals from its per-request arrays", async () => {
    const r = await cli(['compare', current, goodputRun, '--allow-different', '--json']);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.baseline).toMatchObject({ source: 'vllm', sourceDate: '20250601-101500' });
    expect(report.baseline.runId).toBeUndefined();
    const [cmp] = report.comparisons;
    const by = new Map(cmp?.deltas.map((d) => [d.key, d]));
    expect(by.get('ttft_p99')?.baseline).toBe(340.7);
    expect(by.get('ttft_p50')?.baseline).toBe(275);
    expect(by.get('tpot_p99')?.baseline).toBe(21.97);
    expect(by.get('e2el_p99')?.baseline).toBe(661.2);
    expect(by.get('request_goodput')?.baseline).toBe(1.2);
    // Both state a p99 TTFT, and the detailed file holds each request's TTFT (`ttfts`): the
    // figure shown is the file's. Its 4 requests are too few for a p99 interval (none lies
    // beyond it): the row says so rather than a verdict. The p50's interval and verdict come
    // from the per-request values.
    expect(by.get('ttft_p99')?.candidate).toBeGreaterThan(0);
    expect(by.get('ttft_p99')).toMatchObject({ baseline: 340.7, verdict: 'untested' });
    expect(by.get('ttft_p99')?.ci).toBeUndefined();
    expect(by.get('ttft_p99')?.why).toMatch(
      /too few samples for a p99 interval \(4 and \d+\): each run needs 100/,
    );
    expect(by.get('ttft_p50')?.ci).toHaveLength(2);
    expect(by.get('ttft_p50')?.verdict).toBe('better');
    expect(by.get('ttft_p50')?.p).toBeLessThan(0.05);
    // the inter-chunk gaps of 4 requests: too few for a p99 interval too
    expect(by.get('itl_p99')?.why).toMatch(/too few samples for a p99 interval/);
    // TPOT and E2EL are not stated per request: their figures compare, without an interval, and say why.
    expect(by.get('tpot_p99')).toMatchObject({ baseline: 21.97, verdict: 'untested' });
    expect(by.get('tpot_p99')?.why).toContain(
      'states TTFT and inter-chunk gaps per request, not this latency',
    );
    // Request throughput: counts on both sides (vLLM's `completed`), so a rate-ratio interval.
    expect(by.get('request_throughput')?.baseline).toBe(1.6);
    expect(by.get('request_throughput')?.ci).toHaveLength(2);
    expect(by.get('request_throughput')?.verdict).not.toBe('untested');
    // goodput's own figures are not in a vLLM file: missing, never invented.
    for (const key of ['attainment', 'error_rate', 'goodput_ratio']) {
      expect(by.get(key)?.baseline, key).toBeUndefined();
      expect(by.get(key)?.verdict, key).toBe('untested');
    }
    expect(cmp?.notes?.[0]).toContain('is a vLLM result');
    expect(cmp?.notes?.[0]).toContain(
      'per-request values (4 requests) give TTFT, ITL their intervals, the other latency rows have none',
    );
    // Every row has a verdict or says why it has none.
    for (const d of cmp?.deltas ?? []) if (d.verdict === 'untested') expect(d.why, d.key).toBeTruthy();

    const table = await cli(['compare', current, goodputRun, '--allow-different']);
    expect(table.code, table.stderr).toBe(ExitCode.OK);
    expect(table.stdout).toContain('vllm-current.json is a vLLM result');
    expect(table.stdout).toMatch(/TTFT p99 \(ms\)\s+341/);
  });

  it('goodput import keeps the per-request arrays: the imported directory compares as the file does', async () => {
    const dir = join(work, 'imported-current');
    const imp = await cli(['import', current, '-o', dir]);
    expect(imp.code, imp.stderr).toBe(ExitCode.OK);
    const fromDir = await cli(['compare', dir, goodputRun, '--allow-different', '--json']);
    expect(fromDir.code, fromDir.stderr).toBe(ExitCode.OK);
    const by = new Map((JSON.parse(fromDir.stdout) as Report).comparisons[0]?.deltas.map((d) => [d.key, d]));
    expect(by.get('ttft_p50')).toMatchObject({ baseline: 275, verdict: 'better' });
    expect(by.get('ttft_p50')?.ci).toHaveLength(2);
    expect(by.get('ttft_p99')?.why).toMatch(/too few samples for a p99 interval \(4 and/);
  });

  it('an old vLLM result as the candidate: the keys it lacks are —', async () => {
    const r = await cli(['compare', goodputRun, old, '--allow-different', '--json']);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const report = JSON.parse(r.stdout) as Report;
    const by = new Map(report.comparisons[0]?.deltas.map((d) => [d.key, d]));
    expect(report.comparisons[0]?.candidate.source).toBe('vllm');
    expect(by.get('ttft_p50')?.candidate).toBe(402);
    expect(by.get('e2el_p99')?.candidate).toBeUndefined();
    expect(by.get('request_goodput')?.candidate).toBeUndefined();
    expect(by.get('request_goodput')?.verdict).toBe('untested');
  });
});
