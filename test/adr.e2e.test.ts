// runs alone: the ADR's verdict comes from two live runs, which another file's load makes client-bound
/**
 * The ADR round trip end to end: two real runs over loopback (a slow and a fast engine,
 * labelled with their serving arguments) → `adr new` → `adr lint` → `gate --adr` reads the
 * thresholds and the workload back → `adr enforce` on serving configurations → `adr check`
 * in a temporary git repository. ADR_VIOLATION (5) is provoked by lint, enforce and check.
 */

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAdr } from '../src/adr/index.js';
import { ExitCode } from '../src/errors.js';
import { evaluateThresholds, gateSpecThresholds } from '../src/gate/index.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import { readRunSummary, runCliInProcess } from './helpers/cli.js';

const LOAD = [
  '--requests',
  '40',
  '--rate',
  '20',
  '--prompt-tokens',
  '64',
  '--prompt-tokens-range',
  '0.9',
  '--max-tokens',
  '4',
  '--ignore-eos',
  '--quiet',
  '--no-server-metrics',
];
const BASE_ARGS = '--max-num-batched-tokens 8192 --enforce-eager';
const CAND_ARGS = '--max-num-batched-tokens 2048 --enable-chunked-prefill';
const ADR_NAME = 'ADR-20250102-001-chunked-prefill-with-a-2048-token-budget.md';

let work: string;
let fast: SimServer;
let slow: SimServer;
let adrPath: string;

function cli(argv: string[], cwd = work) {
  return runCliInProcess(argv, { cwd });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-adr-e2e-'));
  fast = await startSim({ seed: 1, slowdown: 3 });
  slow = await startSim({ seed: 1, slowdown: 30 });
  // One after the other: two runs in one event loop make each other client-bound, and a
  // client-bound comparison rightly finds no significant change.
  for (const [server, servingArgs, out] of [
    [slow, BASE_ARGS, 'runs/base'],
    [fast, CAND_ARGS, 'runs/cand'],
  ] as const) {
    const r = await cli([
      'run',
      '--url',
      server.url,
      ...LOAD,
      '--label',
      `serving.args=${servingArgs}`,
      '--out',
      join(work, out),
    ]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
  }
  adrPath = join(work, 'docs/adr', ADR_NAME);
}, 60_000);

