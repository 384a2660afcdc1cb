/**
 * `watch --store` and `history --store` given a path that cannot be the store: a text file, a
 * database of another application, a file that does not exist, a folder the user may not write.
 * Each is a usage error (exit 2) naming the fix, never E_INTERNAL; watch sends nothing and
 * leaves the other application's database as it was.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { ensureBuilt, runBin, runCliInProcess, UNPRIVILEGED } from './helpers/cli.js';
import { type Loopback, startLoopback } from './helpers/loopback.js';

let work: string;
let server: Loopback;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-store-paths-'));
  chmodSync(work, 0o755); // the unprivileged child must reach its cwd
  server = await startLoopback((_req, res) => {
    res.writeHead(500);
    res.end();
  });
  ensureBuilt();
}, 120_000);
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

const WATCH = ['watch', '--rounds', '1', '--requests', '2', '--max-tokens', '4'];

describe('a --store that cannot be the store', () => {
  it('a text file: history and watch exit 2, not an SQLite database; nothing sent, the file unchanged', async () => {
    const file = join(work, 'passwd');
    writeFileSync(file, 'root:x:0:0:root:/root:/bin/bash\n');
    const history = await runCliInProcess(['history', '--store', file], { cwd: work });
    expect(history.code, history.stderr).toBe(ExitCode.USAGE);
    expect(history.stderr).toContain(
      `error[E_USAGE]: ${file} is not a goodput store: it is not an SQLite database`,
    );
    const watch = await runCliInProcess([...WATCH, '--url', server.url, '--model', 'm', '--store', file], {
      cwd: work,
    });
    expect(watch.code, watch.stderr).toBe(ExitCode.USAGE);
    expect(watch.stderr).toMatch(/hint: pass --store with the file goodput watch writes/);
    for (const r of [history, watch]) expect(r.stderr).not.toContain('E_INTERNAL');
    expect(server.requests).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe('root:x:0:0:root:/root:/bin/bash\n');
  });

  it("another application's database: watch exits 2 naming its tables and adds none of its own", async () => {
    const file = join(work, 'app.db');
    const db = new Database(file);
    db.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY)');
    db.close();
    const watch = await runCliInProcess([...WATCH, '--url', server.url, '--model', 'm', '--store', file], {
      cwd: work,
    });
    expect(watch.code, watch.stderr).toBe(ExitCode.USAGE);
    expect(watch.stderr).toContain('is an SQLite database but not a goodput store (its tables: invoices)');
    const history = await runCliInProcess(['history', '--store', file], { cwd: work });
    expect(history.code, history.stderr).toBe(ExitCode.USAGE);
    const check = new Database(file, { readonly: true });
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([
      { name: 'invoices' },
    ]);
    check.close();
    expect(server.requests).toEqual([]);
  });

  it('history before any watch: exit 2, says to run watch first', async () => {
    const history = await runCliInProcess(['history'], { cwd: work });
    expect(history.code, history.stderr).toBe(ExitCode.USAGE);
    expect(history.stderr).toContain(
      `no watch history at ${join(work, 'goodput.db')}: the file does not exist`,
    );
    expect(history.stderr).toContain('hint: run goodput watch first');
  });

  it('a folder the user may not write (as an unprivileged user): exit 2, permission named, nothing sent', async () => {
    const locked = join(work, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o555);
    const store = join(locked, 'goodput.db');
    const r = await runBin([...WATCH, '--url', server.url, '--model', 'm', '--store', store], {
      cwd: work,
      ...UNPRIVILEGED,
    });
    expect(r.code, r.stderr).toBe(ExitCode.USAGE);
    expect(r.stderr).toContain(
      `the store ${store} cannot be written: permission denied on the folder ${locked}`,
    );
    expect(r.stderr).toContain('hint: pass --store with a file in a folder you can write to');
    expect(r.stderr).not.toContain('E_INTERNAL');
    expect(readdirSync(locked)).toEqual([]);
    expect(server.requests).toEqual([]);
  });
});
