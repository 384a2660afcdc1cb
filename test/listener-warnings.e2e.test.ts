/**
 * Loads with many waiters on one stop signal print no "Possible EventTarget memory leak
 * detected" warning: twenty stage users or twenty sessions share their run's stop by design,
 * and a user who sees "memory leak" on stderr rightly stops trusting the figures. Run through
 * the binary, where Node prints the warning. Bounded: about 10 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runBin } from './helpers/cli.js';

let work: string;
beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'goodput-listeners-'));
}, 120_000);
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const WARNING = 'MaxListenersExceededWarning';

describe('no listener-leak warning with many waiters on one stop', () => {
  it('a staged closed loop of twenty users', async () => {
    const r = await runBin(
      ['run', '--stages', '1s:20,1s:0', '--max-tokens', '4', '--out', join(work, 'stages')],
      { cwd: work, timeoutMs: 30_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(WARNING);
  }, 40_000);

  it('twenty multi-turn sessions thinking and waiting for one of four slots', async () => {
    const r = await runBin(
      [
        'run',
        '--sessions',
        '20',
        '--turns',
        '3',
        '--think-time',
        '500ms',
        '--max-concurrency',
        '4',
        '--requests',
        '40',
        '--max-tokens',
        '4',
        '--out',
        join(work, 'sessions'),
      ],
      { cwd: work, timeoutMs: 30_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(WARNING);
  }, 40_000);
});
