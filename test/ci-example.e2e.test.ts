/**
 * The CI example (docs/ci/github-actions.yml) works as copied (issue 26): its `adr check`
 * step exited 2 until a goodput.config.json existed, which the workflow did not say. Here the
 * goodput steps of its `adr` job run, in order, in a new git repository as a pull request
 * would see it: the `${{ }}` expressions and `if:` conditions they use are evaluated (an
 * expression of another form fails the test, so the workflow cannot drift from it). A fresh
 * repository passes; a serving file changed without an ADR fails with exit 5 naming it; an
 * ADR makes it pass, and then the deployment is enforced.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { globMatcher, tokenizeCommandLine } from '../src/adr/index.js';
import { ExitCode } from '../src/errors.js';
import { REPO, runCliInProcess, writeAdrFile } from './helpers/cli.js';

interface Step {
  name?: string;
  run?: string;
  if?: string;
}
const workflow = parse(readFileSync(join(REPO, 'docs', 'ci', 'github-actions.yml'), 'utf8')) as {
  jobs: Record<string, { if?: string; steps: Step[] }>;
};

const repo = mkdtempSync(join(tmpdir(), 'goodput-ci-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd: repo,
    encoding: 'utf8',
  });
}

function files(dir = repo): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === '.git' ? [] : e.isDirectory() ? files(join(dir, e.name)) : [relative(repo, join(dir, e.name))],
  );
}

/** The pull request's context: `github.base_ref` is the target branch; no repository variable is set. */
const CONTEXT: Record<string, string> = { 'github.base_ref': 'main' };

/** `${{ github.base_ref || 'main' }}`: a context value or its fallback literal. */
function expression(text: string): string {
  const m = /^([\w.]+)(?:\s*\|\|\s*'([^']*)')?$/.exec(text.trim());
  if (!m) throw new Error(`expression the test does not know: ${text}`);
  return CONTEXT[m[1]!] || (m[2] ?? '');
}

/** `if:` as the workflow writes it: terms `hashFiles('glob') != ''` or `vars.NAME != ''` joined by &&. */
function condition(text: string | undefined): boolean {
  if (text === undefined) return true;
  return text.split('&&').every((term) => {
    const hash = /^\s*hashFiles\('([^']+)'\)\s*!=\s*''\s*$/.exec(term);
    if (hash) return files().some(globMatcher([hash[1]!]));
    const variable = /^\s*vars\.\w+\s*!=\s*''\s*$/.exec(term);
    if (variable) return false; // no repository variable is set in a copied workflow
    throw new Error(`condition the test does not know: ${term}`);
  });
}

/** Runs the job's goodput steps in order; the exit code of each, or 'skipped'. */
async function runJob(job: string): Promise<Array<{ step: string; code: number | 'skipped'; out: string }>> {
  const out: Array<{ step: string; code: number | 'skipped'; out: string }> = [];
  for (const step of workflow.jobs[job]!.steps) {
    if (!step.run?.trim().startsWith('goodput ')) continue;
    const name = step.name ?? step.run;
    if (!condition(step.if)) {
      out.push({ step: name, code: 'skipped', out: '' });
      continue;
    }
    const line = step.run.replace(/\$\{\{([^}]*)\}\}/g, (_, e: string) => expression(e));
    const argv = tokenizeCommandLine(line).slice(1);
    const r = await runCliInProcess(argv, { cwd: repo });
    out.push({ step: name, code: r.code, out: r.stdout + r.stderr });
  }
  return out;
}

describe('the CI example, copied into a repository', () => {
  it('a fresh repository: every goodput step passes or waits for what it needs', async () => {
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), 'app\n');
    git('add', '.');
    git('commit', '-qm', 'start');
    git('update-ref', 'refs/remotes/origin/main', 'HEAD'); // what actions/checkout fetches
    git('checkout', '-qb', 'feature');
    const steps = await runJob('adr');
    expect(steps.map((s) => s.code)).toEqual([ExitCode.OK, ExitCode.OK, 'skipped']);
    expect(steps[1]!.out).toContain('no serving-parameter file changed since origin/main');
    // The gate job waits for its repository variables.
    expect(condition(workflow.jobs.gate!.if)).toBe(false);
  });

  it('a serving file changed without an ADR: adr check fails (5) naming it', async () => {
    mkdirSync(join(repo, 'deploy'));
    writeFileSync(join(repo, 'deploy', 'vllm.yaml'), 'command: [vllm, serve, m, --max-num-seqs, "128"]\n');
    git('add', '.');
    git('commit', '-qm', 'serve');
    const steps = await runJob('adr');
    expect(steps.map((s) => s.code)).toEqual([ExitCode.OK, ExitCode.ADR_VIOLATION, 'skipped']);
    expect(steps[1]!.out).toContain('without a new ADR: deploy/vllm.yaml');
  });

  it('with an ADR added, the check passes and the deployment is enforced against its rules', async () => {
    mkdirSync(join(repo, 'docs', 'adr'), { recursive: true });
    writeAdrFile(join(repo, 'docs', 'adr', 'ADR-20250102-001-seqs.md'), {
      rules: [{ flag: '--max-num-seqs', equals: '256' }],
    });
    git('add', '.');
    git('commit', '-qm', 'adr');
    const breaks = await runJob('adr');
    expect(breaks.map((s) => s.code)).toEqual([ExitCode.OK, ExitCode.OK, ExitCode.ADR_VIOLATION]);
    expect(breaks[2]!.out).toContain("--max-num-seqs is '128', required 256");
    writeFileSync(join(repo, 'deploy', 'vllm.yaml'), 'command: [vllm, serve, m, --max-num-seqs, "256"]\n');
    const obeys = await runJob('adr');
    expect(obeys.map((s) => s.code)).toEqual([ExitCode.OK, ExitCode.OK, ExitCode.OK]);
  });
});
