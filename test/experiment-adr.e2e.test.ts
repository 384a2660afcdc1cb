/**
 * The shipped example plan, end to end through the CLI on the embedded engine in virtual time:
 * `goodput experiment examples/agent-experiment.yaml` → its matrix (prefix caching on, with a
 * long shared system prompt, lowers TTFT P99 with an across-run interval that excludes zero)
 * → `adr new --experiment` → `adr lint` passes → `gate --adr` passes a rerun of the winner and
 * fails the baseline → `adr enforce` fails a serving config without the winning flag. And an
 * A/A experiment: no significant change on any metric, and its ADR is refused by lint.
 */

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentAnalysis } from '../src/experiment/analysis/index.js';
import { REPO, runCliInProcess } from './helpers/cli.js';

const PLAN = join(REPO, 'examples', 'agent-experiment.yaml');

let work: string;
let analysis: ExperimentAnalysis;
let adrPath: string;
let printed: string;

const cli = (argv: string[]) => runCliInProcess(argv, { cwd: work });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'goodput-exp-adr-'));
  const run = await cli(['experiment', PLAN, '--out', 'exp', '-q']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  printed = run.stdout;
  analysis = JSON.parse(await readFile(join(work, 'exp', 'analysis.json'), 'utf8')) as ExperimentAnalysis;
  const adr = await cli([
    'adr',
    'new',
    '--experiment',
    'exp',
    '--dir',
    'adr',
    '--status',
    'accepted',
    '--date',
    '2026-12-03',
  ]);
  expect(adr.code).toBe(0);
  adrPath = adr.stdout.trim();
}, 120_000);

describe('the shipped example plan', () => {
  it('prints the matrix and agrees with what the simulated engine does', () => {
    expect(printed).toMatch(/Configuration +TTFT p99 \(ms\) +TPOT p99 \(ms\) +Goodput \(req\/s\)/);
    expect(printed).toMatch(/Winner: Exp-2 ★/);
    const [baseline, exp1, exp2] = analysis.configurations;
    expect(baseline?.label).toBe('Baseline');
    // Prefix caching on with a 2048-token shared system prompt: prefill is done once.
    const ttft = exp2?.cells.ttft_p99?.vsBaseline;
    expect(ttft?.verdict).toBe('better');
    expect(ttft?.ci?.[1]).toBeLessThan(0);
    expect(exp2?.cells.prefix_cache_hit_rate?.vsBaseline?.verdict).toBe('better');
    expect(exp2?.hypotheses.map((h) => h.kind)).toContain('prefix-reuse');
    expect(exp2?.conclusion).toMatch(/^better: /);
    // A larger prefill budget without the cache: decode steps carry bigger prefill chunks.
    expect(exp1?.cells.tpot_p99?.vsBaseline?.verdict).toBe('worse');
    expect(exp1?.hypotheses.map((h) => h.kind)).toContain('decode-dragged');
    expect(analysis.winner).toMatchObject({ name: 'Exp-2', metric: 'request_goodput' });
    // The documents' KV-fragmentation column: the engine's gauge over simulated time, every run.
    for (const r of analysis.configurations) {
      const frag = r.cells.kv_fragmentation?.spread;
      expect(frag?.n).toBe(3);
      expect(frag?.mean).toBeGreaterThan(0);
      expect(frag?.mean).toBeLessThan(1);
    }
    expect(exp2?.cells.waiting_mean?.vsBaseline?.verdict).toBe('better');
  });

  it('reprints the matrix from the folder, in any format', async () => {
    const again = await cli(['experiment', 'exp', '--format', 'csv']);
    expect(again.code).toBe(0);
    expect(again.stdout.split('\r\n')[0]).toMatch(/^experiment,configuration,label,/);
    expect(again.stdout).toMatch(/agent-experiment,Exp-2,Exp-2,false,ok,true,ttft_p99,ms,3,/);
    // A folder where the analysis files cannot be written still gets its printout.
    const file = join(work, 'exp', 'analysis.md');
    await rm(file);
    await mkdir(file);
    const blocked = await cli(['experiment', 'exp', '--format', 'markdown']);
    await rm(file, { recursive: true });
    expect(blocked.code).toBe(0);
    expect(blocked.stdout).toMatch(/^\| Configuration \|/);
    expect(blocked.stderr).toMatch(/warning: the analysis files were not written .*analysis\.md is a folder/);
  });

  it('writes an ADR that passes adr lint, with the rules, the gate and the headroom', async () => {
    const text = await readFile(adrPath, 'utf8');
    expect(text).toMatch(/winner: Exp-2/);
    expect(text).toMatch(/- flag: --enable-prefix-caching/);
    expect(text).toMatch(/simEngine:\n +enablePrefixCaching: true/);
    expect(text).toMatch(/\| Baseline \|[^\n]*\n\| Exp-1 \|[^\n]*\n\| Exp-2 ★ \|/);
    expect(text).toContain('headroom of 10%');
    const lint = await cli(['adr', 'lint', adrPath]);
    expect(lint.stdout).toMatch(/^ok /);
    expect(lint.code).toBe(0);
  });

  it('gate --adr passes a rerun of the winner and fails the baseline', async () => {
    const rerun = await cli(['gate', '--adr', adrPath, '--time', 'virtual', '-q', '--out', 'rerun']);
    expect(rerun.stdout).toMatch(/gate passed/);
    expect(rerun.code).toBe(0);
    const base = await cli(['gate', '--adr', adrPath, '--from', join('exp', 'runs', 'baseline', 'run-1')]);
    expect(base.stdout).toMatch(/\[GATE FAIL\] p99\(ttft\)/);
    expect(base.code).toBe(4);
  });

  it('adr enforce fails a serving config that drops the winning flag', async () => {
    await writeFile(
      join(work, 'drops.sh'),
      'vllm serve m --enable-chunked-prefill --max-num-batched-tokens 2048\n',
    );
    await writeFile(
      join(work, 'keeps.sh'),
      'vllm serve m --enable-prefix-caching --enable-chunked-prefill --max-num-batched-tokens 2048\n',
    );
    const drops = await cli(['adr', 'enforce', '--config', 'drops.sh', '--adr', adrPath]);
    expect(drops.stdout).toMatch(
      /\[ADR VIOLATION\] .* `--enable-prefix-caching`: --enable-prefix-caching is missing/,
    );
    expect(drops.code).toBe(5);
    const keeps = await cli(['adr', 'enforce', '--config', 'keeps.sh', '--adr', adrPath]);
    expect(keeps.code).toBe(0);
  });
});

