/**
 * The I/O edge of the analysis: an experiment folder in (experiment.json and each finished
 * run's summary.json and requests.jsonl), the analysis out.
 *
 * @module
 */

import { join, resolve } from 'node:path';
import { loadRun } from '../../compare/index.js';
import { GoodputError, isGoodputError } from '../../errors.js';
import type { ExperimentFile } from '../../types.js';
import { readTextFileBounded } from '../../util/index.js';
import type { AnalysedRun } from './cells.js';
import { buildAnalysis } from './matrix.js';
import type { ExperimentAnalysis } from './types.js';

/** The experiment's own file in its folder. */
export const EXPERIMENT_FILE = 'experiment.json';

const MAX_EXPERIMENT_BYTES = 16 * 1024 * 1024;

/** Reads and checks experiment.json (kind and schemaVersion; the shape is the executor's). */
export async function readExperimentFile(dir: string): Promise<ExperimentFile> {
  const path = join(dir, EXPERIMENT_FILE);
  const read = await readTextFileBounded(path, { maxBytes: MAX_EXPERIMENT_BYTES });
  if (!read.ok) {
    throw new GoodputError(
      'E_USAGE',
      `${dir} is not an experiment folder: ${EXPERIMENT_FILE} could not be read (${read.problem})`,
      'give the folder goodput experiment wrote (it holds experiment.json and runs/)',
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch (e) {
    throw new GoodputError(
      'E_RESULT',
      `${path} is not valid JSON: ${(e as Error).message}`,
      'the file is damaged; rerun the experiment or resume it with --resume',
    );
  }
  const v = value as Partial<ExperimentFile>;
  if (v?.kind !== 'goodput-experiment' || v.schemaVersion !== 1 || !Array.isArray(v.configurations)) {
    throw new GoodputError(
      'E_RESULT',
      `${path} is not a goodput experiment file (kind '${String(v?.kind)}', schemaVersion ${String(v?.schemaVersion)})`,
      'give the folder goodput experiment wrote; a run folder goes to goodput report or compare instead',
    );
  }
  return value as ExperimentFile;
}

export interface AnalyzeOptions {
  /** Bootstrap resamples of the within-run compare (default WITHIN_RUN_RESAMPLES, 300). */
  resamples?: number;
}

/**
 * The experiment's analysis: the metrics matrix, the reading and the winner.
 *
 * @example
 * const analysis = await analyzeExperiment('goodput-results/exp-agent');
 * process.stdout.write(renderExperimentTable(analysis));
 */
export async function analyzeExperiment(
  dir: string,
  options: AnalyzeOptions = {},
): Promise<ExperimentAnalysis> {
  const root = resolve(dir);
  const experiment = await readExperimentFile(root);
  const runs = new Map<string, AnalysedRun[]>();
  const unreadable = new Map<string, string>();
  for (const c of experiment.configurations) {
    const list: AnalysedRun[] = [];
    for (const r of c.runs) {
      if (r.status !== 'ok') continue;
      try {
        const input = await loadRun(join(root, r.dir), `${c.name} run ${r.repeat + 1}`);
        list.push({ repeat: r.repeat, dir: r.dir, summary: input.summary, input });
      } catch (e) {
        if (!isGoodputError(e)) throw e;
        unreadable.set(r.dir, `${r.dir}: ${e.message}`);
      }
    }
    runs.set(
      c.slug,
      list.sort((a, b) => a.repeat - b.repeat),
    );
  }
  return buildAnalysis({ experiment, runs, unreadable, dir, resamples: options.resamples });
}
