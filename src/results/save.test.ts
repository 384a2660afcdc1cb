import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMeta, streamed } from '../../test/fixtures/records.js';
import { ExitCode } from '../errors.js';
import { RunAccumulator } from '../metrics/index.js';
import type { RunSummary } from '../types.js';
import { saveSummary, writeFailedError, writeSummary } from './save.js';
import { readSummary } from './summary.js';

const made: string[] = [];
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'goodput-save-'));
  made.push(d);
  return d;
}
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function summary(): RunSummary {
  const meta = runMeta();
  const acc = RunAccumulator.fromMeta(meta);
  for (let i = 0; i < 5; i++) acc.add(streamed({ id: `r${i}`, index: i }));
  return acc.summarize(meta, { dropped: 0, peakInFlight: 1, clientBound: false, interrupted: false });
}

describe('writeSummary', () => {
  it('replaces the file whole and leaves no temporary file beside it', async () => {
    const dir = scratch();
    const path = join(dir, 'summary.json');
    const s = summary();
    await writeSummary(path, { ...s, completed: 1 });
    await writeSummary(path, s);
    expect(readdirSync(dir)).toEqual(['summary.json']);
    expect((await readSummary(dir)).completed).toBe(s.completed);
  });

  it('when the rename fails (a folder is in the way), throws and removes its temporary file', async () => {
    const dir = scratch();
    mkdirSync(join(dir, 'summary.json'));
    await expect(writeSummary(join(dir, 'summary.json'), summary())).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['summary.json']);
  });
});

describe('saveSummary', () => {
  it('writes into the result folder when it can', async () => {
    const dir = scratch();
    const saved = await saveSummary(dir, summary());
    expect(saved).toEqual({ path: join(dir, 'summary.json') });
  });

  it('rescues the summary under the temporary directory when the folder refuses it, and says why', async () => {
    const dir = scratch();
    mkdirSync(join(dir, 'summary.json'));
    const s = summary();
    const saved = await saveSummary(dir, s);
    made.push(join(saved.path, '..'));
    expect(saved.path.startsWith(join(tmpdir(), `goodput-rescued-${s.meta.runId}-`))).toBe(true);
    expect(JSON.parse(readFileSync(saved.path, 'utf8'))).toEqual(s);
    expect(saved.failure?.path).toBe(join(dir, 'summary.json'));
    const e = writeFailedError({
      dir,
      failures: [saved.failure!],
      summaryPath: saved.path,
      measured: s.counts.attempted,
      stopped: false,
    });
    expect(e.code).toBe('E_IO');
    expect(e.exitCode).toBe(ExitCode.WRITE_FAILED);
    expect(e.message).toBe(
      `could not write ${join(dir, 'summary.json')} (a folder is in the way of the file). What was measured (5 requests) is summarised in ${saved.path}`,
    );
    expect(e.hint).toContain(join(dir, 'requests.jsonl'));
  });

  it('a file the process had no descriptor left to open: E_FD_LIMIT (exit 7), the hint names ulimit -n, not the folder', () => {
    const emfile = Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
    const e = writeFailedError({
      dir: '/r',
      failures: [{ path: '/r/requests.jsonl', error: emfile }],
      summaryPath: '/r/summary.json',
      measured: 600,
      stopped: true,
    });
    expect(e.code).toBe('E_FD_LIMIT');
    expect(e.exitCode).toBe(ExitCode.WRITE_FAILED);
    expect(e.hint).toMatch(
      /^raise the open-file limit in the shell that starts goodput \(ulimit -n\) or lower the load/,
    );
    expect(e.hint).not.toMatch(/permissions/);
  });
});
