/**
 * Writing a file the user named (report and emit -o, emit --tests, history --report, gate
 * --junit, adr new's file): its folders are made as needed. A folder where the file should be, a
 * file where a folder should be, or a place the user may not write is a usage error that names
 * the flag (exit 2); a full disk or an I/O error is E_IO (exit 7). Never E_INTERNAL.
 *
 * @module
 */

import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { GoodputError } from '../errors.js';
import { describeFsError } from './fs-error.js';

export interface OutputFileOptions {
  /** How the user named the path, for the message: "-o", "--junit", "$GITHUB_STEP_SUMMARY". */
  flag: string;
  /** A file name to suggest inside a folder given by mistake (default: the path's own name). */
  suggest?: string;
  /** Append rather than replace. */
  append?: boolean;
  /** Refuse to replace an existing file (EEXIST is then the caller's to explain). */
  exclusive?: boolean;
}

/** Writes `text` to `path` (see the module comment for the errors). */
export async function writeOutputFile(path: string, text: string, opts: OutputFileOptions): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true }).catch((e: NodeJS.ErrnoException) => {
      // a file stands where a folder of the path should be (mkdir says EEXIST or ENOTDIR)
      throw e.code === 'EEXIST' ? Object.assign(e, { code: 'ENOTDIR' }) : e;
    });
    if (opts.append) await appendFile(path, text);
    else await writeFile(path, text, opts.exclusive ? { flag: 'wx' } : {});
  } catch (e) {
    throw outputFileError(path, e, opts);
  }
}

/** The coded error for a failed write of a user-named file. */
export function outputFileError(path: string, e: unknown, opts: OutputFileOptions): GoodputError {
  if (e instanceof GoodputError) return e;
  const code = (e as NodeJS.ErrnoException)?.code;
  const cause = describeFsError(e);
  switch (code) {
    case 'EISDIR':
      return new GoodputError(
        'E_USAGE',
        `${opts.flag} ${path} is a folder, not a file`,
        `name a file, e.g. ${opts.flag} ${join(path, opts.suggest ?? basename(path))}`,
      );
    case 'ENOTDIR':
    case 'EEXIST':
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new GoodputError(
        'E_USAGE',
        `${opts.flag} ${path} cannot be written: ${code === 'EEXIST' ? 'a file of that name exists' : cause}`,
        code === 'ENOTDIR'
          ? `a file stands where ${opts.flag} needs a folder: name a path in existing folders`
          : `pass ${opts.flag} a path you can write to`,
      );
    default:
      return new GoodputError(
        'E_IO',
        `could not write ${path}: ${cause}`,
        'check the disk (free space, quota, file size limit) and try again',
      );
  }
}
