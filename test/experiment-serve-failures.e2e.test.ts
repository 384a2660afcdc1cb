// runs alone: asserts a live readiness deadline
/**
 * A server that does not come up (a bad flag: it exits at once; its port in use: it exits; it
 * never answers health: timeout) fails only its configuration, with the cause, a hint and the
 * log's last lines; the experiment goes on with the others and leaves no process behind.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentFile } from '../src/types.js';
import { BIN, ensureBuilt, runCliInProcess } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'goodput-experiment-fail-'));
let busy: Server;
let busyPort = 0;
beforeAll(async () => {
  ensureBuilt();
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
}, 180_000);
afterAll(async () => {
  await new Promise<void>((resolve) => busy.close(() => resolve()));
  rmSync(work, { recursive: true, force: true });
});

const sim = (...args: string[]) =>
  JSON.stringify([process.execPath, BIN, 'sim', '--slowdown', '0.2', ...args]);

describe('goodput experiment: servers that fail to start', () => {
  it('fails only their configuration, with the log tail and a hint, and goes on', async () => {
    const plan = join(work, 'plan.yaml');
    writeFileSync(
      plan,
      [
        'output: out',
        'runs: 1',
        'configurations:',
        `  - { name: Baseline, serve: { command: ${sim('--port', '{port}')}, startup_timeout: 60s } }`,
        `  - { name: Bad flag, serve: { command: ${sim('--port', '{port}', '--no-such-flag')} } }`,
        `  - { name: Port in use, params: { busy: ${busyPort} }, serve: { command: ${sim('--port', '{busy}')}, startup_timeout: 60s } }`,
        `  - name: Never healthy`,
        `    serve: { command: [${JSON.stringify(process.execPath)}, "-e", "console.log('loading'); setInterval(() => {}, 1000)"], startup_timeout: 1500ms, grace: 2s }`,
        'run: "--concurrency 2 --requests 4 --prompt-tokens 16 --max-tokens 4"',
        '',
      ].join('\n'),
    );
    const r = await runCliInProcess(['experiment', plan], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    const state = JSON.parse(readFileSync(join(work, 'out', 'experiment.json'), 'utf8')) as ExperimentFile;
    expect(state.status).toBe('done');
    const [ok, badFlag, portInUse, never] = state.configurations;
    expect(ok!.status).toBe('ok');
    expect(ok!.runs[0]!.status).toBe('ok');

    expect(badFlag!.status).toBe('failed');
    expect(badFlag!.failure).toMatchObject({ code: 'E_SERVE_EXITED' });
    expect(badFlag!.failure!.logTail).toContain('--no-such-flag');
    expect(badFlag!.failure!.hint).toContain('a flag of the serve command is wrong');
    expect(badFlag!.runs[0]).toMatchObject({ status: 'failed', error: { code: 'E_SERVE_EXITED' } });

    expect(portInUse!.failure).toMatchObject({ code: 'E_SERVE_EXITED' });
    expect(portInUse!.failure!.logTail).toContain('EADDRINUSE');
    expect(portInUse!.failure!.hint).toContain('the port is in use');

    expect(never!.failure).toMatchObject({ code: 'E_SERVE_TIMEOUT' });
    expect(never!.failure!.message).toContain('within 1.5 s');
    expect(never!.failure!.logTail).toContain('loading');
    expect(never!.failure!.hint).toContain('startup_timeout');

    expect(r.stderr).toMatch(/Bad flag: failed .*the experiment goes on without it/);
    expect(r.stdout).toContain('failed: E_SERVE_TIMEOUT');
    for (const c of state.configurations) {
      for (const s of c.serve?.starts ?? []) {
        expect(() => process.kill(-s.pid, 0), `${c.name} pid ${s.pid}`).toThrow();
      }
    }
  }, 120_000);
});
