/**
 * `goodput report` drawing other tools' results (a vLLM result, each benchmark of a guidellm
 * sweep, an AIPerf export; fixtures from their documented keys), and `goodput import` writing
 * one as a result directory that compare, gate --from and report then read.
 */

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { ImportedSummarySchema } from '../src/results/schema.js';
import { AIPERF_EXPORT, GUIDELLM_SWEEP, VLLM_CURRENT, VLLM_OLDEST } from './fixtures/foreign-results.js';
import { resultFilesWorkspace } from './helpers/cli.js';

const {
  work,
  goodputRun,
  cli,
  paths: [vllm, oldest, sweep, aiperf],
} = resultFilesWorkspace('goodput-import-', [
  ['vllm.json', VLLM_CURRENT],
  ['vllm-oldest.json', VLLM_OLDEST],
  ['benchmarks.json', GUIDELLM_SWEEP],
  ['profile_export_aiperf.json', AIPERF_EXPORT],
]);

/** The chart specs embedded in a report page. */
function chartsOf(html: string): Array<{
  id: string;
  series: Array<{ label: string; style?: string; data: { x: number[]; y: number[] } }>;
}> {
  const m = /<script type="application\/json" id="goodput-charts">([\s\S]*?)<\/script>/.exec(html);
  return JSON.parse(m![1]!);
}

