import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../types.js';
import { JsonlWriter } from './jsonl.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function writer(): JsonlWriter<{ i: number; pad?: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'goodput-jsonl-'));
  dirs.push(dir);
  return new JsonlWriter(join(dir, 'requests.jsonl'), {
    schemaVersion: SCHEMA_VERSION,
    kind: 'goodput.requests',
    runId: 'r',
    startedAt: new Date(0).toISOString(),
  } as never);
}

/** The file's lines so far (it is opened asynchronously: none before that). */
function lines(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter(Boolean);
}

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('JsonlWriter', () => {
  it('records reach the file while the run goes on, without close (a kill loses at most a few ms)', async () => {
    const w = writer();
    for (let i = 0; i < 3; i++) w.write({ i });
    await until(() => lines(w.path).length === 4);
    expect(
      lines(w.path)
        .slice(1)
        .map((l) => JSON.parse(l).i),
    ).toEqual([0, 1, 2]);
    await w.close();
  });

  it('a large backlog is handed over, and close writes every record in order', async () => {
    const w = writer();
    const pad = 'x'.repeat(1000);
    for (let i = 0; i < 100; i++) w.write({ i, pad });
    await until(() => lines(w.path).length > 1);
    for (let i = 100; i < 150; i++) w.write({ i });
    await w.close();
    const all = lines(w.path)
      .slice(1)
      .map((l) => JSON.parse(l).i);
    expect(all).toEqual(Array.from({ length: 150 }, (_, i) => i));
    expect(w.count).toBe(150);
  });
});
