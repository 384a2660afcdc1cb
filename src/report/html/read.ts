/**
 * The report's I/O: reads result directories (summary, records streamed one at a time, server
 * samples), sweep directories, and uPlot's files from the installed package. Used only by the
 * report command; everything it returns is handed to the pure preparation and renderers.
 *
 * @module
 */

import { existsSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { GoodputError } from '../../errors.js';
import { readRecords, readServerSamples, readSummary, runPaths } from '../../results/index.js';
import type { RunSummary } from '../../types.js';
import type { ChartAssets, ReportRun, SweepView } from './model.js';
import { RunChartBuilder } from './prepare.js';
import { stepDir, sweepSteps, sweepView } from './sweep.js';

/** Name of the file a sweep leaves in its directory. */
export const SWEEP_FILE = 'sweep.json';

/** uPlot's minified script and stylesheet, read from the installed package. */
export async function loadChartAssets(): Promise<ChartAssets> {
  const require = createRequire(import.meta.url);
  try {
    const [uplotJs, uplotCss] = await Promise.all([
      readFile(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
      readFile(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
    ]);
    return { uplotJs, uplotCss };
  } catch (e) {
    throw new GoodputError(
      'E_INTERNAL',
      `could not read the charting library uPlot: ${(e as Error).message}`,
      'reinstall goodput (npm ci): the uplot package is missing from node_modules',
    );
  }
}

/** A run's display name: its `name` label, else the directory name, else the run id. */
export function runLabel(summary: RunSummary, dir: string): string {
  return summary.meta.labels?.name ?? (basename(resolve(dir)) || summary.meta.runId);
}

/** Reads one result directory into a report run, streaming its records (never held whole). */
export async function readReportRun(dirOrSummary: string, label?: string): Promise<ReportRun> {
  const summary = await readSummary(dirOrSummary);
  const paths = runPaths(dirOrSummary);
  const builder = new RunChartBuilder(summary);
  if (existsSync(paths.requests)) {
    for await (const record of readRecords(dirOrSummary)) builder.addRecord(record);
  }
  if (existsSync(paths.serverMetrics)) {
    for await (const sample of readServerSamples(dirOrSummary)) builder.addServerSample(sample);
  }
  return {
    label: label ?? runLabel(summary, paths.dir),
    summary,
    dir: paths.dir,
    charts: builder.finish(),
    samples: builder.samples(),
  };
}

/** True when the path is a directory holding sweep.json. */
export function isSweepDir(path: string): boolean {
  return existsSync(join(path, SWEEP_FILE)) && statSync(path).isDirectory();
}

/**
 * Reads a sweep directory: the sweep file, and each step's run (from the directories the file
 * names, else the subdirectories that hold a summary.json, in name order).
 */
export async function readSweep(dir: string): Promise<{ view: SweepView; runs: ReportRun[] }> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(join(dir, SWEEP_FILE), 'utf8'));
  } catch (e) {
    throw new GoodputError(
      'E_RESULT',
      `${join(dir, SWEEP_FILE)} is not valid JSON: ${(e as Error).message}`,
      'the file is damaged: run the sweep again',
    );
  }
  const steps = sweepSteps(raw);
  // The file may name a step's directory absolutely, relative to the sweep, or relative to
  // the directory the sweep ran from: the step's own name under the sweep directory wins.
  let stepDirs: Array<string | undefined> = steps.map((s) => {
    const d = stepDir(s);
    if (d === undefined) return undefined;
    const candidates = [join(dir, basename(d)), resolve(dir, d), resolve(d)];
    return candidates.find((c) => existsSync(runPaths(c).summary)) ?? undefined;
  });
  if (stepDirs.every((d) => d === undefined)) {
    const entries = await readdir(dir, { withFileTypes: true });
    const found = entries
      .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'summary.json')))
      .map((e) => join(dir, e.name))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    // Without names in the file, steps and directories pair up only when the counts agree.
    stepDirs = steps.length === 0 || found.length === steps.length ? found : [];
  }
  const runs: ReportRun[] = [];
  const summaries: Array<RunSummary | undefined> = [];
  for (const d of stepDirs) {
    if (d === undefined || !existsSync(runPaths(d).summary)) {
      summaries.push(undefined);
      continue;
    }
    const run = await readReportRun(d);
    runs.push(run);
    summaries.push(run.summary);
  }
  // Runs in load order (bisection points were run last but belong between their neighbours).
  const loadOf = (r: ReportRun) =>
    (r.summary.meta.load.mode === 'open' ? r.summary.meta.load.rate : r.summary.meta.load.concurrency) ?? 0;
  return {
    view: sweepView(steps.length > 0 ? raw : runs.map((r) => ({ summary: r.summary })), summaries),
    runs: runs.slice().sort((a, b) => loadOf(a) - loadOf(b)),
  };
}
