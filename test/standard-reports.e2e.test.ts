/**
 * Standard reports: the llm-d benchmark report v0.2 written by `report --format llm-d`, valid
 * against llm-d's own JSON Schema (vendored), imported back to the same figures; and the
 * readers of the current formats of AIPerf (schema 1.5 with its per-request JSONL), guidellm
 * 0.7, inference-perf and SGLang's bench_serving, each on a file shaped as that version writes
 * it (test/fixtures/foreign-formats.ts), with unknown versions and damaged files refused by name.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { metricById } from '../src/metrics/index.js';
import type { ImportedSummary, RunSummary } from '../src/types.js';
import {
  AIPERF_15_EXPORT,
  AIPERF_RECORDS,
  guidellm07,
  inferencePerfReport,
  SGLANG_JSONL,
} from './fixtures/foreign-formats.js';
import { resultFilesWorkspace } from './helpers/cli.js';

const { work, goodputRun, cli, paths } = resultFilesWorkspace('goodput-standard-', [
  ['profile_export_aiperf.json', AIPERF_15_EXPORT],
  ['benchmarks.json', guidellm07()],
  ['benchmarks-v3.json', guidellm07(3)],
  ['summary_lifecycle_metrics.json', inferencePerfReport()],
  ['stage_0_lifecycle_metrics.json', inferencePerfReport({ rate: 10, concurrency: 0 })],
]);
const [aiperf, guidellm, guidellmV3, ipSummary, ipStage] = paths;
writeFileSync(
  join(work, 'profile_export.jsonl'),
  `${AIPERF_RECORDS.map((r) => JSON.stringify(r)).join('\n')}\n`,
);
const sglang = join(work, 'sglang.jsonl');
writeFileSync(sglang, SGLANG_JSONL);

const ROOT = join(import.meta.dirname, '..');
const schema = JSON.parse(
  readFileSync(join(ROOT, 'vendor/llm-d-benchmark/br_v0_2_json_schema.json'), 'utf8'),
);
// strict: false lets the schema's pydantic leftovers (`ge`, `discriminator` with a mapping) pass as annotations.
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
ajv.addFormat('date-time', (s: string) =>
  /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s),
);
const validateLlmd = ajv.compile(schema);

function schemaErrors(report: unknown): string {
  return validateLlmd(report) ? '' : ajv.errorsText(validateLlmd.errors, { separator: '\n' });
}

async function importJson(file: string, out: string): Promise<ImportedSummary> {
  const r = await cli(['import', file, '-o', join(work, out), '--json']);
  expect(r.code, r.stderr).toBe(ExitCode.OK);
  return JSON.parse(r.stdout);
}

describe('llm-d benchmark report v0.2', () => {
  it('round trip: written, valid against its JSON Schema, imported to the same figures, compared as equal', async () => {
    const file = join(work, 'run.llm-d.json');
    const r = await cli(['report', goodputRun, '--format', 'llm-d', '-o', file]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const report = JSON.parse(readFileSync(file, 'utf8'));
    expect(schemaErrors(report)).toBe('');
    expect(report.version).toBe('0.2');
    const summary: RunSummary = JSON.parse(readFileSync(join(goodputRun, 'summary.json'), 'utf8'));
    const latency = report.results.request_performance.aggregate.latency;
    expect(latency.time_to_first_token).toMatchObject({ units: 'ms', p99: summary.latency.ttft.p99 });
    expect(latency.time_per_output_token.units).toBe('ms/token');
    expect(report.results.request_performance.aggregate.requests).toMatchObject({
      total: summary.counts.attempted,
      failures: summary.counts.failed,
    });

    const imported = await importJson(file, 'llmd-imported');
    expect(imported.source.tool).toBe('llm-d');
    expect(imported.model).toBe(summary.meta.model);
    const ids = ['ttft', 'tpot', 'itl', 'e2el'].flatMap((l) =>
      ['mean', 'std', 'min', 'p50', 'p90', 'p95', 'p99', 'p999', 'max'].map((s) => `${l}_${s}`),
    );
    for (const id of [
      ...ids,
      'request_throughput',
      'output_throughput',
      'total_token_throughput',
      'completed',
      'failed',
    ]) {
      const def = metricById(id)!;
      expect(imported.figures[id], id).toBe(def.read(summary));
    }
    const cmp = await cli(['compare', goodputRun, file, '--json', '--allow-different']);
    expect(cmp.code, cmp.stderr).toBe(ExitCode.OK);
    const deltas: Array<{ key: string; baseline?: number; candidate?: number; change?: number }> = JSON.parse(
      cmp.stdout,
    ).comparisons[0].deltas;
    for (const key of ['ttft_p99', 'tpot_p50', 'e2el_p99', 'output_throughput']) {
      const row = deltas.find((d) => d.key === key);
      expect(row?.baseline, key).toBeDefined();
      expect(row?.candidate, key).toBe(row?.baseline);
      expect(row?.change, key).toBe(0);
    }
  });

  it('an open-loop run with a spread of prompt lengths and ignore_eos: its load described, still valid', async () => {
    const dir = join(work, 'open-run');
    const run = await cli([
      'run',
      '--time',
      'virtual',
      '--requests',
      '20',
      '--rate',
      '40',
      '--prompt-tokens',
      '64',
      '--prompt-tokens-range',
      '0.5',
      '--max-tokens',
      '6',
      '--ignore-eos',
      '--out',
      dir,
      '--quiet',
    ]);
    expect(run.code, run.stderr).toBe(ExitCode.OK);
    const r = await cli(['report', dir, '--format', 'llm-d']);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const report = JSON.parse(r.stdout);
    expect(schemaErrors(report)).toBe('');
    expect(report.scenario.load.standardized).toMatchObject({
      tool: 'goodput',
      source: 'random',
      rate_qps: 40,
      input_seq_len: { distribution: 'uniform', value: 64, min: 32, max: 96 },
      output_seq_len: { distribution: 'fixed', value: 6 },
    });
  });

  it("another tool's result converted to llm-d is valid too, and several runs are refused", async () => {
    const file = join(work, 'guidellm.llm-d.json');
    const r = await cli(['report', guidellm, '--format', 'llm-d', '-o', file]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const report = JSON.parse(readFileSync(file, 'utf8'));
    expect(schemaErrors(report)).toBe('');
    expect(report.results.request_performance.aggregate.latency.time_to_first_token.p99).toBe(260);
    const two = await cli(['report', goodputRun, guidellm, '--format', 'llm-d']);
    expect(two.code).toBe(ExitCode.USAGE);
    expect(two.stderr).toContain('one run a report');
  });

  it("llm-d's own example report, in YAML as llm-d-benchmark writes it: seconds to ms, the harness named", async () => {
    const example = join(ROOT, 'vendor/llm-d-benchmark/br_v0_2_example.yaml');
    const imported = await importJson(example, 'llmd-example');
    expect(imported.source.tool).toBe('llm-d');
    expect(imported.model).toBe('Qwen/Qwen3-0.6B');
    expect(imported.figures.ttft_p99).toBeCloseTo(0.05029489721637218 * 1000, 9);
    expect(imported.figures.tpot_mean).toBeCloseTo(0.0368578234128654 * 1000, 9);
    expect(imported.figures).toMatchObject({ completed: 500, failed: 0, request_throughput: 2262.448 });
    expect(imported.context).toContainEqual(['load generator', 'inference-perf 0.3.0']);
    expect(imported.notes.join('\n')).toContain('figures as inference-perf defined them');
  });

  it('an unknown version and a damaged field are usage errors naming the file, the field and the fix', async () => {
    const good = JSON.parse(readFileSync(join(work, 'run.llm-d.json'), 'utf8'));
    const old = join(work, 'old.llm-d.json');
    writeFileSync(old, JSON.stringify({ ...good, version: '0.1' }));
    const v = await cli(['import', old, '-o', join(work, 'old-imported')]);
    expect(v.code).toBe(ExitCode.USAGE);
    expect(v.stderr).toContain(old);
    expect(v.stderr).toContain('field version string "0.1"');
    expect(v.stderr).toContain('goodput reads versions 0.2 and 0.2.1');
    const damaged = structuredClone(good);
    damaged.results.request_performance.aggregate.latency.time_to_first_token.mean = 'fast';
    const bad = join(work, 'damaged.llm-d.json');
    writeFileSync(bad, JSON.stringify(damaged));
    const d = await cli(['compare', goodputRun, bad]);
    expect(d.code).toBe(ExitCode.USAGE);
    expect(d.stderr).toContain('results.request_performance.aggregate.latency.time_to_first_token.mean');
    expect(d.stderr).toContain('string "fast"');
  });
});

describe('current formats of other tools', () => {
  it('AIPerf 1.5 with profile_export.jsonl: its figures, and per-request samples of successful profiling requests', async () => {
    const imported = await importJson(aiperf, 'aiperf-imported');
    expect(imported.source.tool).toBe('aiperf');
    expect(imported.figures).toMatchObject({
      ttft_p99: 79,
      tpot_mean: 11.5,
      itl_p50: 11.5,
      e2el_p99: 610,
      failed: 1,
    });
    // Warmup metrics and the warmup, cancelled and failed records stay out.
    expect(imported.samples?.ttftMs).toEqual([40, 50, 60, 70]);
    expect(imported.samples?.tpotMs).toEqual([11, 11.5, 12, 11.5]);
    expect(imported.samples?.e2elMs).toEqual([300, 380, 430, 530]);
    expect(imported.samples?.itlMs).toEqual([10, 12, 9, 13, 11, 12, 11, 10, 14, 11, 12]);
    expect(imported.context).toContainEqual(['export schema', '1.5']);
    const cmp = await cli(['compare', goodputRun, aiperf, '--json', '--allow-different']);
    expect(cmp.code, cmp.stderr).toBe(ExitCode.OK);
    const comparison = JSON.parse(cmp.stdout).comparisons[0];
    expect(comparison.notes[0]).toContain('is an AIPerf result');
    expect(comparison.notes[0]).toContain(
      'per-request values (4 requests) give TTFT, ITL, TPOT, E2EL their intervals',
    );
    const deltas: Array<{ key: string; ci?: unknown; why?: string }> = comparison.deltas;
    // The records give the medians an interval; four requests are too few for a p99 one (said so).
    for (const key of ['ttft_p50', 'tpot_p50'])
      expect(deltas.find((d) => d.key === key)?.ci, key).toBeDefined();
    for (const key of ['itl_p99', 'e2el_p99']) {
      const row = deltas.find((d) => d.key === key);
      expect(row?.ci, key).toBeUndefined();
      expect(row?.why, key).toMatch(/p99|requests|samples/);
      expect(row?.why, key).not.toContain('no per-request');
    }
    const newer = join(work, 'newer_aiperf.json');
    writeFileSync(newer, JSON.stringify({ ...AIPERF_15_EXPORT, schema_version: '2.0' }));
    const refused = await cli(['import', newer, '-o', join(work, 'newer')]);
    expect(refused.code).toBe(ExitCode.USAGE);
    expect(refused.stderr).toContain('field schema_version string "2.0"');
  });

  it('guidellm 0.7 (metadata.version 2): model from config.spec.backend, figures of successful requests; version 3 refused', async () => {
    const imported = await importJson(guidellm, 'guidellm-imported');
    expect(imported.model).toBe('Qwen/Qwen3-0.6B');
    expect(imported.figures).toMatchObject({
      ttft_p99: 260,
      e2el_p99: 1600,
      request_throughput: 8,
      completed: 240,
      failed: 2,
    });
    expect(imported.figures.tpot_mean).toBeUndefined();
    expect(imported.context).toContainEqual(['strategy', 'concurrent 8 streams']);
    // The kept successful requests (the errored one left out): TTFT and E2EL per request.
    expect(imported.samples?.ttftMs).toEqual([110, 130, 150]);
    expect(imported.samples?.e2elMs).toEqual([800, 950, 1100]);
    expect(imported.samples?.itlMs).toEqual([]);
    expect(imported.samples?.tpotMs).toBeUndefined();
    const v3 = await cli(['import', guidellmV3, '-o', join(work, 'v3')]);
    expect(v3.code).toBe(ExitCode.USAGE);
    expect(v3.stderr).toContain('field metadata.version number 3');
    expect(v3.stderr).toContain('guidellm 0.7');
  });

  it('inference-perf summary and stage files: seconds to ms, ITL left out and said why', async () => {
    const summary = await importJson(ipSummary, 'ip-summary');
    expect(summary.source.tool).toBe('inference-perf');
    expect(summary.figures).toMatchObject({
      ttft_mean: 150,
      ttft_p99: 420,
      tpot_p50: 12,
      e2el_p50: 1200,
      completed: 598,
      failed: 2,
    });
    expect(summary.figures.request_throughput).toBe(9.88);
    expect(summary.missing).toContain('itl_p50');
    expect(summary.notes.join('\n')).toContain("inference-perf's inter_token_latency");
    const stage = await importJson(ipStage, 'ip-stage');
    expect(stage.context).toContainEqual(['requested rate (req/s)', '10']);
    expect(stage.context).toContainEqual(['achieved rate (req/s)', '10.01']);
  });

  it('SGLang bench_serving JSONL: one benchmark a line (Infinity read), FILE#N picks one, details give samples', async () => {
    const all = await cli(['import', sglang, '-o', join(work, 'sg-all')]);
    expect(all.code).toBe(ExitCode.USAGE);
    expect(all.stderr).toContain('holds 2 benchmarks');
    const first = await importJson(`${sglang}#1`, 'sg-1');
    expect(first.source.tool).toBe('sglang');
    expect(first.figures).toMatchObject({
      ttft_p99: 180.7,
      e2el_mean: 1610.2,
      itl_p95: 14.1,
      completed: 200,
    });
    expect(first.figures.total_token_throughput).toBeCloseTo(9990.2 + 1248.8, 9);
    expect(first.context).toContainEqual(['request rate', 'Infinity']);
    const second = await importJson(`${sglang}#2`, 'sg-2');
    expect(second.samples?.ttftMs).toEqual([40, 50]);
    expect(second.samples?.itlMs).toEqual([12, 13, 12, 13]);
  });
});
