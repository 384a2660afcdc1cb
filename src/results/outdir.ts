/**
 * Output folders checked before any load is sent: a folder that cannot be written (a file in
 * its place, no permission, a read-only or full disk) is a usage error up front, not a run
 * whose results are lost at the end; an earlier run's folder is refused unless `--force`,
 * which then removes that run's files so they never sit beside the new records.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { GoodputError } from '../errors.js';
import { RESULT_FILES, SWEEP_FILE } from './files.js';
import { describeFsError } from './fs-error.js';

/** Files whose presence marks a folder as holding an earlier run (or sweep). */
export const RUN_MARKERS: readonly string[] = [RESULT_FILES.summary, RESULT_FILES.requests, SWEEP_FILE];

/** Files of an earlier run that `--force` removes (anything else in the folder is left alone). */
export const RUN_FILES: readonly string[] = [
  RESULT_FILES.summary,
  RESULT_FILES.requests,
  RESULT_FILES.serverMetrics,
  RESULT_FILES.gpuMetrics,
  SWEEP_FILE,
];

/** Bytes written and fsync'd by the probe: enough to meet a full disk, small enough to be free. */
const PROBE_BYTES = 4096;

export interface OutDirOptions {
  /** Replace an earlier run in the folder (its result files are removed first). */
  force?: boolean;
  /** The flag that named the folder, for messages (default `--out`). */
  flag?: string;
  /**
   * The folder holds one run per subfolder (sweep points, doctor stages): a subfolder holding
   * a run also marks an earlier run, and `force` removes such subfolders whole.
   */
  nested?: boolean;
}

export interface PreparedOutDir {
  dir: string;
  /** The earlier run's files that `force` removed (empty when there were none). */
  removed: string[];
}

function unwritable(flag: string, dir: string, e: unknown): GoodputError {
  return new GoodputError(
    'E_USAGE',
    `${flag} ${dir} cannot be written: ${describeFsError(e)}; nothing was sent`,
    `pass ${flag} a folder you can write to (free space, permissions), e.g. ${flag} ./goodput-results/run1`,
    { cause: e },
  );
}

/** The earlier run's files present in dir (and, when nested, its subfolders holding a run, as `name/`). */
async function earlierRun(dir: string, nested: boolean): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = new Set(entries.map((e) => e.name));
  const found = RUN_FILES.filter((f) => names.has(f));
  if (nested) {
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const inner = new Set(await readdir(join(dir, e.name)).catch(() => []));
      if (RUN_MARKERS.some((m) => inner.has(m))) found.push(`${e.name}/`);
    }
  }
  return found;
}

const isMarker = (f: string) => f.endsWith('/') || RUN_MARKERS.includes(f);

/**
 * Makes `dir` ready to receive a run: creates it, refuses an earlier run's folder unless
 * `force` (and then removes that run's files), and writes, fsyncs and removes a probe file,
 * so that every way the folder cannot be written is found before the first request.
 * Throws E_USAGE (exit 2) naming the folder, the cause and the fix.
 */
export async function prepareOutDir(dir: string, opts: OutDirOptions = {}): Promise<PreparedOutDir> {
  const flag = opts.flag ?? '--out';
  const existing = await lstat(dir).catch(() => undefined);
  if (existing && !(existing.isDirectory() || (existing.isSymbolicLink() && (await isDir(dir))))) {
    throw new GoodputError(
      'E_USAGE',
      `${flag} ${dir} is a file, not a folder; nothing was sent`,
      `pass ${flag} a folder (it is created when missing), e.g. ${flag} ${dir}.d`,
    );
  }
  let removed: string[] = [];
  if (existing) {
    const found = await earlierRun(dir, opts.nested === true).catch((e) => {
      throw unwritable(flag, dir, e);
    });
    if (found.some(isMarker)) {
      if (!opts.force) {
        throw new GoodputError(
          'E_USAGE',
          `${flag} ${dir} holds an earlier run (${found.join(', ')}); it was not touched and nothing was sent`,
          `pass a new folder to ${flag}, or add --force to replace that run (its ${found.join(', ')} are removed first)`,
        );
      }
      for (const f of found) {
        await rm(join(dir, f), { force: true, recursive: f.endsWith('/') }).catch((e) => {
          throw unwritable(flag, dir, e);
        });
      }
      removed = found;
    }
  }
  try {
    await mkdir(dir, { recursive: true });
    await probe(dir);
  } catch (e) {
    throw unwritable(flag, dir, e);
  }
  return { dir, removed };
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** Creates, writes, fsyncs, closes and removes one file in dir; throws the first error met. */
async function probe(dir: string): Promise<void> {
  const path = join(dir, `.goodput-probe-${process.pid}-${randomBytes(3).toString('hex')}`);
  const handle = await open(path, 'wx');
  try {
    await handle.write(Buffer.alloc(PROBE_BYTES, 0x20));
    await handle.sync();
  } finally {
    await handle.close().catch(() => undefined);
    await rm(path, { force: true }).catch(() => undefined);
  }
}
