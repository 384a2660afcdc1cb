/**
 * `goodput experiment` with real subprocess servers (`goodput sim --port {port}
 * --max-num-batched-tokens {mnbt}`): started, health awaited, runs interleaved, stopped; and
 * afterwards no process of the experiment alive (every recorded pid checked), on success, on
 * Ctrl-C and on an error (experiment.json becomes unwritable mid-experiment).
 */

import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentFile } from '../src/types.js';
import { BIN, ensureBuilt, readRunSummary, runBin, UNPRIVILEGED } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'goodput-experiment-serve-'));
chmodSync(work, 0o777); // the error case runs goodput as nobody
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A plan of 2 configurations × `runs` runs of a tiny live load on subprocess simulators. */
function writePlan(name: string, runs: number): string {
  const path = join(work, `${name}.yaml`);
  writeFileSync(
    path,
    [
      `name: ${name}`,
      `output: ${name}`,
      `runs: ${runs}`,
      'serve:',
      `  command: ${JSON.stringify([process.execPath, BIN, 'sim', '--port', '{port}', '--max-num-batched-tokens', '{mnbt}', '--slowdown', '0.2'])}`,
      '  startup_timeout: 60s',
      '  grace: 5s',
      'configurations:',
      '  - { name: Baseline, params: { mnbt: 1024 } }',
      '  - { name: Exp-1, params: { mnbt: 2048 } }',
      'run: "--concurrency 2 --requests 6 --prompt-tokens 32 --max-tokens 8"',
      '',
    ].join('\n'),
  );
  return path;
}

function readState(dir: string): ExperimentFile {
  return JSON.parse(readFileSync(join(dir, 'experiment.json'), 'utf8')) as ExperimentFile;
}

