/**
 * Writing a run's summary atomically, and saving it when its folder may have failed: the
 * summary goes to the result folder, or, when that cannot be written, to a new folder under
 * the system's temporary directory; the error that follows says what failed and where the
 * measurement went.
 *
 * @module
 */

import { mkdtemp, open, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExitCode, GoodputError } from '../errors.js';
import type { ImportedSummary, RunSummary } from '../types.js';
import { outOfFilesCode } from '../util/index.js';
import { RESULT_FILES } from './files.js';
import { describeFsError } from './fs-error.js';

/**
 * Writes a summary atomically: to a temporary file beside it, fsync'd, then renamed over the
 * target, so a reader (or a crash) never meets a half-written or empty summary.json.
 */
export async function writeSummary(path: string, summary: RunSummary | ImportedSummary): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(`${JSON.stringify(summary, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/** A file of the run that could not be written, and why. */
export interface WriteFailure {
  path: string;
  error: unknown;
}

export interface SavedSummary {
  /** Where summary.json was written: in the result folder, or the rescue folder. */
  path: string;
  /** Set when the result folder refused the summary and it went to the rescue folder. */
  failure?: WriteFailure;
}

/**
 * Writes DIR/summary.json; when that fails, writes it to `$TMPDIR/goodput-rescued-<runId>-…/`
 * instead. Throws E_IO only when neither can be written.
 */
export async function saveSummary(dir: string, summary: RunSummary): Promise<SavedSummary> {
  const path = join(dir, RESULT_FILES.summary);
  try {
    await writeSummary(path, summary);
    return { path };
  } catch (error) {
    const failure = { path, error };
    try {
      const rescue = await mkdtemp(join(tmpdir(), `goodput-rescued-${summary.meta.runId}-`));
      const rescued = join(rescue, RESULT_FILES.summary);
      await writeSummary(rescued, summary);
      return { path: rescued, failure };
    } catch (again) {
      throw new GoodputError(
        'E_IO',
        `could not write ${path} (${describeFsError(error)}) nor a copy under ${tmpdir()} (${describeFsError(again)}); the summary is lost`,
        `free space or fix the permissions of ${dir}, then rebuild the summary from the records: goodput summarize ${dir}`,
        { cause: error },
      );
    }
  }
}

/**
 * The error of a run whose results could not all be written: each failed file and its cause,
 * whether the load was stopped early, and where the summary of what was measured is.
 */
export function writeFailedError(opts: {
  dir: string;
  failures: readonly WriteFailure[];
  /** Where the summary was saved. */
  summaryPath: string;
  /** Measured requests in that summary. */
  measured: number;
  /** The load was stopped because of the failure. */
  stopped: boolean;
}): GoodputError {
  const what = opts.failures.map((f) => `${f.path} (${describeFsError(f.error)})`).join(', ');
  const stopped = opts.stopped ? '; the load was stopped there' : '';
  // Out of file descriptors (the connections took them all): no folder is at fault, the limit is.
  const outOfFiles = opts.failures.some((f) => outOfFilesCode(f.error) !== undefined);
  const fix = outOfFiles
    ? 'raise the open-file limit in the shell that starts goodput (ulimit -n) or lower the load (every connection takes a file descriptor)'
    : `free space or fix the permissions of ${opts.dir}`;
  return new GoodputError(
    outOfFiles ? 'E_FD_LIMIT' : 'E_IO',
    `could not write ${what}${stopped}. What was measured (${opts.measured} requests) is summarised in ${opts.summaryPath}`,
    `${fix} and run again; the records written before the failure are in ${join(opts.dir, RESULT_FILES.requests)}`,
    { cause: opts.failures[0]?.error, exitCode: ExitCode.WRITE_FAILED },
  );
}
