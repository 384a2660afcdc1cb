/**
 * What a caller hands `runBenchmark` besides the config (streams, signal, folder), and what it
 * gets back: the types every part of a run reads, kept apart so that no file of the runner
 * imports `benchmark.ts` back.
 *
 * @module
 */

import type { RequestRecord, RunSummary } from '../types.js';
import type { ProgressMode, ProgressStream } from './progress.js';

export interface BenchmarkIo {
  /** Notes (result directory, embedded engine) and the progress bar (when a TTY). */
  stderr?: ProgressStream;
  /** Aborting it stops the load, interrupts in-flight requests and still writes the results. */
  signal?: AbortSignal;
  /** Base of the default result directory. */
  cwd: string;
  /** No notes, no progress. */
  quiet?: boolean;
  /** Progress form (default: a bar on a terminal, a line every 10 s elsewhere). */
  progress?: ProgressMode;
  /** How often the lines form prints (default `LINE_EVERY_MS`, 10 s); the bar redraws at its own pace. */
  progressEveryMs?: number;
  /** Tool version recorded in the summary. */
  version?: string;
  /** The command line that ran this (`goodput run …`): recorded in the summary with its secrets redacted. */
  command?: readonly string[];
  /** Called with every record (warmup included) as it completes. */
  onRecord?: (record: RequestRecord) => void;
}

export interface BenchmarkResult {
  summary: RunSummary;
  /** The result directory (summary.json, requests.jsonl, server-metrics.jsonl). */
  dir: string;
}

/** Says `text` on stderr unless quiet. */
export function noter(io: Pick<BenchmarkIo, 'quiet' | 'stderr'>): (text: string) => void {
  return (text) => {
    if (!io.quiet) io.stderr?.write(`${text}\n`);
  };
}
