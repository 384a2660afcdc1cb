/**
 * `goodput experiment PLAN --search STRATEGY`: the hook of the experiment command. The plan's
 * configurations and grid span the space (every combination of the values they name, as
 * engine flags); the search runs it in virtual time on the embedded engine (calibrated with
 * `--search-profile`); then the best `--top` configurations, with the plan's baseline, are
 * measured by the experiment itself (its serve: template on the real server, else repeated
 * virtual runs) and the search's figures are set beside the measured ones.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ExitCode, GoodputError } from '../../errors.js';
import { type CommandContext, defineOptions, type FlagValues } from '../../flags/index.js';
import type { BenchmarkConfig } from '../../runner/index.js';
import { loadProfileFile } from '../../sim/index.js';
import type { ServeParamValue } from '../../types.js';
import { toolVersion } from '../../util/index.js';
import { runExperiment } from '../execute.js';
import { type AnalysisFlags, printAnalysisAfterRuns } from '../report-command.js';
import { EXPERIMENT_FILE } from '../state.js';
import { renderExperimentSummary } from '../summary.js';
import type { ConfigurationSpec, ExperimentSpec } from '../types.js';
import { checkSpace, OBJECTIVES } from './evaluate.js';
import { renderDisagreements, renderSearch } from './render.js';
import { runSearch } from './search.js';
import { pointLabel, spaceFromGrid } from './space.js';
import { STRATEGIES, type StrategyName } from './strategies.js';
import { disagreements } from './verify.js';

const S = 'Search (virtual time)';

export const SEARCH_OPTIONS = defineOptions({
  search: {
    type: 'string',
    group: S,
    choices: [...STRATEGIES],
    description:
      'Explore every combination of the plan’s parameter values on the embedded engine in virtual time, then measure the best (--top) for real: grid, halving (successive halving) or bayes (Gaussian process, expected improvement)',
  },
  objective: {
    type: 'string',
    group: S,
    choices: [...OBJECTIVES],
    default: 'goodput',
    description:
      'What the search maximises: goodput (requests meeting the SLOs per second) or capacity (concurrency within the SLOs)',
  },
  searchEvaluations: {
    type: 'integer',
    group: S,
    valueName: 'N',
    default: 20,
    description: 'bayes: configurations to evaluate',
  },
  searchProfile: {
    type: 'string',
    group: S,
    valueName: 'FILE',
    description:
      'JSON profile of the engine to search on (from goodput sim calibrate) [default: the plan’s profile]',
  },
  top: {
    type: 'integer',
    group: S,
    default: 3,
    valueName: 'K',
    description: 'Configurations to verify after the search',
  },
  searchOnly: {
    type: 'boolean',
    group: S,
    description: 'Stop after the search (search.json), without measuring the best configurations',
  },
});

/** Every value each parameter takes in the plan's configurations, in order of appearance. */
function planGrid(configs: readonly ConfigurationSpec[]): Record<string, ServeParamValue[]> {
  const grid: Record<string, ServeParamValue[]> = {};
  for (const c of configs)
    for (const [k, v] of Object.entries(c.params)) {
      grid[k] ??= [];
      const values = grid[k];
      if (!values.some((x) => String(x) === String(v))) values.push(v);
    }
  return grid;
}

const same = (a: Record<string, ServeParamValue>, b: Record<string, ServeParamValue>) =>
  Object.keys(a).length === Object.keys(b).length &&
  Object.entries(a).every(([k, v]) => String(b[k]) === String(v));

/** What the search reads of the experiment command's options. */
type SearchFlags = FlagValues<typeof SEARCH_OPTIONS> & AnalysisFlags & { force?: boolean; resume?: boolean };

