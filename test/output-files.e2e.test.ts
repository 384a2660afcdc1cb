/**
 * Files the user names for output (report and emit -o, emit --tests, gate --junit, adr new's
 * --dir, the CI runner's $GITHUB_STEP_SUMMARY) where a folder or a file is in the way: a usage
 * error naming the flag and the fix (exit 2), never E_INTERNAL. The CI runner's job summary is
 * not the user's to fix: the gate says it was not written and keeps its own exit code.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { runCliInProcess, smallVirtualRun, writeAdrFile } from './helpers/cli.js';

let work: string;
let run: string;
let adr: string;
let folder: string;
let file: string;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-output-files-'));
  run = join(work, 'run');
  const r = await smallVirtualRun(run, { cwd: work });
  expect(r.code, r.stderr).toBe(0);
  adr = writeAdrFile(join(work, 'ADR-20250102-001-x.md'), {
    gate: { ttft_p99_ms: 5000 },
    rollback: { metric: 'ttft_p99_ms', above: 5000, for: '15m' },
  });
  folder = join(work, 'a-folder');
  mkdirSync(folder);
  file = join(work, 'a-file');
  writeFileSync(file, 'keep me\n');
}, 60_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = (argv: string[], env: Record<string, string> = {}) => runCliInProcess(argv, { cwd: work, env });

describe('an output path with a folder or a file in the way', () => {
  it.each([
    ['report -o FOLDER', () => ['report', run, '-o', folder], () => `-o ${folder} is a folder, not a file`],
    [
      'report --format csv -o FOLDER',
      () => ['report', run, '--format', 'csv', '-o', folder],
      () => `-o ${folder} is a folder, not a file`,
    ],
    [
      'emit prometheus-rules -o FOLDER',
      () => ['emit', 'prometheus-rules', '--adr', adr, '-o', folder],
      () => `-o ${folder} is a folder, not a file`,
    ],
    [
      'emit grafana-dashboard -o FOLDER',
      () => ['emit', 'grafana-dashboard', '--adr', adr, '-o', folder],
      () => `-o ${folder} is a folder, not a file`,
    ],
    [
      'emit prometheus-rules -o FILE/rules.yml (a file where a folder should be)',
      () => ['emit', 'prometheus-rules', '--adr', adr, '-o', join(file, 'rules.yml')],
      () => `-o ${join(file, 'rules.yml')} cannot be written: a part of the path is a file, not a folder`,
    ],
    [
      'adr new --dir FILE',
      () => ['adr', 'new', '--title', 'x', '--baseline', run, '--candidate', run, '--dir', file],
      () => `the ADR directory ${file} is a file, not a folder`,
    ],
  ])('%s: exit 2, the flag and the fix', async (_, argv, message) => {
    const r = await cli(argv());
    expect(r.code, r.stderr).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain(`error[E_USAGE]: ${message()}`);
    expect(r.stderr).toMatch(
      /hint: (name a file, e\.g\. -o \S+\/\S+|a file stands where .* needs a folder|pass --dir a folder)/,
    );
    expect(r.stderr).not.toContain('E_INTERNAL');
  });

  it('emit --tests where its test file would be a folder: --tests is named', async () => {
    const out = join(work, 'rules.yml');
    mkdirSync(join(work, 'rules.test.yml'));
    const r = await cli(['emit', 'prometheus-rules', '--adr', adr, '-o', out, '--tests']);
    expect(r.code, r.stderr).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain(
      `error[E_USAGE]: --tests ${join(work, 'rules.test.yml')} is a folder, not a file`,
    );
  });

  it('gate --junit FOLDER: exit 2 after the gate lines', async () => {
    const r = await cli(['gate', '--from', run, '--max-error-rate', '0.5', '--junit', folder]);
    expect(r.code, r.stderr).toBe(ExitCode.USAGE);
    expect(r.stdout).toContain('[GATE PASS]');
    expect(r.stderr).toContain(`error[E_USAGE]: --junit ${folder} is a folder, not a file`);
  });

  it('$GITHUB_STEP_SUMMARY a folder: a warning, and the gate keeps its exit code (pass and breach)', async () => {
    const pass = await cli(['gate', '--from', run, '--max-error-rate', '0.5'], {
      GITHUB_STEP_SUMMARY: folder,
    });
    expect(pass.code, pass.stderr).toBe(ExitCode.OK);
    expect(pass.stderr).toContain(
      `warning: the job summary was not written ($GITHUB_STEP_SUMMARY ${folder} is a folder, not a file); the gate's result stands`,
    );
    const breach = await cli(['gate', '--from', run, '--threshold', 'p99(ttft)<0.001'], {
      GITHUB_STEP_SUMMARY: folder,
    });
    expect(breach.code, breach.stderr).toBe(ExitCode.THRESHOLD_BREACH);
    expect(breach.stderr).toContain('warning: the job summary was not written');
  });
});
