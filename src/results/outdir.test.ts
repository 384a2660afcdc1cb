import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode, GoodputError } from '../errors.js';
import { prepareOutDir } from './outdir.js';

const made: string[] = [];
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'goodput-outdir-'));
  made.push(d);
  return d;
}
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function refusal(p: Promise<unknown>): Promise<GoodputError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(GoodputError);
  const g = e as GoodputError;
  expect(g.exitCode).toBe(ExitCode.USAGE);
  return g;
}

describe('prepareOutDir', () => {
  it('creates a missing nested folder and leaves no probe behind', async () => {
    const dir = join(scratch(), 'a', 'b', 'run1');
    const r = await prepareOutDir(dir);
    expect(r).toEqual({ dir, removed: [] });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('accepts an existing folder that holds no run, and leaves its files alone', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    await prepareOutDir(dir);
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it.each([
    ['the folder is a file', (d: string) => join(d, 'file'), 'is a file, not a folder'],
    [
      'a parent of the folder is a file',
      (d: string) => join(d, 'file', 'run'),
      'a part of the path is a file',
    ],
  ])('%s: usage error naming the cause, the fix, and that nothing was sent', async (_, path, cause) => {
    const d = scratch();
    writeFileSync(join(d, 'file'), 'x');
    const e = await refusal(prepareOutDir(path(d)));
    expect(e.code).toBe('E_USAGE');
    expect(e.message).toContain(path(d));
    expect(e.message).toContain(cause);
    expect(e.message).toContain('nothing was sent');
    expect(e.hint).toMatch(/--out/);
  });

  it.each([['summary.json'], ['requests.jsonl'], ['sweep.json']])(
    'a folder holding an earlier run (%s) is refused without --force and left untouched',
    async (marker) => {
      const dir = scratch();
      writeFileSync(join(dir, marker), '{}');
      writeFileSync(join(dir, 'server-metrics.jsonl'), '{}');
      const e = await refusal(prepareOutDir(dir));
      expect(e.message).toContain('holds an earlier run');
      expect(e.message).toContain(marker);
      expect(e.hint).toContain('--force');
      expect(readdirSync(dir).sort()).toEqual([marker, 'server-metrics.jsonl'].sort());
    },
  );

  it("--force removes the earlier run's files (stale server metrics included) and says which", async () => {
    const dir = scratch();
    for (const f of ['summary.json', 'requests.jsonl', 'server-metrics.jsonl', 'notes.txt']) {
      writeFileSync(join(dir, f), 'old');
    }
    const r = await prepareOutDir(dir, { force: true });
    expect(r.removed.sort()).toEqual(['requests.jsonl', 'server-metrics.jsonl', 'summary.json']);
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it('a lone server-metrics.jsonl is not an earlier run (nothing to refuse, nothing removed)', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'server-metrics.jsonl'), 'old');
    expect((await prepareOutDir(dir)).removed).toEqual([]);
  });

  it('nested: a subfolder holding a run marks an earlier sweep; --force removes that subfolder only', async () => {
    const dir = scratch();
    mkdirSync(join(dir, '01-c1'));
    writeFileSync(join(dir, '01-c1', 'requests.jsonl'), 'old');
    mkdirSync(join(dir, 'keep'));
    writeFileSync(join(dir, 'keep', 'x.txt'), 'mine');
    const e = await refusal(prepareOutDir(dir, { nested: true }));
    expect(e.message).toContain('01-c1/');
    // without nested, the same folder is just a folder with subfolders
    expect((await prepareOutDir(dir)).removed).toEqual([]);
    const r = await prepareOutDir(dir, { nested: true, force: true });
    expect(r.removed).toEqual(['01-c1/']);
    expect(existsSync(join(dir, '01-c1'))).toBe(false);
    expect(existsSync(join(dir, 'keep', 'x.txt'))).toBe(true);
  });

  it('names the flag it was given in messages', async () => {
    const d = scratch();
    writeFileSync(join(d, 'file'), 'x');
    const e = await refusal(prepareOutDir(join(d, 'file'), { flag: '--report-dir' }));
    expect(e.message).toMatch(/^--report-dir /);
  });
});
