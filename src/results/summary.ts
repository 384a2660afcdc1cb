/**
 * Reading and writing RunSummary files, and reading a run's records and server samples.
 *
 * @module
 */

import { open, readFile, rename, rm } from 'node:fs/promises';
import { GoodputError } from '../errors.js';
import { type RequestRecord, type RunSummary, SCHEMA_VERSION, type ServerSample } from '../types.js';
import { runPaths } from './files.js';
import { readJsonl } from './jsonl.js';

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

/** Reads a run's summary from its directory or its summary.json, with a clear error when it is not one. */
export async function readSummary(dirOrSummary: string): Promise<RunSummary> {
  const path = runPaths(dirOrSummary).summary;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new GoodputError(
      'E_RESULT',
      `no run summary at ${path}`,
      'pass a result directory written by goodput run --out DIR, or its summary.json',
    );
  }
  let value: Partial<RunSummary>;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new GoodputError(
      'E_RESULT',
      `${path} is not valid JSON: ${(e as Error).message}`,
      'the file is damaged: run the benchmark again',
    );
  }
  if (value.kind !== 'goodput.run' || typeof value.schemaVersion !== 'number') {
    throw new GoodputError(
      'E_RESULT',
      `${path} is not a goodput run summary`,
      'pass a result directory written by goodput run --out DIR',
    );
  }
  if (value.schemaVersion > SCHEMA_VERSION) {
    throw new GoodputError(
      'E_RESULT',
      `${path} has schemaVersion ${value.schemaVersion}, newer than this goodput understands (${SCHEMA_VERSION})`,
      'upgrade goodput',
    );
  }
  return value as RunSummary;
}

export function readRecords(dirOrSummary: string): AsyncGenerator<RequestRecord> {
  return readJsonl<RequestRecord>(runPaths(dirOrSummary).requests, 'goodput.requests');
}

export function readServerSamples(dirOrSummary: string): AsyncGenerator<ServerSample> {
  return readJsonl<ServerSample>(runPaths(dirOrSummary).serverMetrics, 'goodput.server-metrics');
}

/** Collects an async iterable into an array (for the small runs that compare and report read whole). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
