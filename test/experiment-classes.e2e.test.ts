/**
 * Traffic classes in an experiment plan, on the embedded engine in virtual time: the plan's
 * run: section defines two classes (chat: tight TTFT SLO, priority 0; batch: loose SLO,
 * priority 1), one configuration schedules first come first served (and so sends batch at
 * priority 0: vLLM refuses a non-zero priority under fcfs) and the other by priority. The
 * analysis carries each class's figures across runs, the priority configuration wins, and its
 * ADR holds per-class gate thresholds that adr lint accepts.
 */

import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentAnalysis } from '../src/experiment/analysis/index.js';
import type { RunSummary } from '../src/types.js';
import { runCliInProcess } from './helpers/cli.js';

const PLAN = `name: class-priority
runs: 3
configurations:
  - name: fcfs
    params:
      scheduling-policy: fcfs
      class.batch.priority: 0
  - name: priority
    params:
      scheduling-policy: priority
run:
  rate: 40
  requests: 150
  warmup: 0
  classes:
    - name=chat,share=0.7,prompt-tokens=128,max-tokens=64,slo-ttft=400,priority=0
    - name=batch,share=0.3,prompt-tokens=3000,max-tokens=128,slo-ttft=20s,priority=1
`;

let work: string;
let analysis: ExperimentAnalysis;
let printed: string;
let adr: string;
let adrPath: string;
const cli = (argv: string[]) => runCliInProcess(argv, { cwd: work });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'goodput-exp-classes-'));
  await writeFile(join(work, 'plan.yaml'), PLAN);
  const run = await cli(['experiment', 'plan.yaml', '--out', 'exp', '-q']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  printed = run.stdout;
  analysis = JSON.parse(await readFile(join(work, 'exp', 'analysis.json'), 'utf8')) as ExperimentAnalysis;
  const made = await cli(['adr', 'new', '--experiment', 'exp', '--dir', 'adr', '--date', '2026-12-04']);
  expect(made.code).toBe(0);
  adrPath = made.stdout.trim();
  adr = await readFile(adrPath, 'utf8');
}, 120_000);

describe('an experiment plan with traffic classes (virtual time)', () => {
  it("runs each configuration with its class parameters and the run's classes", async () => {
    const summary = (slug: string) =>
      readFile(join(work, 'exp', 'runs', slug, 'run-1', 'summary.json'), 'utf8').then(
        (t) => JSON.parse(t) as RunSummary,
      );
    const [fcfs, priority] = await Promise.all([summary('fcfs'), summary('priority')]);
    expect(fcfs.classes?.map((c) => [c.name, c.priority])).toEqual([
      ['chat', 0],
      ['batch', 0],
    ]);
    expect(priority.classes?.map((c) => [c.name, c.priority])).toEqual([
      ['chat', 0],
      ['batch', 1],
    ]);
    expect(fcfs.meta.target.simSchedulingPolicy).toBeUndefined();
    expect(priority.meta.target.simSchedulingPolicy).toBe('priority');
    expect(priority.counts.failed).toBe(0);
  });

  it("carries each class's figures across runs into the analysis, and the matrix shows them", () => {
    expect(analysis.classMetrics?.map((m) => m.id)).toEqual([
      'ttft_p99',
      'tpot_p99',
      'request_goodput',
      'attainment',
    ]);
    const [base, exp] = analysis.configurations;
    expect(base?.classes?.map((c) => [c.name, c.sloSet])).toEqual([
      ['chat', true],
      ['batch', true],
    ]);
    const chat = (r: typeof base) => r?.classes?.find((c) => c.name === 'chat');
    expect(chat(base)?.cells.ttft_p99?.spread.n).toBe(3);
    // Priority scheduling lets the chat class jump the batch prompts: more of it meets its SLO.
    expect(chat(exp)?.cells.attainment?.vsBaseline?.verdict).toBe('better');
    expect(chat(exp)!.cells.ttft_p99!.spread.mean).toBeLessThan(chat(base)!.cells.ttft_p99!.spread.mean);
    expect(analysis.winner.name).toBe('priority');
    expect(printed).toContain("Per traffic class (each class's requests, against its own SLO):");
    expect(printed).toMatch(/Exp-1 \(priority\) ★ +chat +\d/);
  });

  it('writes an ADR with per-class gate thresholds from the winner, which adr lint accepts', async () => {
    const limit = (expr: RegExp) => Number(expr.exec(adr)?.[1]);
    const chatTtft = limit(/- p99\(ttft\)\{class=chat\}<=([\d.]+)/);
    const chatAttainment = limit(/- attainment\{class=chat\}>=([\d.]+)/);
    const chat = analysis.configurations[1]?.classes?.find((c) => c.name === 'chat');
    // The upper end of the winner's interval × 1.1, and the lower end of its attainment's × (1 − 0.1/4).
    expect(chatTtft).toBeGreaterThanOrEqual(chat!.cells.ttft_p99!.spread.ci![1] * 1.1);
    expect(chatTtft).toBeLessThan(chat!.cells.ttft_p99!.spread.ci![1] * 1.1 + 1);
    expect(chatAttainment).toBeLessThanOrEqual(chat!.cells.attainment!.spread.ci![0] * 0.975);
    expect(adr).toMatch(/- p99\(ttft\)\{class=batch\}<=\d/);
    expect(adr).toContain(
      'traffic classes chat 70% (128-token prompts, up to 64 output tokens, priority 0); batch 30% (3000-token prompts, up to 128 output tokens, priority 1)',
    );
    expect(adr).toMatch(/- flag: --scheduling-policy\n +equals: priority/);
    const lint = await cli(['adr', 'lint', adrPath]);
    expect(lint.stdout).toMatch(/^ok /);
    expect(lint.code).toBe(0);
  });

  it("gate --adr reruns the winner's classes and passes; the baseline's chat class fails its limit", async () => {
    const rerun = await cli(['gate', '--adr', adrPath, '--time', 'virtual', '-q', '--out', 'rerun']);
    expect(rerun.stdout).toMatch(/gate passed/);
    expect(rerun.stdout).not.toMatch(/no traffic class/);
    expect(rerun.code).toBe(0);
    const rerunSummary = JSON.parse(
      await readFile(join(work, 'rerun', 'summary.json'), 'utf8'),
    ) as RunSummary;
    expect(rerunSummary.meta.target.simSchedulingPolicy).toBe('priority');
    expect(rerunSummary.classes?.map((c) => c.name)).toEqual(['chat', 'batch']);
    const fcfs = join('exp', 'runs', 'fcfs', 'run-1');
    // The baseline sent batch at priority 0: not the ADR's workload, unless the gate is told.
    const refused = await cli(['gate', '--adr', adrPath, '--from', fcfs]);
    expect(refused.stderr).toMatch(/not measured under .*workload:\n +workload\.classes:/);
    expect(refused.code).toBe(2);
    const base = await cli(['gate', '--adr', adrPath, '--from', fcfs, '--allow-different']);
    expect(base.stdout).toMatch(/\[GATE FAIL\] p99\(ttft\)\{class=chat\}/);
    expect(base.code).toBe(4);
  });

  it('refuses a class parameter naming a class the run lacks, before any run', async () => {
    await writeFile(join(work, 'bad.yaml'), PLAN.replace('class.batch.priority', 'class.bulk.priority'));
    const bad = await cli(['experiment', 'bad.yaml', '--out', 'bad', '-q']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /configuration fcfs\.params\.class\.bulk\.priority: no class 'bulk' in the run \(chat, batch\)/,
    );
  });
});