describe("report draws other tools' results", () => {
  it('vLLM: stated percentiles as CDF points, its tables, and what it does not state', async () => {
    const out = join(work, 'vllm.html');
    const r = await cli(['report', vllm, '-o', out]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<section id="imported">');
    expect(html).toContain('vllm.json · vLLM result · meta-llama/Llama-3.1-8B-Instruct');
    expect(html).toContain('Not stated by the source');
    expect(html).toContain('No timeline for vllm.json');
    const ttft = chartsOf(html).find((c) => c.id === 'chart-cdf-ttft');
    // p50, p90, p99 stated; p95, p99.9 and max not: three points, nothing between them.
    expect(ttft?.series[0]).toMatchObject({
      style: 'points',
      data: { x: [275, 329.4, 340.7], y: [50, 90, 99] },
    });
    expect(chartsOf(html).map((c) => c.id)).toEqual([
      'chart-cdf-ttft',
      'chart-cdf-tpot',
      'chart-cdf-itl',
      'chart-cdf-e2el',
    ]);
  });

  it('a guidellm sweep: every benchmark is a run; with a goodput run beside them', async () => {
    const out = join(work, 'sweep.html');
    const r = await cli(['report', goodputRun, sweep, '-o', out]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const html = readFileSync(out, 'utf8');
    for (const label of ['benchmarks.json#1', 'benchmarks.json#2', 'benchmarks.json#3'])
      expect(html).toContain(label);
    expect(html).toContain('<section id="timeline">');
    const ttft = chartsOf(html).find((c) => c.id === 'chart-cdf-ttft');
    expect(ttft?.series.map((s) => s.style ?? 'line')).toEqual(['line', 'points', 'points', 'points']);
    expect(ttft?.series[2]?.data.x).toContain(240.25);
    // guidellm states no TPOT in goodput's sense: only the goodput run is on that chart.
    expect(chartsOf(html).find((c) => c.id === 'chart-cdf-tpot')?.series).toHaveLength(1);
  });

  it('AIPerf, as Markdown and as text: the figures it states and the ones it does not', async () => {
    const md = await cli(['report', aiperf, '--format', 'markdown']);
    expect(md.code, md.stderr).toBe(ExitCode.OK);
    expect(md.stdout).toContain('## profile_export_aiperf.json · AIPerf result · openai/gpt-oss-20b');
    expect(md.stdout).toContain('| TTFT | 158.5 | 158.5 | 308.0 | 325.1 | 342.3 | — | 412.1 |');
    expect(md.stdout).toContain('ITL (every statistic)');
    const text = await cli(['report', `${sweep}#2`, '--format', 'text']);
    expect(text.code, text.stderr).toBe(ExitCode.OK);
    expect(text.stdout).toContain('benchmark 2 of 3 (constant 4 req/s)');
    expect(text.stdout).toMatch(/E2EL\s+1250\s+1250\s+2000\s+2250\s+2500\s+2500\s+2500/);
  });

  it('CSV: a row per result, empty where the source states nothing (never 0)', async () => {
    const r = await cli(['report', oldest, '--format', 'csv']);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    const [head, row] = r.stdout.trim().split('\r\n');
    const cols = head!.split(',');
    const cells = row!.split(',');
    const at = (id: string) => cells[cols.indexOf(id)];
    expect(at('ttft_p99')).toBe('512.3');
    expect(at('request_throughput')).toBe('3.2');
    expect(at('e2el_p99')).toBe('');
    expect(at('request_goodput')).toBe('');
  });
});

describe('goodput import', () => {
  it('writes summary.json marked as imported: tool, sha256, figures as stated, the missing ones listed; no records', async () => {
    const dir = join(work, 'imported-aiperf');
    const r = await cli(['import', aiperf, '-o', dir]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    expect(r.stdout).toContain('AIPerf result');
    const summary = ImportedSummarySchema.parse(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')));
    expect(summary.kind).toBe('goodput.imported');
    expect(summary.source.tool).toBe('aiperf');
    expect(summary.source.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(summary.figures.ttft_p99).toBe(342.25);
    expect(summary.missing).toContain('request_goodput');
    expect(summary.missing).not.toContain('ttft_p99');
    expect(existsSync(join(dir, 'requests.jsonl'))).toBe(false);
  });

  it('round trip: gate, compare and report read the directory as they read the file', async () => {
    const dir = join(work, 'imported-sweep-2');
    expect((await cli(['import', `${sweep}#2`, '-o', dir])).code).toBe(ExitCode.OK);
    const pass = await cli(['gate', '--from', dir, 'p99(ttft)<350', '--json']);
    expect(pass.code, pass.stderr).toBe(ExitCode.OK);
    expect(JSON.parse(pass.stdout)).toMatchObject({ source: 'guidellm', outcomes: [{ value: 240.25 }] });
    expect((await cli(['gate', '--from', dir, 'p99(ttft)<200'])).code).toBe(ExitCode.THRESHOLD_BREACH);
    const fromFile = await cli(['compare', `${sweep}#2`, goodputRun, '--allow-different', '--json']);
    const fromDir = await cli(['compare', dir, goodputRun, '--allow-different', '--json']);
    expect(fromDir.code, fromDir.stderr).toBe(ExitCode.OK);
    type D = { key: string; baseline?: number; candidate?: number; ci?: number[]; verdict: string };
    const deltas = (s: string) =>
      (JSON.parse(s) as { comparisons: Array<{ deltas: D[] }> }).comparisons[0]?.deltas.map(
        ({ key, baseline, candidate, ci, verdict }) => ({ key, baseline, candidate, ci, verdict }),
      );
    expect(deltas(fromDir.stdout)).toEqual(deltas(fromFile.stdout));
    const html = join(work, 'roundtrip.html');
    const rep = await cli(['report', dir, '-o', html]);
    expect(rep.code, rep.stderr).toBe(ExitCode.OK);
    expect(readFileSync(html, 'utf8')).toContain('imported-sweep-2 · guidellm result');
  });

  it('a sweep without #N is refused with the list; merge refuses an imported directory', async () => {
    const r = await cli(['import', sweep, '-o', join(work, 'nope')]);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain(`${sweep}#3: constant 8 req/s`);
    const dir = join(work, 'imported-vllm');
    expect((await cli(['import', vllm, '-o', dir])).code).toBe(ExitCode.OK);
    const merge = await cli(['merge', goodputRun, dir, '--out', join(work, 'merged')]);
    expect(merge.code).toBe(ExitCode.USAGE);
    expect(merge.stderr).toContain('a goodput imported file');
    expect(merge.stderr).toContain('no per-request records or histograms');
  });
});
