/**
 * Result directories: the files a run leaves behind and every later command reads.
 *
 * ```
 * DIR/summary.json          RunSummary (schemaVersion, kind "goodput.run")
 * DIR/requests.jsonl        header line, then one RequestRecord per line, streamed as the run goes
 * DIR/server-metrics.jsonl  header line, then one ServerSample per line (when scraped)
 * ```
 *
 * @module
 */

import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const RESULT_FILES = {
  summary: 'summary.json',
  requests: 'requests.jsonl',
  serverMetrics: 'server-metrics.jsonl',
} as const;

/** First line of every JSONL file we write. */
export interface JsonlHeader {
  schemaVersion: number;
  kind: 'goodput.requests' | 'goodput.server-metrics';
  runId: string;
  startedAt: string;
}

/** A run given as a directory or as its summary.json: the directory and the paths of its files. */
export interface RunPaths {
  dir: string;
  summary: string;
  requests: string;
  serverMetrics: string;
}

export function runPaths(dirOrSummary: string): RunPaths {
  const dir =
    existsSync(dirOrSummary) && statSync(dirOrSummary).isFile() ? join(dirOrSummary, '..') : dirOrSummary;
  return {
    dir,
    summary: join(dir, RESULT_FILES.summary),
    requests: join(dir, RESULT_FILES.requests),
    serverMetrics: join(dir, RESULT_FILES.serverMetrics),
  };
}