/** The experiment with `--search STRATEGY`: see the module comment. */
export async function runSearchExperiment(
  ctx: CommandContext<SearchFlags>,
  strategy: StrategyName,
  spec: Omit<ExperimentSpec, 'measurement'>,
  measurement: BenchmarkConfig,
  quiet: boolean,
): Promise<ExitCode> {
  const o = ctx.args.options;
  const grid = planGrid(spec.configurations);
  const space = spaceFromGrid(grid);
  if (space.dimensions.length === 0)
    throw new GoodputError(
      'E_CONFIG',
      '--search needs parameters to vary: the plan’s configurations and grid name none',
      'add a grid: of engine flags, e.g. grid: { max-num-batched-tokens: [1024, 2048, 4096] }',
    );
  checkSpace(space);
  if (
    existsSync(join(spec.dir, EXPERIMENT_FILE)) &&
    o.force !== true &&
    o.resume !== true &&
    o.searchOnly !== true
  )
    throw new GoodputError(
      'E_USAGE',
      `${join(spec.dir, EXPERIMENT_FILE)} already holds an experiment`,
      'continue it with --resume, start over with --force, or choose another folder (output: or --out)',
    );
  const embedded = spec.configurations.find((c) => c.target.kind === 'embedded');
  const planProfile = embedded?.target.kind === 'embedded' ? embedded.target.profile : undefined;
  const simMeasurement: BenchmarkConfig = {
    ...measurement,
    sim: { ...measurement.sim, ...(planProfile ? { profile: planProfile } : {}), timeMode: 'virtual' },
  };
  delete simMeasurement.url;
  const profile =
    o.searchProfile !== undefined ? await loadProfileFile(resolve(ctx.cwd, o.searchProfile)) : undefined;
  const dir = join(spec.dir, 'search');
  if (!quiet)
    ctx.stderr.write(
      `search ${strategy}: ${space.size} configurations of ${space.dimensions.map((d) => d.name).join(', ')} in virtual time → ${dir}\n`,
    );
  const found = await runSearch({
    strategy,
    objective: o.objective,
    space,
    measurement: simMeasurement,
    dir,
    ...(profile ? { profile } : {}),
    evaluations: o.searchEvaluations,
    top: o.top,
    seed: measurement.seed,
    signal: ctx.signal,
    onPoint: (p, done) => {
      if (!quiet)
        ctx.stderr.write(
          `  [${done}] ${pointLabel(p.params)} (${p.budget} requests): ${p.error ?? p.objective.toFixed(2)}\n`,
        );
    },
  });
  ctx.stdout.write(renderSearch(found));
  if (o.searchOnly === true || ctx.signal.aborted || found.top.length === 0)
    return ctx.signal.aborted ? ExitCode.INTERRUPTED : ExitCode.OK;

  // Verification: the best configurations (and the plan's baseline) through the experiment.
  const baseline = spec.configurations.find((c) => c.name === spec.baseline) ?? spec.configurations[0]!;
  const chosen = found.top
    .map((p) => spec.configurations.find((c) => same(c.params, p.params)))
    .filter((c): c is ConfigurationSpec => c !== undefined);
  const configurations = [baseline, ...chosen.filter((c) => c !== baseline)];
  const real = configurations.some((c) => c.target.kind === 'serve' || c.target.kind === 'url');
  if (!quiet)
    ctx.stderr.write(
      `verifying ${chosen.map((c) => c.name).join(', ')} against ${baseline.name}${real ? ' on the real server' : ' in repeated virtual runs'}\n`,
    );
  const result = await runExperiment(
    { ...spec, configurations, baseline: baseline.name, measurement },
    {
      stderr: ctx.stderr,
      signal: ctx.signal,
      cwd: ctx.cwd,
      quiet,
      version: toolVersion(),
      resume: o.resume === true,
      force: o.force === true,
    },
  );
  ctx.stdout.write('\n');
  await printAnalysisAfterRuns(ctx, result.dir, renderExperimentSummary(result.state, result.dir));
  ctx.stdout.write(`\n${renderDisagreements(disagreements(found.top, result.state, result.dir), real)}`);
  return ctx.signal.aborted || result.state.status === 'interrupted' ? ExitCode.INTERRUPTED : ExitCode.OK;
}
