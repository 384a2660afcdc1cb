import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pidFilePath, sweepPidFile, writePidFile } from './pid-file.js';
import { groupAlive, processArgv, processStartTime } from './process-group.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-pid-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (fields: { pid?: number; argv: string[]; startTime?: number }) => ({
  schemaVersion: 1 as const,
  configuration: 'Exp-1',
  startedAt: new Date().toISOString(),
  stopSignal: 'SIGTERM' as const,
  graceMs: 2000,
  ...fields,
  ...(fields.pid !== undefined ? { pgid: fields.pid } : {}),
});

describe('the pid file of a killed experiment', () => {
  it('stops the recorded server when it is still that command, as a whole process group', async () => {
    const argv = [process.execPath, '-e', 'setInterval(() => {}, 1000)'];
    const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const pid = child.pid!;
    writePidFile(dir, record({ pid, argv, startTime: processStartTime(pid) }));
    expect(processArgv(pid)).toEqual(argv);
    const said = await sweepPidFile(dir);
    expect(said).toContain(`stopped the server of Exp-1 (pid ${pid}`);
    await exited;
    expect(groupAlive(pid)).toBe(false);
    expect(existsSync(pidFilePath(dir))).toBe(false);
  });

  it('leaves alone a pid that is now another process (another command, or another start time)', async () => {
    writePidFile(dir, record({ pid: process.pid, argv: ['vllm', 'serve', 'x'] }));
    expect(await sweepPidFile(dir)).toContain('now another process');
    writePidFile(dir, record({ pid: process.pid, argv: processArgv(process.pid)!, startTime: 1 }));
    expect(await sweepPidFile(dir)).toContain('now another process');
    expect(existsSync(pidFilePath(dir))).toBe(false);
  });

  it('says when the server is gone already, and removes a file without a pid', async () => {
    const child = spawn(process.execPath, ['-e', '0'], { detached: true, stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    writePidFile(dir, record({ pid: child.pid!, argv: ['x'] }));
    expect(await sweepPidFile(dir)).toContain('is no longer running');
    writePidFile(dir, record({ argv: ['x'] }));
    expect(await sweepPidFile(dir)).toContain('had not been spawned');
    expect(await sweepPidFile(dir)).toBeUndefined();
  });
});
