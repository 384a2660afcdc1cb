/**
 * `rm -rf node_modules dist && npm ci && npx goodput run` answered "sh: 1: goodput: Permission
 * denied": tsc writes dist/cli/main.js 0644. The build sets the exec bits of every bin
 * (scripts/bin-executable.mjs) after tsc; here the script runs on a bin written 0644, as tsc
 * leaves it, and the file then runs as a program through its shebang.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from './helpers/cli.js';

const SCRIPT = join(REPO, 'scripts', 'bin-executable.mjs');
const dir = mkdtempSync(join(tmpdir(), 'goodput-bin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the build makes the bin executable', () => {
  it('runs the exec-bit step after tsc, on the bin package.json names', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      scripts: Record<string, string>;
    };
    const steps = pkg.scripts.build!.split('&&').map((s) => s.trim());
    expect(steps.indexOf('node scripts/bin-executable.mjs')).toBeGreaterThan(
      steps.findIndex((s) => s.startsWith('tsc ')),
    );
    expect(pkg.bin.goodput).toBe('bin/goodput.js');
  });

  it('turns a 0644 bin into 0755, which then runs as a program', () => {
    mkdirSync(join(dir, 'dist', 'cli'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ bin: { tool: 'dist/cli/main.js' } }));
    const bin = join(dir, 'dist', 'cli', 'main.js');
    writeFileSync(bin, "#!/usr/bin/env node\nconsole.log('ran');\n", { mode: 0o644 });
    expect(() => execFileSync(bin)).toThrow(/EACCES/);
    execFileSync(process.execPath, [SCRIPT, dir]);
    expect(statSync(bin).mode & 0o777).toBe(0o755);
    expect(execFileSync(bin, { encoding: 'utf8' })).toBe('ran\n');
  });

  it('fails naming the bin when it was not built', () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    writeFileSync(join(empty, 'package.json'), JSON.stringify({ bin: 'dist/cli/main.js' }));
    let stderr = '';
    try {
      execFileSync(process.execPath, [SCRIPT, empty], { stdio: 'pipe' });
    } catch (e) {
      stderr = String((e as { stderr: Buffer }).stderr);
    }
    expect(stderr).toContain('dist/cli/main.js was not built');
  });
});
