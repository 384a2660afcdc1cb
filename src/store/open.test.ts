/**
 * Paths that cannot be the store, opened for reading (history) and writing (watch): each is a
 * coded error naming the fix, a usage error when it is the user's mistake; a database of
 * something else is left untouched.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { GoodputError } from '../errors.js';
import { WatchStore } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-store-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function opened(path: string, readonly: boolean): GoodputError | 'opened' {
  try {
    WatchStore.open(path, { readonly }).close();
    return 'opened';
  } catch (e) {
    if (e instanceof GoodputError) return e;
    throw e;
  }
}

/** The bytes of a file, a folder's entries, or absent: what must not change. */
function snapshot(path: string): Buffer | string[] | 'absent' {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 'absent';
  return stat.isDirectory() ? readdirSync(path) : readFileSync(path);
}

const text = join(dir, 'notes.txt');
writeFileSync(text, 'root:x:0:0:root:/root:/bin/bash\n'.repeat(200));
const empty = join(dir, 'empty.db');
writeFileSync(empty, '');
const foreign = join(dir, 'app.db');
const db = new Database(foreign);
db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada')");
db.close();
const folder = join(dir, 'folder');
mkdirSync(folder);

describe('WatchStore.open refuses what cannot be the store', () => {
  test.each([
    // [case, path, readonly, code, cause, hint]
    [
      'missing, to read',
      join(dir, 'none.db'),
      true,
      'E_USAGE',
      /no watch history at .*none\.db: the file does not exist/,
      /run goodput watch first/,
    ],
    [
      'a folder, to read',
      folder,
      true,
      'E_USAGE',
      /is a folder, not a file/,
      /--store .*folder\/goodput\.db/,
    ],
    [
      'a folder, to write',
      folder,
      false,
      'E_USAGE',
      /is a folder, not a file/,
      /--store .*folder\/goodput\.db/,
    ],
    [
      'in a missing folder, to write',
      join(dir, 'no', 'such', 'x.db'),
      false,
      'E_USAGE',
      /the folder .*no\/such does not exist/,
      /mkdir -p/,
    ],
    ['a text file, to read', text, true, 'E_USAGE', /not an SQLite database/, /file goodput watch writes/],
    ['a text file, to write', text, false, 'E_USAGE', /not an SQLite database/, /file goodput watch writes/],
    [
      'an empty file, to read',
      empty,
      true,
      'E_USAGE',
      /no watch history at .*: the database is empty/,
      /run goodput watch first/,
    ],
    [
      'another database, to read',
      foreign,
      true,
      'E_USAGE',
      /not a goodput store \(its tables: users\)/,
      /left as it is/,
    ],
    [
      'another database, to write',
      foreign,
      false,
      'E_USAGE',
      /not a goodput store \(its tables: users\)/,
      /left as it is/,
    ],
  ] as const)('%s', (_, path, readonly, code, cause, hint) => {
    const before = snapshot(path);
    const e = opened(path, readonly);
    expect(e).toBeInstanceOf(GoodputError);
    const err = e as GoodputError;
    expect(err.code).toBe(code);
    expect(err.message).toMatch(cause);
    expect(err.hint).toMatch(hint);
    // nothing written: the file is as it was
    expect(snapshot(path)).toEqual(before);
  });

  test('the other database keeps its tables and rows, and no goodput table', () => {
    const check = new Database(foreign, { readonly: true });
    const tables = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    expect(tables).toEqual([{ name: 'users' }]);
    check.close();
  });

  test('an empty file and a new path in an existing folder become stores to write', () => {
    const fresh = join(dir, 'empty-to-write.db');
    writeFileSync(fresh, '');
    expect(opened(fresh, false)).toBe('opened');
    expect(opened(fresh, true)).toBe('opened');
    expect(opened(join(dir, 'new.db'), false)).toBe('opened');
  });
});
