/**
 * Result directories: summary.json, requests.jsonl, server-metrics.jsonl and gpu-metrics.jsonl.
 *
 * The writers load no zod: the readers below load the schemas (summary.ts, sweep-file.ts and
 * zod with them) on their first call, so a run, which imports this module to write its files,
 * never loads them. The zod schemas themselves are not exported here: the package entry and
 * adr's front matter import `schema.ts` (docs/architecture.md).
 *
 * @module
 */

import type { GpuSample, RequestRecord, RunSummary, ServerSample, SweepResult } from '../types.js';
import type { JsonlReadOptions } from './jsonl.js';
import type { RunSource } from './summary.js';

export {
  type JsonlHeader,
  RESULT_FILES,
  type RunPaths,
  type RunRebuildInfo,
  runPaths,
  SWEEP_FILE,
} from './files.js';
export { describeFsError } from './fs-error.js';
export { collect, type JsonlReadOptions, JsonlWriter, type JsonlWriterOptions, readJsonl } from './jsonl.js';
export {
  type OutDirOptions,
  type PreparedOutDir,
  prepareOutDir,
  RUN_FILES,
  RUN_MARKERS,
} from './outdir.js';
export { type OutputFileOptions, outputFileError, writeOutputFile } from './output-file.js';
export {
  type SavedSummary,
  saveSummary,
  type WriteFailure,
  writeFailedError,
  writeSummary,
} from './save.js';
export type { RunSource } from './summary.js';
export { foreignTool, recogniseForeign } from './validate.js';

const readers = () => import('./summary.js');

/**
 * Reads a run's summary from its directory or a summary file, validated against the schema:
 * E_RESULT (exit 2) names the file, the field path and what was found, or what the file
 * looks like when another tool wrote it (summary.ts).
 */
export async function readSummary(dirOrSummary: string): Promise<RunSummary> {
  return (await readers()).readSummary(dirOrSummary);
}

/**
 * A run's summary, another tool's result file untouched, or an imported summary, for the
 * readers that take them (compare, gate, report, import); `FILE#N` names the N-th benchmark
 * of a file holding several (summary.ts).
 */
export async function readRunSource(arg: string): Promise<RunSource> {
  return (await readers()).readRunSource(arg);
}

/** The records of requests.jsonl, each validated (summary.ts). */
export async function* readRecords(
  dirOrSummary: string,
  opts?: JsonlReadOptions,
): AsyncGenerator<RequestRecord> {
  yield* (await readers()).readRecords(dirOrSummary, opts);
}

/** The samples of server-metrics.jsonl, each validated (summary.ts). */
export async function* readServerSamples(
  dirOrSummary: string,
  opts?: JsonlReadOptions,
): AsyncGenerator<ServerSample> {
  yield* (await readers()).readServerSamples(dirOrSummary, opts);
}

/** The DCGM scrapes of gpu-metrics.jsonl, each validated (summary.ts). */
export async function* readGpuSamples(
  dirOrSummary: string,
  opts?: JsonlReadOptions,
): AsyncGenerator<GpuSample> {
  yield* (await readers()).readGpuSamples(dirOrSummary, opts);
}

/** Reads and validates a sweep.json (sweep-file.ts). */
export async function readSweepResult(path: string): Promise<SweepResult> {
  return (await import('./sweep-file.js')).readSweepResult(path);
}
