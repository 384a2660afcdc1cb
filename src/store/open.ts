/**
 * Opening the store file. The user's mistakes — a file that does not exist (to read), a folder,
 * a folder that does not exist or may not be written (to write), a file that is not SQLite, an
 * SQLite database of something else — are usage errors (exit 2) that say which path to give;
 * what the disk does wrong (a damaged file, an I/O error) is E_STORE. A database of something
 * else is never written to.
 *
 * @module
 */

import { accessSync, constants, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GoodputError } from '../errors.js';

/** The file `goodput watch` writes in the folder it runs in, unless --store names another. */
export const DEFAULT_STORE_FILE = 'goodput.db';

const RUN_WATCH_FIRST = `run goodput watch first (it writes ${DEFAULT_STORE_FILE} in the folder it runs in), or pass --store with the file it writes`;

/** Refuses a path that cannot be the store before SQLite sees it (SQLite's own words name no fix). */
export function checkStorePath(path: string, readonly: boolean): void {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isDirectory()) {
    throw new GoodputError(
      'E_USAGE',
      `the store ${path} is a folder, not a file`,
      `name a file, e.g. --store ${join(path, DEFAULT_STORE_FILE)}`,
    );
  }
  if (!stat && readonly) {
    throw new GoodputError(
      'E_USAGE',
      `no watch history at ${path}: the file does not exist`,
      RUN_WATCH_FIRST,
    );
  }
  const dir = dirname(path);
  if (!stat && !statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new GoodputError(
      'E_USAGE',
      `cannot create the store ${path}: the folder ${dir} does not exist`,
      `create it (mkdir -p ${dir}), or pass --store with a file in an existing folder`,
    );
  }
  // To write, SQLite needs the file and its folder (the -wal and -shm files live beside it).
  if (readonly) return;
  for (const p of stat ? [path, dir] : [dir]) {
    if (!writable(p)) {
      throw new GoodputError(
        'E_USAGE',
        `the store ${path} cannot be written: permission denied on ${p === dir ? `the folder ${dir}` : 'the file'}`,
        'pass --store with a file in a folder you can write to (SQLite keeps its journal beside the file)',
      );
    }
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A file that opened as SQLite but holds no goodput schema: refused if it has tables of its own
 * (watch would add its tables to someone else's database) or, to read, if it is empty.
 */
export function checkForeignTables(path: string, tables: string[], readonly: boolean): void {
  if (tables.length > 0) {
    const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? `, … (${tables.length} tables)` : '');
    throw new GoodputError(
      'E_USAGE',
      `${path} is an SQLite database but not a goodput store (its tables: ${shown})`,
      `pass --store with the file goodput watch writes; a new path starts a new history, and ${path} is left as it is`,
    );
  }
  if (readonly)
    throw new GoodputError('E_USAGE', `no watch history at ${path}: the database is empty`, RUN_WATCH_FIRST);
}

/** What SQLite threw while opening or migrating, as a coded error with the fix. */
export function storeOpenError(path: string, e: unknown): GoodputError {
  if (e instanceof GoodputError) return e;
  const code = String((e as { code?: unknown }).code ?? '');
  const message = e instanceof Error ? e.message : String(e);
  if (code === 'SQLITE_NOTADB') {
    return new GoodputError(
      'E_USAGE',
      `${path} is not a goodput store: it is not an SQLite database`,
      `pass --store with the file goodput watch writes (${DEFAULT_STORE_FILE}); a new path starts a new history`,
    );
  }
  if (code.startsWith('SQLITE_CORRUPT')) {
    return new GoodputError(
      'E_STORE',
      `the store ${path} is damaged: ${message}`,
      'keep it aside for the record and pass --store with a new file; watch starts a new history there',
    );
  }
  return new GoodputError(
    'E_STORE',
    `cannot open the store ${path}: ${message}`,
    'check the path and its permissions',
  );
}

/**
 * A write that failed: the disk is full, an I/O error, the file became read-only. E_IO (exit 7,
 * as `run` says when its results cannot be written) naming the store, what was not written, and
 * that the rounds written before are kept (each write is its own transaction).
 */
export function storeWriteError(path: string, what: string, e: unknown): GoodputError {
  if (e instanceof GoodputError) return e;
  const code = String((e as { code?: unknown }).code ?? '');
  const message = e instanceof Error ? e.message : String(e);
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new GoodputError(
      'E_STORE',
      `the store ${path} is damaged (${message}): ${what} was not stored`,
      'keep it aside for the record and pass --store with a new file; watch starts a new history there',
    );
  }
  const full = code === 'SQLITE_FULL' || /ENOSPC|disk is full/i.test(message);
  return new GoodputError(
    'E_IO',
    `the store ${path} could not be written (${code || 'error'}: ${message}): ${what} was not stored; the rounds stored before it are kept`,
    full
      ? "free space on the store's disk (or give --store a path on another disk) and start watch again: it continues the history"
      : "check the store's disk and permissions, then start watch again: it continues the history",
  );
}
