/**
 * The thin I/O edge of compare: a result directory (or its summary.json) in, a RunInput out.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { collect, readRecords, readRunSource, readSummary, runPaths } from '../results/index.js';
import type { CompareInput, RunInput } from './compare.js';
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

/**
 * Reads a run as {@link loadRun} does, or a vLLM `--save-result` JSON as its figures (named by
 * its file name), for compare.
 */
export async function loadCompareInput(dirOrFile: string, name?: string): Promise<CompareInput> {
  const source = await readRunSource(dirOrFile);
  if (source.kind === 'vllm')
    return { name: name ?? basename(source.path), path: source.path, vllm: source.result };
  return loadRun(dirOrFile, name);
}

/** Loads several runs, naming each by its directory (made unique with a suffix when two share a name). */
export async function loadRuns(paths: string[]): Promise<RunInput[]> {
  return uniqueNames(await Promise.all(paths.map((p) => loadRun(p))));
}

/** Loads several runs for compare: goodput runs and vLLM results, named uniquely. */
export async function loadCompareInputs(paths: string[]): Promise<CompareInput[]> {
  return uniqueNames(await Promise.all(paths.map((p) => loadCompareInput(p))));
}

function uniqueNames<T extends { name: string }>(runs: T[]): T[] {
  const seen = new Map<string, number>();
  for (const run of runs) {
    const count = (seen.get(run.name) ?? 0) + 1;
    seen.set(run.name, count);
    if (count > 1) run.name = `${run.name}#${count}`;
  }
  return runs;
}
