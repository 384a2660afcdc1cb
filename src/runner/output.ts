/**
 * A run's output when the disk says no: a file that cannot be written (full disk, file size
 * limit, I/O error) stops the load at once instead of measuring into the void; at the end the
 * summary of what was measured is saved (in the result folder, else under the temporary
 * directory) and the run fails with E_IO (exit 7) naming the file, the cause and where the
 * summary went. Never "this is a bug".
 *
 * @module
 */

import { runCaveats } from '../metrics/index.js';
import { saveSummary, type WriteFailure, writeFailedError } from '../results/index.js';
import type { RunSummary } from '../types.js';

export class RunOutput {
  readonly dir: string;
  /** The caller's signal combined with the stop on a write failure: give it to the load. */
  readonly signal: AbortSignal;
  private readonly failures: WriteFailure[] = [];
  private readonly stop = new AbortController();

  constructor(dir: string, signal?: AbortSignal) {
    this.dir = dir;
    this.signal = signal ? AbortSignal.any([signal, this.stop.signal]) : this.stop.signal;
  }

  /** An `onError` for the writer of `path`: records the failure and stops the load. */
  onWriteError(path: string): (error: Error) => void {
    return (error) => {
      this.failures.push({ path, error });
      if (!this.stop.signal.aborted) this.stop.abort(new Error(`could not write ${path}`));
    };
  }

  /** True once a write has failed. */
  get failed(): boolean {
    return this.failures.length > 0;
  }

  /** Closes a writer; its failure, already reported through onWriteError, is not thrown again. */
  async close(writer: { close(): Promise<void>; readonly failure?: Error | undefined }): Promise<void> {
    await writer.close().catch((e: unknown) => {
      if (!writer.failure) throw e;
    });
  }

  /**
   * Saves summary.json (or rescues it under the temporary directory); throws E_IO when any of
   * the run's files could not be written. Returns the summary's path.
   */
  async finish(summary: RunSummary): Promise<string> {
    const stopped = this.stop.signal.aborted;
    // The runner adds load fields after the accumulator's summary: the caveats read them too.
    summary.caveats = runCaveats(summary);
    const saved = await saveSummary(this.dir, summary);
    if (saved.failure) this.failures.push(saved.failure);
    if (this.failures.length > 0) {
      throw writeFailedError({
        dir: this.dir,
        failures: this.failures,
        summaryPath: saved.path,
        measured: summary.counts.attempted,
        stopped,
      });
    }
    return saved.path;
  }
}
