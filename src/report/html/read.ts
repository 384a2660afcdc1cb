/**
 * The report's I/O: reads result directories (summary, records streamed one at a time, server
 * samples), sweep directories, and uPlot's files from the installed package. Used only by the
 * report command; everything it returns is handed to the pure preparation and renderers.
 *
 * @module
 */

import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { GoodputError } from '../../errors.js';
import {
  readGpuSamples,
  readRecords,
  readServerSamples,
  readSummary,
  readSweepResult,
  runPaths,
  SWEEP_FILE,
} from '../../results/index.js';
import type { RunSummary, SweepPointSummary } from '../../types.js';
import type { ChartAssets, ReportRun, SweepView } from './model.js';
import { RunChartBuilder } from './prepare.js';
import { sweepView } from './sweep.js';

export { SWEEP_FILE };

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
  if (existsSync(paths.gpuMetrics)) {
    for await (const sample of readGpuSamples(dirOrSummary)) builder.addGpuSample(sample);
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
 * Reads a sweep directory: sweep.json (validated: a damaged or foreign file is refused naming
 * the field) and each point's run from the directory the file names (absolute, relative to the
 * sweep, or relative to where the sweep ran: the point's own name under the sweep directory wins).
 */
export async function readSweep(dir: string): Promise<{ view: SweepView; runs: ReportRun[] }> {
  const sweep = await readSweepResult(join(dir, SWEEP_FILE));
  const byPoint = new Map<SweepPointSummary, ReportRun>();
  for (const point of sweep.points) {
    const candidates = [join(dir, basename(point.dir)), resolve(dir, point.dir), resolve(point.dir)];
    const found = candidates.find((c) => existsSync(runPaths(c).summary));
    if (found !== undefined) byPoint.set(point, await readReportRun(found));
  }
  const runs = sweep.points
    .slice()
    .sort((a, b) => a.load - b.load)
    .flatMap((p) => {
      const run = byPoint.get(p);
      return run ? [run] : [];
    });
  return { view: sweepView(sweep, (p) => byPoint.get(p)?.summary), runs };
}
