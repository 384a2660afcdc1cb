/**
 * SIGKILL of goodput mid-experiment (its server left running: it leads its own process group),
 * then `--resume`: the orphaned server is found from the pid file and stopped, finished runs are
 * kept (same files, same mtimes), the rest completes; a changed plan is refused.
 */

import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentFile } from '../src/types.js';
import { BIN, ensureBuilt, readRunSummary, runBin } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'goodput-experiment-resume-'));
chmodSync(work, 0o755);
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PLAN = [
  'name: resume',
  'output: out',
  'runs: 1',
  'serve:',
  `  command: ${JSON.stringify([process.execPath, BIN, 'sim', '--port', '{port}', '--max-num-batched-tokens', '{mnbt}', '--slowdown', '0.2'])}`,
  '  startup_timeout: 60s',
  '  grace: 5s',
  'configurations:',
  '  - { name: Baseline, params: { mnbt: 1024 } }',
  '  - { name: Exp-1, params: { mnbt: 2048 } }',
  'run: "--concurrency 2 --requests 6 --prompt-tokens 32 --max-tokens 8"',
  '',
].join('\n');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Every file under dir with its mtime and content. */
function snapshot(dir: string): Record<string, { mtimeMs: number; text: string }> {
  const out: Record<string, { mtimeMs: number; text: string }> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, name);
    if (statSync(path).isFile())
      out[name] = { mtimeMs: statSync(path).mtimeMs, text: readFileSync(path, 'utf8') };
  }
  return out;
}

describe('goodput experiment --resume after SIGKILL', () => {
  it('stops the orphaned server, keeps the finished runs untouched and completes the rest', async () => {
    const plan = join(work, 'plan.yaml');
    writeFileSync(plan, PLAN);
    const dir = join(work, 'out');
    let orphan: number | undefined;
    const killed = await runBin(['experiment', plan], {
      cwd: work,
      timeoutMs: 120_000,
      onStderr: (text, child) => {
        const m = /Exp-1: server up on port \d+ in [\d.]+ s \(pid (\d+)\)/.exec(text);
        if (m && orphan === undefined) {
          orphan = Number(m[1]);
          child.kill('SIGKILL');
        }
      },
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(orphan).toBeDefined();
    // goodput is gone; its server is not (it leads its own process group), and the pid file says so.
    expect(alive(orphan!)).toBe(true);
    const pidFile = JSON.parse(readFileSync(join(dir, 'server.pid.json'), 'utf8')) as { pid: number };
    expect(pidFile.pid).toBe(orphan);
    const before = JSON.parse(readFileSync(join(dir, 'experiment.json'), 'utf8')) as ExperimentFile;
    expect(before.status).toBe('running');
    expect(before.configurations[0]!.runs[0]!.status).toBe('ok');
    const kept = snapshot(join(dir, 'runs', 'baseline'));
    expect(Object.keys(kept)).toContain('run-1/summary.json');

    const resumed = await runBin(['experiment', plan, '--resume'], { cwd: work, timeoutMs: 120_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`stopped the server of Exp-1 (pid ${orphan}`);
    expect(alive(orphan!)).toBe(false);
    expect(alive(-orphan!)).toBe(false);
    expect(resumed.stderr).toContain('1 run(s) left');
    // The finished run: same files, same bytes, same mtimes.
    expect(snapshot(join(dir, 'runs', 'baseline'))).toEqual(kept);
    const after = JSON.parse(readFileSync(join(dir, 'experiment.json'), 'utf8')) as ExperimentFile;
    expect(after.status).toBe('done');
    expect(after.configurations.map((c) => c.status)).toEqual(['ok', 'ok']);
    expect(readRunSummary(join(dir, after.configurations[1]!.runs[0]!.dir)).completed).toBe(6);
    for (const c of after.configurations)
      for (const s of c.serve?.starts ?? []) expect(alive(s.pid)).toBe(false);
    expect(existsSync(join(dir, 'server.pid.json'))).toBe(false);

    // A changed plan is not resumed.
    writeFileSync(plan, PLAN.replace('mnbt: 2048', 'mnbt: 4096'));
    const changed = await runBin(['experiment', plan, '--resume'], { cwd: work, timeoutMs: 60_000 });
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('the plan changed since the experiment');
    expect(changed.stderr).toContain('hint:');
  }, 240_000);
});
