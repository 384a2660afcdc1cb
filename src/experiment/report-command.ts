/**
 * The experiment's analysis on the command line: `goodput experiment DIR` (an experiment
 * folder instead of a plan) prints its metrics matrix again, and `goodput experiment PLAN`
 * prints it when the runs are done; both write it beside experiment.json (analysis.json,
 * analysis.md, analysis.csv) for `report` and for people. `--format` chooses the printout.
 *
 * @module
 */

import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ExitCode, isGoodputError } from '../errors.js';
import {
  analyzeExperiment,
  EXPERIMENT_FILE,
  type ExperimentAnalysis,
  renderExperimentCsv,
  renderExperimentJson,
  renderExperimentMarkdown,
  renderExperimentTable,
} from '../experiment/analysis/index.js';
import { type CommandContext, defineOptions, type FlagValues } from '../flags/index.js';
import { writeOutputFile } from '../results/index.js';

export const ANALYSIS_FORMATS = ['table', 'markdown', 'json', 'csv'] as const;
type AnalysisFormat = (typeof ANALYSIS_FORMATS)[number];

/** The files the analysis writes into the experiment folder. */
export const ANALYSIS_FILES = {
  json: 'analysis.json',
  markdown: 'analysis.md',
  csv: 'analysis.csv',
} as const;

export const ANALYSIS_OPTIONS = defineOptions({
  format: {
    type: 'string',
    group: 'Experiment',
    choices: ANALYSIS_FORMATS,
    default: 'table',
    description:
      'How the metrics matrix is printed: at the end of the experiment, or for an experiment folder given instead of a plan',
  },
});

/** What the report reads of the command's options. */
export type AnalysisFlags = FlagValues<typeof ANALYSIS_OPTIONS>;

/** True when `path` is a folder holding experiment.json (then the command reports it instead of running a plan). */
export async function isExperimentFolder(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isDirectory()) return false;
    return (await stat(join(path, EXPERIMENT_FILE))).isFile();
  } catch {
    return false;
  }
}

function render(a: ExperimentAnalysis, format: AnalysisFormat): string {
  if (format === 'json') return renderExperimentJson(a);
  if (format === 'csv') return renderExperimentCsv(a);
  if (format === 'markdown') return renderExperimentMarkdown(a);
  return renderExperimentTable(a);
}

/** Writes analysis.json / .md / .csv into the folder. */
async function writeAnalysisFiles(dir: string, analysis: ExperimentAnalysis): Promise<void> {
  await writeOutputFile(join(dir, ANALYSIS_FILES.json), renderExperimentJson(analysis), { flag: '--out' });
  await writeOutputFile(join(dir, ANALYSIS_FILES.markdown), renderExperimentMarkdown(analysis), {
    flag: '--out',
  });
  await writeOutputFile(join(dir, ANALYSIS_FILES.csv), renderExperimentCsv(analysis), { flag: '--out' });
}

/**
 * Analyses the folder and writes the analysis files into it; a folder that cannot be written
 * (a copy on a read-only mount) costs the files, with a warning, not the printout.
 */
export async function writeExperimentAnalysis(
  dir: string,
  warn: (text: string) => void = () => undefined,
): Promise<ExperimentAnalysis> {
  const analysis = await analyzeExperiment(dir);
  await writeAnalysisFiles(dir, analysis).catch((e: unknown) => {
    if (!isGoodputError(e)) throw e;
    warn(`warning: the analysis files were not written into ${dir}: ${e.message}\n`);
  });
  return analysis;
}

/** `goodput experiment DIR`: the matrix of an experiment folder, printed in --format. */
export async function reportExperiment(ctx: CommandContext<AnalysisFlags>, dir: string): Promise<ExitCode> {
  const analysis = await writeExperimentAnalysis(dir, (t) => ctx.stderr.write(t));
  ctx.stdout.write(render(analysis, ctx.args.options.format));
  return ExitCode.OK;
}

/**
 * After the runs: the matrix in --format (a table follows the executor's summary; JSON, CSV
 * and Markdown stand alone on stdout). An analysis that fails is a warning: the runs are kept.
 */
export async function printAnalysisAfterRuns(
  ctx: CommandContext<AnalysisFlags>,
  dir: string,
  summary: string,
): Promise<void> {
  const format = ctx.args.options.format;
  try {
    const analysis = await writeExperimentAnalysis(dir, (t) => ctx.stderr.write(t));
    if (format === 'table') ctx.stdout.write(`${summary}\n${renderExperimentTable(analysis)}`);
    else ctx.stdout.write(render(analysis, format));
  } catch (e) {
    if (!isGoodputError(e)) throw e;
    ctx.stdout.write(summary);
    ctx.stderr.write(`warning: the experiment's analysis failed: ${e.message}\nhint: ${e.hint}\n`);
  }
}
