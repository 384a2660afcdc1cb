/**
 * The thin I/O edge of compare: a result directory (or its summary.json) in, a RunInput out.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { GoodputError } from '../errors.js';
import { classView, importedName, importResult, pickBenchmark } from '../metrics/index.js';
import {
  collect,
  type RunSource,
  readRecords,
  readRunSource,
  readSummary,
  runPaths,
} from '../results/index.js';
import type { ImportedSummary } from '../types.js';
import type { CompareInput, RunInput } from './compare.js';
import { samplesFromRecords } from './samples.js';

/**
 * Reads a run's summary and, when requests.jsonl is there, its per-request samples; with
 * `cls`, the run as that traffic class (its figures and its requests only). Throws E_RESULT
 * (from the results module) when the path holds no run, E_USAGE when it has no such class.
 */
export async function loadRun(dirOrSummary: string, name?: string, cls?: string): Promise<RunInput> {
  const paths = runPaths(dirOrSummary);
  const whole = await readSummary(dirOrSummary);
  const summary = cls === undefined ? whole : classView(whole, cls);
  if (!summary) {
    const names = (whole.classes ?? []).map((c) => c.name);
    throw new GoodputError(
      'E_USAGE',
      `${paths.dir} has no traffic class '${cls}' (${names.length > 0 ? `its classes: ${names.join(', ')}` : 'it ran without --class'})`,
      names.length > 0
        ? `pass --class ${names[0]}, or compare the whole runs without --class`
        : 'drop --class',
    );
  }
  const run: RunInput = { name: name ?? basename(paths.dir), path: paths.dir, summary };
  if (existsSync(paths.requests)) {
    const records = await collect(readRecords(dirOrSummary));
    run.samples = samplesFromRecords(cls === undefined ? records : records.filter((r) => r.class === cls));
  }
  return run;
}

/** A source that is not a goodput run: another tool's file, or a directory `goodput import` wrote. */
export type ImportedSource = Exclude<RunSource, { kind: 'goodput' }>;

/** Every benchmark of another tool's file (a guidellm sweep holds several), or the imported summary. */
export function importedRuns(source: ImportedSource): ImportedSummary[] {
  if (source.kind === 'imported') return [source.summary];
  const file = { path: source.path, sha256: source.sha256 };
  return importResult(
    source.tool,
    source.value,
    source.records ? { ...file, records: source.records } : file,
  );
}

/** What a report draws of a source: the benchmark `FILE#N` selects, else every one (a whole sweep). */
export function pickedRuns(source: ImportedSource): ImportedSummary[] {
  if (source.kind === 'foreign' && source.benchmark !== undefined) return [importedRun(source)];
  return importedRuns(source);
}

/** The one benchmark a command reads: the only one, or the one `FILE#N` selects (else refused, listing them). */
export function importedRun(source: ImportedSource): ImportedSummary {
  if (source.kind === 'imported') return source.summary;
  return pickBenchmark(importedRuns(source), source.benchmark, source.path);
}

/** How an imported result is named in tables: its file name (`#N` for a sweep's benchmark), or its directory's. */
export function importedRunName(source: ImportedSource, imported: ImportedSummary): string {
  // An imported directory holds one benchmark already: its name is the directory's.
  if (source.kind === 'imported') return basename(runPaths(source.path).dir);
  return importedName(imported, basename(source.path));
}

/**
 * Reads a run as {@link loadRun} does, or another tool's result (vLLM, guidellm, AIPerf,
 * GenAI-Perf; `FILE#N` for one benchmark of a sweep) or an imported directory as its figures,
 * for compare.
 */
export async function loadCompareInput(
  dirOrFile: string,
  name?: string,
  cls?: string,
): Promise<CompareInput> {
  const source = await readRunSource(dirOrFile);
  if (source.kind !== 'goodput') {
    if (cls !== undefined)
      throw new GoodputError(
        'E_USAGE',
        `${source.path} is not a goodput run: it has no traffic classes`,
        'compare goodput runs made with --class, or drop --class',
      );
    const imported = importedRun(source);
    return { name: name ?? importedRunName(source, imported), path: source.path, imported };
  }
  return loadRun(dirOrFile, name, cls);
}

/** Loads several runs, naming each by its directory (made unique with a suffix when two share a name). */
export async function loadRuns(paths: string[]): Promise<RunInput[]> {
  return uniqueNames(await Promise.all(paths.map((p) => loadRun(p))));
}

/** Loads several runs for compare: goodput runs and vLLM results, named uniquely (with `cls`, each run as that traffic class). */
export async function loadCompareInputs(paths: string[], cls?: string): Promise<CompareInput[]> {
  return uniqueNames(await Promise.all(paths.map((p) => loadCompareInput(p, undefined, cls))));
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
