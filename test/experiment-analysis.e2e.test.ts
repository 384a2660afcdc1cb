/**
 * The experiment's analysis on real virtual-time runs of the embedded engine (an experiment
 * folder made as the executor makes one): an A/A pair gives no significant change on any
 * metric, a slower GPU is worse with decode dragged, a failed configuration is a row that says
 * so, and the four renderings carry the same rows.
 */

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  analyzeExperiment,
  type ExperimentAnalysis,
  renderExperimentCsv,
  renderExperimentJson,
  renderExperimentMarkdown,
  renderExperimentTable,
} from '../src/experiment/analysis/index.js';
import { parseCsv } from './helpers/csv.js';
import { writeExperimentFixture } from './helpers/experiment-fixture.js';

let analysis: ExperimentAnalysis;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'goodput-exp-analysis-'));
  await writeExperimentFixture(dir, {
    name: 'aa-and-a100',
    common: {
      load: { concurrency: 8, requests: 40 },
      workload: { promptTokens: 512, promptTokensRange: 0.3 },
      sampling: { temperature: 0, maxTokens: 48, ignoreEos: false },
    },
    configurations: [
      { name: 'h100', config: { sim: { profile: 'h100:llama-3.1-8b' } } },
      { name: '=h100 twin', config: { sim: { profile: 'h100:llama-3.1-8b' } } },
      { name: 'a100', config: { sim: { profile: 'a100:llama-3.1-8b' } } },
      {
        name: 'broken',
        failure: { code: 'E_SERVE', message: 'the server exited with code 2', hint: 'see its log' },
      },
    ],
  });
  analysis = await analyzeExperiment(dir, { resamples: 200 });
}, 120_000);

describe('analyzeExperiment on virtual-time runs', () => {
  it('gives the A/A twin no significant change on every metric, and no winner', () => {
    const twin = analysis.configurations[1];
    expect(twin?.label).toBe('Exp-1');
    const verdicts = Object.values(twin?.cells ?? {}).map((c) => c.vsBaseline?.verdict);
    expect(verdicts.length).toBeGreaterThan(10);
    for (const v of verdicts) expect(['no significant change', 'untested']).toContain(v);
    expect(verdicts).toContain('no significant change');
    expect(twin?.verdict).toBe('no significant change');
    expect(twin?.hypotheses).toEqual([]);
    expect(analysis.winner.name).toBeUndefined();
    expect(analysis.winner.reason).toMatch(/^no conclusion/);
  });

  it('calls the slower GPU worse across runs, with an interval, and reads decode as dragged', () => {
    const a100 = analysis.configurations[2];
    const tpot = a100?.cells.tpot_p99;
    expect(tpot?.vsBaseline?.verdict).toBe('worse');
    expect(tpot?.vsBaseline?.ci?.[0]).toBeGreaterThan(0);
    expect(tpot?.spread.n).toBe(3);
    expect(tpot?.spread.std).toBeGreaterThan(0); // the repeats differ (their seeds draw other prompts and lengths)
    expect(a100?.cells.ttft_p99?.vsBaseline?.verdict).toBe('worse');
    expect(a100?.verdict).toBe('worse');
    expect(a100?.hypotheses.map((h) => h.kind)).toContain('decode-dragged');
    expect(a100?.conclusion).toMatch(/^worse: .*TPOT p99 \+\d+% \[\+\d+, \+\d+\].*decode-dragged/);
    expect(a100?.cells.output_throughput?.withinRun?.pairs).toBe(3);
  });

  it('keeps a failed configuration as a row that says why', () => {
    const broken = analysis.configurations[3];
    expect(broken).toMatchObject({ status: 'failed', label: 'Exp-3', verdict: 'failed' });
    expect(broken?.conclusion).toBe('failed: E_SERVE: the server exited with code 2');
    expect(broken?.cells).toEqual({});
  });

  it('renders the documents’ columns as a table, Markdown, JSON and CSV', () => {
    const table = renderExperimentTable(analysis);
    for (const col of [
      'Configuration',
      'TTFT p99 (ms)',
      'TPOT p99 (ms)',
      'Goodput (req/s)',
      'KV fragmentation',
      'Output throughput (tok/s)',
      'Per-user output tokens/s p50 (tok/s)',
      'Conclusion',
    ])
      expect(table).toContain(col);
    expect(table).toMatch(/Exp-2 \(a100\) .* worse: /);
    expect(table).toMatch(/Exp-3 \(broken\) .*failed: E_SERVE/);
    expect(table).toMatch(/Winner: no conclusion/);
    const md = renderExperimentMarkdown(analysis);
    expect(md).toMatch(/^\| Configuration \| TTFT p99 \(ms\) \|/);
    expect(md).toContain('Within-run (run vs run)');
    const json = JSON.parse(renderExperimentJson(analysis));
    expect(json).toMatchObject({
      schemaVersion: 1,
      kind: 'goodput.experiment-analysis',
      name: 'aa-and-a100',
    });
    expect(json.configurations).toHaveLength(4);
    const rows = parseCsv(renderExperimentCsv(analysis));
    const header = rows[0] ?? [];
    const col = (name: string) => header.indexOf(name);
    const twinRows = rows.filter((r) => r[col('label')] === 'Exp-1');
    // A configuration name a spreadsheet would run as a formula is written as text.
    expect(twinRows[0]?.[col('configuration')]).toBe("'=h100 twin");
    const tpot = rows.find((r) => r[col('label')] === 'Exp-2' && r[col('metric')] === 'tpot_p99');
    expect(tpot?.[col('verdict')]).toBe('worse');
    expect(Number(tpot?.[col('change_ci_low')])).toBeGreaterThan(0);
    expect(rows.find((r) => r[col('label')] === 'Exp-3')?.[col('status')]).toBe('failed');
  });
});
