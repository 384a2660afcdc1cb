import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GoodputError } from '../errors.js';
import { loadDataset, MAX_DATASET_LINE_BYTES } from './dataset.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'goodput-dataset-limits-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Opens the FIFO for writing once a reader has it open (non-blocking open fails until then). */
async function waitForReader(fifo: string): Promise<number> {
  for (let i = 0; i < 100; i++) {
    try {
      return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  throw new Error('nobody opened the FIFO for reading');
}

async function failure(p: Promise<unknown>): Promise<GoodputError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(GoodputError);
  return e as GoodputError;
}

describe('loadDataset reads within limits', () => {
  test('a 20 MB single line is a usage error naming the line and the limit', async () => {
    const path = join(dir, 'giant.jsonl');
    await writeFile(path, `{"prompt":"ok"}\n{"prompt":"${'a'.repeat(20_000_000)}"}\n`);
    const err = await failure(loadDataset(path));
    expect(err.code).toBe('E_DATASET');
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(`line 2 is longer than ${MAX_DATASET_LINE_BYTES / 1024 / 1024} MiB`);
    expect(err.hint).toMatch(/JSONL/);
  });

  test('/dev/zero (no line ever ends) is a usage error, memory flat', async () => {
    const rss0 = process.memoryUsage().rss;
    const err = await failure(loadDataset('/dev/zero'));
    expect(err.code).toBe('E_DATASET');
    expect(err.message).toMatch(/line 1 is longer than 16 MiB/);
    expect(process.memoryUsage().rss - rss0).toBeLessThan(200 * 1024 * 1024);
  });

  test('a FIFO whose writer never writes: the signal stops the read at once (exit 130)', async () => {
    const fifo = join(dir, 'silent.fifo');
    execFileSync('mkfifo', [fifo]);
    const ac = new AbortController();
    const reading = loadDataset(fifo, undefined, { signal: ac.signal });
    const writer = await waitForReader(fifo);
    setTimeout(() => ac.abort(), 200);
    const t0 = performance.now();
    const err = await failure(reading);
    closeSync(writer);
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(err.exitCode).toBe(130);
  });

  test('a FIFO with a writer is read like a file', async () => {
    const fifo = join(dir, 'live.fifo');
    execFileSync('mkfifo', [fifo]);
    const reading = loadDataset(fifo);
    const writer = await waitForReader(fifo);
    writeSync(writer, '{"prompt":"a"}\n{"prompt":"b"}\n');
    closeSync(writer);
    expect((await reading).entries.map((e) => e.prompt)).toEqual(['a', 'b']);
  });

  test('lines and multi-byte characters across read chunks parse as in one piece; the sha256 is of the bytes', async () => {
    const path = join(dir, 'many.jsonl');
    const lines = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ prompt: `é€😀 ${'x'.repeat(i % 997)} ${i}` }),
    );
    const text = `\n  ${lines.join('\n')}`; // leading blank line and spaces, no final newline
    await writeFile(path, text);
    const ds = await loadDataset(path);
    expect(ds.count).toBe(3000);
    expect(ds.entries[2999]!.prompt).toBe(JSON.parse(lines[2999]!).prompt);
    expect(ds.entries.every((e, i) => e.prompt === JSON.parse(lines[i]!).prompt)).toBe(true);
    expect(ds.sha256).toBe(createHash('sha256').update(text).digest('hex'));
  });
});