describe('an A/A experiment', () => {
  it('gives no significant change on every metric, and its ADR is refused by lint', async () => {
    await writeFile(
      join(work, 'aa.yaml'),
      [
        'name: aa',
        'runs: 3',
        'configurations:',
        '  - name: A',
        '    params: { max-num-batched-tokens: 2048 }',
        '  - name: B',
        '    params: { max-num-batched-tokens: 2048 }',
        'run: { prompt-tokens: 256, prompt-tokens-range: 0.5, max-tokens: 32, concurrency: 8, requests: 40 }',
        '',
      ].join('\n'),
    );
    const run = await cli(['experiment', 'aa.yaml', '--out', 'aa', '-q', '--format', 'json']);
    expect(run.code).toBe(0);
    const aa = JSON.parse(run.stdout) as ExperimentAnalysis;
    const b = aa.configurations[1];
    const verdicts = Object.values(b?.cells ?? {}).map((c) => c.vsBaseline?.verdict);
    expect(verdicts.length).toBeGreaterThan(10);
    for (const v of verdicts) expect(['no significant change', 'untested']).toContain(v);
    expect(b?.conclusion).toBe('no significant change');
    expect(aa.winner.reason).toMatch(/^no conclusion/);
    const adr = await cli(['adr', 'new', '--experiment', 'aa', '--dir', 'adr-aa', '--status', 'accepted']);
    expect(adr.code).toBe(0);
    expect(adr.stderr).toMatch(/adr lint refuses it/);
    expect(await readdir(join(work, 'adr-aa'))).toHaveLength(1);
    const lint = await cli(['adr', 'lint', '--dir', 'adr-aa']);
    expect(lint.stdout).toMatch(/FAIL .*experiment\.winner is null: the experiment reached no conclusion/);
    expect(lint.code).toBe(5);
  });
});