/** Every pid the experiment recorded. */
function recordedPids(state: ExperimentFile): number[] {
  return state.configurations.flatMap((c) => (c.serve?.starts ?? []).map((s) => s.pid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Neither the pid nor its process group exists. */
function expectGone(pids: number[]): void {
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) {
    expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(alive(-pid), `process group ${pid}`).toBe(false);
  }
}

describe('goodput experiment with subprocess servers', () => {
  it('starts each server, awaits its health, interleaves the runs and stops every server', async () => {
    const plan = writePlan('ok', 2);
    const r = await runBin(['experiment', plan], { cwd: work, timeoutMs: 150_000 });
    expect(r.code, r.stderr).toBe(0);
    const dir = join(work, 'ok');
    const state = readState(dir);
    expect(state.status).toBe('done');
    expect(state.configurations.map((c) => c.status)).toEqual(['ok', 'ok']);
    const [base, exp] = state.configurations;
    // The exact command, with {mnbt} and {port} filled in.
    expect(base!.serve!.argv).toEqual([
      process.execPath,
      BIN,
      'sim',
      '--port',
      String(base!.serve!.port),
      '--max-num-batched-tokens',
      '1024',
      '--slowdown',
      '0.2',
    ]);
    expect(exp!.serve!.argv[6]).toBe('2048');
    expect(base!.server?.engine).toBe('goodput-sim');
    expect(base!.server?.settings?.['cache_config.block_size']).toBe('16');
    expect(readFileSync(join(dir, base!.log!), 'utf8')).toContain('max-num-batched-tokens 1024');
    // Interleaved ABAB, each run after the one before, each visit its own start (restart per visit).
    const runs = state.configurations
      .flatMap((c, ci) => c.runs.map((run) => ({ ci, ...run })))
      .sort((a, b) => a.order - b.order);
    expect(runs.map((x) => x.ci)).toEqual([0, 1, 0, 1]);
    for (let i = 1; i < runs.length; i++)
      expect(Date.parse(runs[i]!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(runs[i - 1]!.endedAt!));
    for (const x of runs) expect(readRunSummary(join(dir, x.dir)).completed).toBe(6);
    for (const c of state.configurations) {
      expect(c.serve!.starts!.length).toBe(2);
      for (const s of c.serve!.starts!) {
        expect(s.startupMs).toBeGreaterThan(0);
        expect(s.stop).toBe('signal');
      }
    }
    // Each server was up for its run: started before it, stopped after it.
    for (const x of runs) {
      const starts = state.configurations[x.ci]!.serve!.starts!;
      const s = starts[x.repeat]!;
      expect(Date.parse(s.startedAt)).toBeLessThanOrEqual(Date.parse(x.startedAt!));
      expect(Date.parse(s.stoppedAt!)).toBeGreaterThanOrEqual(Date.parse(x.endedAt!));
    }
    expectGone(recordedPids(state));
    expect(existsSync(join(dir, 'server.pid.json'))).toBe(false);
  }, 180_000);

  it('on Ctrl-C stops the run and the server, exits 130 and leaves the experiment interrupted', async () => {
    const plan = writePlan('sigint', 2);
    let sent = false;
    const r = await runBin(['experiment', plan], {
      cwd: work,
      timeoutMs: 120_000,
      onStderr: (text, child) => {
        if (!sent && text.includes('Baseline: server up')) {
          sent = true;
          child.kill('SIGINT');
        }
      },
    });
    expect(sent).toBe(true);
    expect(r.code, r.stderr).toBe(130);
    const state = readState(join(work, 'sigint'));
    expect(state.status).toBe('interrupted');
    expect(r.stderr).toContain('--resume');
    expectGone(recordedPids(state));
    expect(existsSync(join(work, 'sigint', 'server.pid.json'))).toBe(false);
  }, 150_000);

  it('on a second Ctrl-C (exit at once) its exit hook kills the server group', async () => {
    // A server that ignores SIGTERM: once goodput has exited, only the exit hook's SIGKILL stops it.
    const script =
      "process.on('SIGTERM', () => {}); require('http').createServer((q, s) => s.end('ok')).listen(Number(process.argv[1]), '127.0.0.1')";
    const plan = join(work, 'twice.yaml');
    writeFileSync(
      plan,
      [
        'output: twice',
        'runs: 1',
        `serve: { command: ${JSON.stringify([process.execPath, '-e', script, '{port}'])}, grace: 30s }`,
        'configurations: [{ name: Baseline }]',
        'run: "--requests 2 --prompt-tokens 8 --max-tokens 2"',
        '',
      ].join('\n'),
    );
    let pid: number | undefined;
    const r = await runBin(['experiment', plan], {
      cwd: work,
      timeoutMs: 120_000,
      onStderr: (text, child) => {
        const m = /Baseline: server up on port \d+ in [\d.]+ s \(pid (\d+)\)/.exec(text);
        if (m && pid === undefined) {
          pid = Number(m[1]);
          child.kill('SIGINT');
          // Apart, or the two signals arrive as one.
          setTimeout(() => child.kill('SIGINT'), 500);
        }
      },
    });
    expect(pid).toBeDefined();
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain('press Ctrl-C again');
    // SIGKILLed as goodput exited (the grace period of 30 s had not run out); init reaps it a moment later.
    for (let i = 0; i < 60 && alive(pid!); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expectGone([pid!]);
  }, 150_000);

  it('on an error (experiment.json cannot be written) stops the server and says so', async () => {
    const plan = writePlan('error', 2);
    const dir = join(work, 'error');
    let locked = false;
    const r = await runBin(['experiment', plan], {
      cwd: work,
      timeoutMs: 120_000,
      ...UNPRIVILEGED,
      onStderr: (text) => {
        if (!locked && text.includes('Baseline: server up')) {
          locked = true;
          chmodSync(dir, 0o555);
        }
      },
    });
    chmodSync(dir, 0o755);
    expect(locked).toBe(true);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain('experiment.json');
    const pids = readState(dir).configurations.flatMap((c) => (c.serve?.starts ?? []).map((s) => s.pid));
    // The last write failed, so the pid of the server may be only in the log's line and the pid file.
    const fromStderr = [...r.stderr.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1]));
    expectGone([...new Set([...pids, ...fromStderr])]);
  }, 150_000);
});
