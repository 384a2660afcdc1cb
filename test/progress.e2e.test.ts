/**
 * Progress when nobody watches a terminal (issue 15.5): `goodput run --duration 30s | cat`
 * (stderr a pipe too, as in CI) prints a progress line every 10 s while the run goes, not
 * only a table at the end. Here every 3 s (`--progress-every`) over 9 s, to keep the suite short.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runBin } from './helpers/cli.js';

let work: string;
beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'goodput-progress-'));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('progress on a pipe', () => {
  it('a 9 s run at --progress-every 3s prints at least two progress lines while it runs, before the table', async () => {
    const start = performance.now();
    const arrivals: Array<{ atMs: number; line: string }> = [];
    let seen = 0;
    const r = await runBin(
      [
        'run',
        '--duration',
        '9s',
        '--progress-every',
        '3s',
        '--concurrency',
        '2',
        '--max-tokens',
        '16',
        '--out',
        join(work, 'r'),
      ],
      {
        cwd: work,
        timeoutMs: 45_000,
        onStderr: (text) => {
          const lines = text.split('\n').slice(0, -1);
          for (const line of lines.slice(seen)) {
            if (line.startsWith('progress: ')) arrivals.push({ atMs: performance.now() - start, line });
          }
          seen = lines.length;
        },
      },
    );
    const endMs = performance.now() - start;
    expect(r.code, r.stderr).toBe(0);
    const during = arrivals.filter((a) => a.atMs < endMs - 1_000);
    expect(during.length, r.stderr).toBeGreaterThanOrEqual(2);
    // one line every 3 s: the first one comes after about 3 s, not at once
    expect(during[0]!.atMs).toBeGreaterThan(2_400);
    // each line has the figures a CI log reader wants
    expect(during[0]!.line).toMatch(
      /progress: \d+% \d+ req {2}\d+\.\ds {2}ok \d+ {2}failed \d+ {2}[\d.]+ req\/s {2}\d+ tok\/s {2}ETA \d+s/,
    );
    // no terminal codes on a pipe
    expect(r.stderr).not.toContain('\x1b[');
    expect(r.stdout).toContain('TTFT');
  }, 60_000);
});
