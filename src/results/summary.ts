/**
 * Reading and writing RunSummary files, and reading a run's records and server samples.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { GoodputError } from '../errors.js';
import { type RequestRecord, type RunSummary, SCHEMA_VERSION, type ServerSample } from '../types.js';
import { runPaths } from './files.js';
import { type JsonlReadOptions, readJsonl } from './jsonl.js';
import { RequestRecordSchema, RunSummarySchema, ServerSampleSchema } from './schema.js';
import { isVllmResult, parseJsonFile, validateValue } from './validate.js';

/**
 * Writes a summary atomically: to a temporary file beside it, fsync'd, then renamed over the
 * target, so a reader (or a crash) never meets a half-written or empty summary.json.
 */
export async function writeSummary(path: string, summary: RunSummary): Promise<void> {
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

/**
 * Reads a run's summary from its directory or a summary file, validated against the schema:
 * E_RESULT (exit 2) names the file, the field path and what was found, or what the file
 * looks like when another tool wrote it.
 */
export async function readSummary(dirOrSummary: string): Promise<RunSummary> {
  const source = await readRunSource(dirOrSummary);
  if (source.kind === 'goodput') return source.summary;
  // Throws E_RESULT naming the file as a vLLM result: a reader that takes only goodput runs.
  return validateValue(RunSummarySchema, source.result, source.path, 'a goodput run summary');
}

/** A result file read back: a goodput run summary, or a vLLM `--save-result` JSON as its flat object. */
export type RunSource =
  | { kind: 'goodput'; path: string; summary: RunSummary }
  | { kind: 'vllm'; path: string; result: Readonly<Record<string, unknown>> };

/**
 * Reads a run's summary (as {@link readSummary}), or, when the file is a vLLM `bench serve
 * --save-result` JSON, that file's object untouched, for readers that take vLLM results.
 */
export async function readRunSource(dirOrSummary: string): Promise<RunSource> {
  const paths = runPaths(dirOrSummary);
  const path = paths.summary;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    if (existsSync(paths.requests)) {
      throw new GoodputError(
        'E_RESULT',
        `no run summary at ${path}, but the run's records are there (a run killed before it could write its summary)`,
        `rebuild the summary from the records: goodput summarize ${paths.dir}`,
      );
    }
    throw new GoodputError(
      'E_RESULT',
      `no run summary at ${path}`,
      'pass a result directory written by goodput run --out DIR, or its summary.json',
    );
  }
  const value = parseJsonFile(text, path, 'run the benchmark again');
  const version = (value as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (
    (value as { kind?: unknown } | null)?.kind === 'goodput.run' &&
    typeof version === 'number' &&
    version > SCHEMA_VERSION
  ) {
    throw new GoodputError(
      'E_RESULT',
      `${path} has schemaVersion ${version}, newer than this goodput understands (${SCHEMA_VERSION})`,
      'upgrade goodput',
    );
  }
  if (isVllmResult(value)) return { kind: 'vllm', path, result: value };
  return {
    kind: 'goodput',
    path,
    summary: validateValue(RunSummarySchema, value, path, 'a goodput run summary'),
  };
}

export function readRecords(dirOrSummary: string, opts?: JsonlReadOptions): AsyncGenerator<RequestRecord> {
  return readJsonl(runPaths(dirOrSummary).requests, 'goodput.requests', RequestRecordSchema, opts);
}

export function readServerSamples(
  dirOrSummary: string,
  opts?: JsonlReadOptions,
): AsyncGenerator<ServerSample> {
  return readJsonl(runPaths(dirOrSummary).serverMetrics, 'goodput.server-metrics', ServerSampleSchema, opts);
}

/** Collects an async iterable into an array (for the small runs that compare and report read whole). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
