import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchFile } from '../src/experiment/search/index.js';
import type { ExperimentFile } from '../src/types.js';
import { BIN, ensureBuilt, runCliInProcess } from './helpers/cli.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'goodput-search-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** 12 configurations of the embedded engine; a load that saturates the small ones. */
const PLAN = `
name: search
runs: 2
grid:
  max-num-seqs: [4, 16, 64]
  max-num-batched-tokens: [512, 4096]
  enable-chunked-prefill: [true, false]
run:
  concurrency: 16
  requests: 128
  prompt-tokens: 384
  max-tokens: 32
  ignore-eos: true
  slo: ttft=400,tpot=40
`;

const read = async <T>(path: string) => JSON.parse(await readFile(path, 'utf8')) as T;

describe('goodput experiment --search', () => {
  it('halving finds the configuration a full grid finds best, for fewer requests, then verifies it with the baseline', async () => {
    const plan = join(root, 'plan.yaml');
    await writeFile(plan, PLAN);
    const grid = await runCliInProcess(
      ['experiment', plan, '--search', 'grid', '--search-only', '--quiet', '--out', join(root, 'grid')],
      { cwd: root },
    );
    expect(grid.stderr).toBe('');
    expect(grid.code).toBe(0);
    const full = await read<SearchFile>(join(root, 'grid', 'search', 'search.json'));
    expect(full.evaluations).toHaveLength(12);
    expect(full.kind).toBe('goodput.search');
    // The search has something to find: the objective differs across configurations.
    const objectives = full.ranking.map((p) => p.objective);
    expect(Math.max(...objectives)).toBeGreaterThan(1.2 * Math.min(...objectives));

    const res = await runCliInProcess(
      ['experiment', plan, '--search', 'halving', '--top', '2', '--quiet', '--out', join(root, 'halving')],
      { cwd: root },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const found = await read<SearchFile>(join(root, 'halving', 'search', 'search.json'));
    expect(found.strategy).toBe('halving');
    // Its best is the grid's best, or within 3 % of it (short first runs may rank near-ties apart).
    const onGrid = full.ranking.find(
      (p) => JSON.stringify(p.params) === JSON.stringify(found.top[0]!.params),
    )!;
    expect(onGrid.objective).toBeGreaterThanOrEqual(0.97 * full.ranking[0]!.objective);
    expect(found.requests).toBeLessThan(full.requests);
    expect(res.stdout).toMatch(/search \(halving, objective goodput\)/);
    // The experiment measured the baseline and the two best, twice each.
    const state = await read<ExperimentFile>(join(root, 'halving', 'experiment.json'));
    expect(state.configurations.map((c) => c.baseline)).toEqual([true, false, false]);
    expect(state.configurations[0]!.params).toEqual({
      'max-num-seqs': 4,
      'max-num-batched-tokens': 512,
      'enable-chunked-prefill': true,
    });
    expect(state.configurations.slice(1).map((c) => c.params)).toEqual(found.top.map((p) => p.params));
    expect(state.configurations.every((c) => c.runs.filter((r) => r.status === 'ok').length === 2)).toBe(
      true,
    );
    expect(res.stdout).toMatch(/search figure vs mean of the experiment’s repeated virtual runs/);
  });

  it('Bayesian optimisation evaluates its budget of configurations, and refuses a parameter the engine does not take', async () => {
    const plan = join(root, 'plan.yaml');
    await writeFile(plan, PLAN);
    const res = await runCliInProcess(
      [
        'experiment',
        plan,
        '--search',
        'bayes',
        '--search-evaluations',
        '6',
        '--search-only',
        '--quiet',
        '--out',
        join(root, 'bayes'),
      ],
      { cwd: root },
    );
    expect(res.code).toBe(0);
    const found = await read<SearchFile>(join(root, 'bayes', 'search', 'search.json'));
    expect(found.evaluations).toHaveLength(6);
    expect(new Set(found.evaluations.map((e) => e.index)).size).toBe(6);

    const bad = join(root, 'bad.yaml');
    await writeFile(
      bad,
      `${PLAN}\nserve: "${process.execPath} ${BIN} sim --port {port} --max-num-seqs {max-num-seqs} --tensor {tp}"\n`.replace(
        'grid:',
        'grid:\n  tp: [1, 2]',
      ),
    );
    const refused = await runCliInProcess(
      ['experiment', bad, '--search', 'grid', '--quiet', '--out', join(root, 'bad')],
      {
        cwd: root,
      },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/grid\.tp\.params\.tp: not a flag of the embedded engine/);
  });

  it('maximises the capacity at SLO with a concurrency sweep per configuration', async () => {
    const plan = join(root, 'capacity.yaml');
    await writeFile(
      plan,
      `
grid:
  max-num-seqs: [1, 8]
run:
  concurrency: 2
  requests: 16
  prompt-tokens: 128
  max-tokens: 16
  ignore-eos: true
  slo: ttft=200
`,
    );
    const res = await runCliInProcess(
      [
        'experiment',
        plan,
        '--search',
        'grid',
        '--objective',
        'capacity',
        '--search-only',
        '--quiet',
        '--out',
        join(root, 'capacity'),
      ],
      { cwd: root },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const found = await read<SearchFile>(join(root, 'capacity', 'search', 'search.json'));
    expect(found.objective).toBe('capacity');
    const cap = (seqs: number) => found.ranking.find((p) => p.params['max-num-seqs'] === seqs)!.capacity!;
    // One sequence at a time queues everyone behind it; eight serve eight at once.
    expect(cap(8)).toBeGreaterThan(cap(1));
    expect(found.top[0]!.params).toEqual({ 'max-num-seqs': 8 });
    expect(found.top[0]!.objective).toBe(cap(8));
  });

  it('verifies the best configuration on real servers from the serve: template and says where they disagree', async () => {
    ensureBuilt();
    const plan = join(root, 'serve.yaml');
    await writeFile(
      plan,
      `
name: serve
runs: 1
serve: "${process.execPath} ${BIN} sim --port {port} --profile h100x4:llama-3.1-70b --max-num-seqs {max-num-seqs}"
grid:
  max-num-seqs: [2, 8]
run:
  sim-profile: h100x4:llama-3.1-70b
  concurrency: 8
  requests: 16
  prompt-tokens: 256
  max-tokens: 12
  ignore-eos: true
  slo: ttft=2000,tpot=100
`,
    );
    const res = await runCliInProcess(
      ['experiment', plan, '--search', 'grid', '--top', '1', '--quiet', '--out', join(root, 'serve')],
      { cwd: root },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const found = await read<SearchFile>(join(root, 'serve', 'search', 'search.json'));
    expect(found.top[0]!.params).toEqual({ 'max-num-seqs': 8 });
    const state = await read<ExperimentFile>(join(root, 'serve', 'experiment.json'));
    expect(state.configurations.map((c) => c.target)).toEqual(['serve', 'serve']);
    expect(state.configurations[1]!.serve!.argv).toContain('8');
    expect(res.stdout).toMatch(/simulation against the real server/);
    // Every metric of the verified configuration has both figures and their difference.
    for (const metric of ['goodput req/s', 'TTFT p99 ms', 'TPOT p99 ms', 'output tok/s'])
      expect(res.stdout).toMatch(new RegExp(`Exp-2\\s+${metric}\\s+[\\d.]+\\s+[\\d.]+\\s+[+-][\\d.]+%`));
    expect(res.stdout).toMatch(/largest disagreement: Exp-2 /);
  }, 120_000);
});
