/**
 * A FIFO that nobody writes to, given where a small input file is expected (an ADR, a config
 * file): the command stops within 2 s of SIGTERM with exit 130. A blocking open of the pipe held
 * a thread of libuv's pool and the read had no stop, so `adr lint` and `gate --adr` outlived
 * SIGTERM and Ctrl-C.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from './helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-fifo-'));
const fifo = join(dir, 'pipe');
beforeAll(() => {
  ensureBuilt();
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a writer-less FIFO as an input file', () => {
  it.each([
    ['adr lint', ['adr', 'lint', fifo]],
    ['gate --adr', ['gate', '--adr', fifo, '--from', dir]],
    ['run --config', ['run', '--config', fifo, '--requests', '1']],
  ])(
    '%s stops within 2 s of SIGTERM, exit 130',
    async (_name, argv) => {
      const child = spawn(process.execPath, [BIN, ...argv], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      await new Promise((r) => setTimeout(r, 1500));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      const t0 = Date.now();
      child.kill('SIGTERM');
      const code = await Promise.race([
        exited,
        new Promise<'hung'>((r) => setTimeout(() => r('hung'), 4000)),
      ]);
      if (code === 'hung') child.kill('SIGKILL');
      expect(code, stderr).toBe(130);
      expect(Date.now() - t0).toBeLessThan(2000 + 1000); // 2 s, and a loaded machine's second
      expect(stderr).not.toMatch(/E_INTERNAL/);
    },
    15_000,
  );
});