afterAll(async () => {
  await fast?.close();
  await slow?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('adr new and lint', () => {
  it('writes the numbered ADR with workload, gate, rules and rollback from real runs', async () => {
    const r = await cli([
      'adr',
      'new',
      '--title',
      'Chunked prefill with a 2048-token budget',
      '--baseline',
      'runs/base',
      '--candidate',
      'runs/cand',
      '--status',
      'accepted',
      '--rule',
      'max-num-seqs=256',
      '--headroom',
      '1',
      '--date',
      '2025-01-02',
      '--context',
      'Long prompts pushed TTFT p99 past the SLO.',
    ]);
    expect(r.code, r.stderr).toBe(ExitCode.OK);
    expect(r.stdout.trim()).toBe(adrPath);
    const doc = parseAdr(readFileSync(adrPath, 'utf8'), adrPath);
    const fm = doc.frontMatter;
    const cand = readRunSummary(join(work, 'runs/cand'));
    expect(fm.id).toBe('ADR-20250102-001');
    expect(fm.status).toBe('accepted');
    expect(fm.rules).toEqual([
      { flag: '--max-num-batched-tokens', equals: '2048' },
      { flag: '--enable-chunked-prefill' },
      { flag: '--enforce-eager', absent: true },
      { flag: '--max-num-seqs', equals: '256' },
    ]);
    expect(fm.gate?.ttft_p99_ms).toBe(Math.ceil(cand.latency.ttft.p99 * 2));
    expect(fm.gate?.tpot_p99_ms).toBeGreaterThanOrEqual(cand.latency.tpot.p99 * 2);
    expect(fm.workload?.load).toEqual(cand.meta.load);
    expect(fm.workload?.seed).toBe(cand.meta.seed);
    expect(fm.rollback?.metric).toBe('ttft_p99_ms');
    expect(fm.runs).toEqual({
      baseline: '../../runs/base',
      candidates: ['../../runs/cand'],
      chosen: '../../runs/cand',
    });
    expect(doc.body).toContain('Long prompts pushed TTFT p99 past the SLO.');
    expect(doc.body).toMatch(/\| Exp-1 \(chosen\) \| .* \| better \(/);
    // The Decision states the evidence, the trade-off and what CI enforces from now on.
    expect(doc.body).toMatch(/Adopt the configuration of Exp-1\b.*: against the baseline it improved /);
    expect(doc.body).toMatch(/^Trade-off: /m);
    expect(doc.body).toContain('`goodput adr enforce` refuses a serving configuration that breaks');
    expect(doc.body).toContain('- Baseline: [../../runs/base](../../runs/base)');

    const second = await cli(
      ['adr', 'new', '--title', 'Second look', '--baseline', 'runs/base', '--candidate', 'runs/cand'].concat([
        '--date',
        '2025-01-02',
      ]),
    );
    expect(second.stdout.trim()).toBe(join(work, 'docs/adr', 'ADR-20250102-002-second-look.md'));

    const third = await cli(
      ['adr', 'new', '--title', 'Third look', '--baseline', 'runs/base', '--candidate', 'runs/cand'].concat([
        '--date',
        '2025-01-02',
        '--dir',
        'json-adr',
        '--json',
      ]),
    );
    expect(third.code, third.stderr).toBe(ExitCode.OK);
    const made = JSON.parse(third.stdout);
    expect(made).toMatchObject({ schemaVersion: 1, kind: 'goodput.adr-new', id: 'ADR-20250102-001' });
    expect(made.path).toBe(join(work, 'json-adr', 'ADR-20250102-001-third-look.md'));
    expect(made.frontMatter).toEqual(parseAdr(readFileSync(made.path, 'utf8')).frontMatter);
  });

  it('lints the written ADRs clean, and fails an accepted ADR that concluded nothing (5)', async () => {
    const ok = await cli(['adr', 'lint']);
    expect(ok.code, ok.stdout).toBe(ExitCode.OK);
    expect(ok.stdout).toContain(`ok    docs/adr/${ADR_NAME}`);

    const empty = join(work, 'empty', 'ADR-20250103-001-nothing.md');
    mkdirSync(join(work, 'empty'));
    writeFileSync(
      empty,
      '---\nschemaVersion: 1\nid: ADR-20250103-001\ntitle: Nothing\ndate: 2025-01-03\nstatus: accepted\n---\n',
    );
    const bad = await cli(['adr', 'lint', '--dir', 'empty']);
    expect(bad.code).toBe(ExitCode.ADR_VIOLATION);
    expect(bad.stdout).toContain('no executable rule: this tuning reached no conclusion');

    const okJson = await cli(['adr', 'lint', '--json']);
    expect(okJson.code).toBe(ExitCode.OK);
    expect(JSON.parse(okJson.stdout)).toEqual({
      schemaVersion: 1,
      kind: 'goodput.adr-lint',
      passed: true,
      results: [{ path: `docs/adr/${ADR_NAME}`, id: 'ADR-20250102-001', problems: [] }, expect.any(Object)],
    });
    const badJson = await cli(['adr', 'lint', '--dir', 'empty', '--json']);
    expect(badJson.code).toBe(ExitCode.ADR_VIOLATION);
    const doc = JSON.parse(badJson.stdout);
    expect(doc.passed).toBe(false);
    expect(doc.results).toHaveLength(1);
    expect(doc.results[0].id).toBe('ADR-20250103-001');
    expect(doc.results[0].problems).toContain('no executable rule: this tuning reached no conclusion');
  });
});

describe('gate --adr', () => {
  it('passes the candidate and fails the baseline as the numbers say', async () => {
    const pass = await cli(['gate', '--adr', adrPath, '--from', 'runs/cand']);
    expect(pass.code, pass.stdout + pass.stderr).toBe(ExitCode.OK);
    expect(pass.stdout).toMatch(/^\[GATE PASS\] p99\(ttft\)/m);
    expect(pass.stdout).toMatch(/^\[GATE PASS\] p99\(tpot\)/m);
    expect(pass.stdout).toMatch(/^\[GATE PASS\] request_goodput/m);

    const fail = await cli(['gate', '--adr', adrPath, '--from', 'runs/base']);
    expect(fail.code, fail.stdout).toBe(ExitCode.THRESHOLD_BREACH);
    expect(fail.stdout).toMatch(/^\[GATE FAIL\] p99\(tpot\): value [\d.]+ ms, limit <= [\d.]+ ms$/m);
  });

  it("reruns the ADR's workload live and exits as its thresholds judge the new run", async () => {
    const out = join(work, 'runs/live');
    const r = await cli(['gate', '--adr', adrPath, '--url', fast.url, '--out', out, '--quiet']);
    const doc = parseAdr(readFileSync(adrPath, 'utf8'));
    const live = readRunSummary(out);
    expect(live.meta.load).toEqual(doc.frontMatter.workload?.load);
    expect(live.meta.sampling).toEqual(doc.frontMatter.workload?.sampling);
    expect(live.meta.workload.promptTokens).toBe(64);
    const verdict = evaluateThresholds(gateSpecThresholds(doc.frontMatter.gate ?? {}), live);
    expect(r.code).toBe(verdict.passed ? ExitCode.OK : ExitCode.THRESHOLD_BREACH);
    expect(r.stdout.match(/^\[GATE (PASS|FAIL)\]/gm)).toHaveLength(3);
  });

  it('refuses load flags that would change the ADR workload (2)', async () => {
    const r = await cli(['gate', '--adr', adrPath, '--url', fast.url, '--concurrency', '64']);
    expect(r.code).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain('remove --concurrency');
  });
});

describe('adr enforce', () => {
  const manifest = (args: string[]) =>
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '        - name: vllm',
      '          image: vllm/vllm-openai',
      `          args: [${args.map((a) => JSON.stringify(a)).join(', ')}]`,
      '',
    ].join('\n');

  it('accepts a configuration that obeys every rule of the latest accepted ADR', async () => {
    const path = join(work, 'deploy-ok.yaml');
    writeFileSync(
      path,
      manifest([
        '--model',
        'm',
        '--max-num-batched-tokens',
        '2048',
        '--enable-chunked-prefill',
        '--max-num-seqs=256',
      ]),
    );
    const r = await cli(['adr', 'enforce', '--config', path]);
    expect(r.code, r.stdout + r.stderr).toBe(ExitCode.OK);
    expect(r.stdout).toContain('[ADR OK] deploy-ok.yaml satisfies the 4 rule(s) of ADR-20250102-001');
  });

  it('catches a missing flag and a wrong value, naming the rule and the ADR (5)', async () => {
    const path = join(work, 'deploy-bad.yaml');
    writeFileSync(
      path,
      manifest(['--model', 'm', '--max-num-batched-tokens', '4096', '--max-num-seqs', '256']),
    );
    const r = await cli(['adr', 'enforce', '--config', path, '--adr', adrPath]);
    expect(r.code).toBe(ExitCode.ADR_VIOLATION);
    expect(r.stdout).toContain(
      "[ADR VIOLATION] ADR-20250102-001 rule `--max-num-batched-tokens=2048`: --max-num-batched-tokens is '4096', required 2048 in deploy-bad.yaml",
    );
    expect(r.stdout).toContain(
      '[ADR VIOLATION] ADR-20250102-001 rule `--enable-chunked-prefill`: --enable-chunked-prefill is missing in deploy-bad.yaml',
    );
    const line = join(work, 'vllm.args');
    writeFileSync(
      line,
      'vllm serve m \\\n  --max-num-batched-tokens 2048 --enable-chunked-prefill --max-num-seqs 256 --enforce-eager\n',
    );
    const eager = await cli(['adr', 'enforce', '--config', line]);
    expect(eager.code).toBe(ExitCode.ADR_VIOLATION);
    expect(eager.stdout).toContain('rule `!--enforce-eager`: --enforce-eager must not be set');

    const asJson = await cli(['adr', 'enforce', '--config', path, '--adr', adrPath, '--json']);
    expect(asJson.code).toBe(ExitCode.ADR_VIOLATION);
    const doc = JSON.parse(asJson.stdout);
    expect(doc).toMatchObject({
      schemaVersion: 1,
      kind: 'goodput.adr-enforce',
      passed: false,
      adrId: 'ADR-20250102-001',
      config: 'deploy-bad.yaml',
    });
    expect(doc.violations).toContainEqual({
      rule: '--max-num-batched-tokens=2048',
      found: '4096',
      problem: "--max-num-batched-tokens is '4096', required 2048",
      source: expect.any(String),
    });
    expect(doc.violations.map((v: { rule: string }) => v.rule)).toContain('--enable-chunked-prefill');
  });
});

describe('adr check in a git repository', () => {
  it('fails for a changed serving file without a new ADR and passes with one', async () => {
    const repo = join(work, 'repo');
    mkdirSync(join(repo, 'deploy', 'prod'), { recursive: true });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd: repo,
        stdio: 'pipe',
      });
    git('init', '-q');
    writeFileSync(join(repo, 'goodput.config.json'), JSON.stringify({ servingParams: ['deploy/**/*.yaml'] }));
    writeFileSync(join(repo, 'deploy', 'prod', 'vllm.yaml'), 'args: ["--max-num-batched-tokens", "8192"]\n');
    writeFileSync(join(repo, 'README.md'), 'hello\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'start');

    writeFileSync(join(repo, 'README.md'), 'hello again\n');
    const unrelated = await cli(['adr', 'check', '--base', 'HEAD'], repo);
    expect(unrelated.code).toBe(ExitCode.OK);
    expect(unrelated.stdout).toContain('no serving-parameter file changed');

    writeFileSync(join(repo, 'deploy', 'prod', 'vllm.yaml'), 'args: ["--max-num-batched-tokens", "2048"]\n');
    git('commit', '-q', '-am', 'tune the token budget');
    const without = await cli(['adr', 'check', '--base', 'HEAD~1'], repo);
    expect(without.code).toBe(ExitCode.ADR_VIOLATION);
    expect(without.stdout).toContain('without a new ADR: deploy/prod/vllm.yaml');
    const withoutJson = await cli(['adr', 'check', '--base', 'HEAD~1', '--json'], repo);
    expect(withoutJson.code).toBe(ExitCode.ADR_VIOLATION);
    expect(JSON.parse(withoutJson.stdout)).toEqual({
      schemaVersion: 1,
      kind: 'goodput.adr-check',
      passed: false,
      base: 'HEAD~1',
      adrDir: 'docs/adr',
      servingFiles: ['deploy/prod/vllm.yaml'],
      newAdrs: [],
    });

    mkdirSync(join(repo, 'docs', 'adr'), { recursive: true });
    copyFileSync(adrPath, join(repo, 'docs', 'adr', ADR_NAME));
    const untracked = await cli(['adr', 'check', '--base', 'HEAD~1'], repo);
    expect(untracked.code).toBe(ExitCode.OK);
    git('add', '-A');
    git('commit', '-q', '-m', 'record the decision');
    const withAdr = await cli(['adr', 'check', '--base', 'HEAD~2'], repo);
    expect(withAdr.code).toBe(ExitCode.OK);
    expect(withAdr.stdout).toContain(`recorded by docs/adr/${ADR_NAME}`);
    const withAdrJson = await cli(['adr', 'check', '--base', 'HEAD~2', '--json'], repo);
    expect(withAdrJson.code).toBe(ExitCode.OK);
    expect(JSON.parse(withAdrJson.stdout)).toMatchObject({ passed: true, newAdrs: [`docs/adr/${ADR_NAME}`] });

    const flagGlobs = await cli(['adr', 'check', '--base', 'HEAD~2', '--globs', 'nothing/**'], repo);
    expect(flagGlobs.stdout).toContain('no serving-parameter file changed');
    const badRef = await cli(['adr', 'check', '--base', 'no-such-ref'], repo);
    expect(badRef.code).toBe(ExitCode.USAGE);
    expect(badRef.stderr).toContain("unknown git ref 'no-such-ref'");
  });
});
