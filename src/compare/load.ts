/**
 * The thin I/O edge of compare: a result directory (or its summary.json) in, a RunInput out.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { collect, readRecords, readSummary, runPaths } from '../results/index.js';
import type { RunInput } from './compare.js';
import { samplesFromRecords } from './samples.js';

/**
 * Reads a run's summary and, when requests.jsonl is there, its per-request samples.
 * Throws E_RESULT (from the results module) when the path holds no run.
 */
export async function loadRun(dirOrSummary: string, name?: string): Promise<RunInput> {
  const paths = runPaths(dirOrSummary);
  const summary = await readSummary(dirOrSummary);
  const run: RunInput = { name: name ?? basename(paths.dir), path: paths.dir, summary };
  if (existsSync(paths.requests)) run.samples = samplesFromRecords(await collect(readRecords(dirOrSummary)));
  return run;
}

/** Loads several runs, naming each by its directory (made unique with a suffix when two share a name). */
export async function loadRuns(paths: string[]): Promise<RunInput[]> {
  const runs = await Promise.all(paths.map((p) => loadRun(p)));
  const seen = new Map<string, number>();
  for (const run of runs) {
    const count = (seen.get(run.name) ?? 0) + 1;
    seen.set(run.name, count);
    if (count > 1) run.name = `${run.name}#${count}`;
  }
  return runs;
}
