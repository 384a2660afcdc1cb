/**
 * `goodput experiment PLAN`: the plan's configurations, each measured `runs` times with the
 * same workload, interleaved, into an experiment folder. Thin: plan + flags → ExperimentSpec
 * (the `run:` flags resolved as `goodput run` resolves its own) → runExperiment → where things
 * are and a per-configuration summary.
 *
 * @module
 */

import { dirname, resolve as resolvePath } from 'node:path';
import { ExitCode, GoodputError } from '../errors.js';
import {
  BENCHMARK_OPTIONS,
  defineCommand,
  defineOptions,
  type FlagValues,
  omitOptions,
  omitOptionsOf,
  type ParsedArgs,
  parseArgv,
  resolveBenchmarkConfig,
} from '../flags/index.js';
import { readTextFileBounded, toolVersion } from '../util/index.js';
import { applyClassParams } from './class-params.js';
import { runExperiment } from './execute.js';
import { type PlanOverrides, parsePlanText, planExperiment } from './plan.js';
import {
  ANALYSIS_OPTIONS,
  isExperimentFolder,
  printAnalysisAfterRuns,
  reportExperiment,
} from './report-command.js';
import { runSearchExperiment, SEARCH_OPTIONS } from './search/search-command.js';
import { renderExperimentSummary } from './summary.js';

const X = 'Experiment';

/** The experiment's own flags (the run flags of BENCHMARK_OPTIONS follow them). */
const EXPERIMENT_OPTIONS = defineOptions({
  runs: {
    type: 'integer',
    group: X,
    valueName: 'N',
    description: 'Runs per configuration [default: the plan’s runs:, else 3]',
  },
  order: {
    type: 'string',
    group: X,
    choices: ['interleaved', 'random-blocks'],
    description: 'Run order: ABC ABC … or each block shuffled with --order-seed [default: interleaved]',
  },
  orderSeed: {
    type: 'integer',
    group: X,
    description: 'Seed of random-blocks (recorded in experiment.json) [default: random]',
  },
  cooldown: { type: 'duration', group: X, description: 'Pause between runs [default: 0]' },
  restart: {
    type: 'string',
    group: X,
    choices: ['per-config', 'per-run'],
    description:
      'Serve configurations: start the server once per visit (consecutive runs of a configuration share it), or for every run [default: per-config]',
  },
  time: {
    type: 'string',
    group: X,
    choices: ['live', 'virtual'],
    description:
      'Embedded-engine configurations: virtual time (seconds) or live [default: virtual when every configuration is embedded]',
  },
  baseline: {
    type: 'string',
    group: X,
    description: 'Name of the baseline configuration [default: the first]',
  },
  cacheReset: {
    type: 'string',
    group: X,
    choices: ['auto', 'vllm', 'sglang', 'llama.cpp', 'none'],
    description: 'Cache reset between runs of a server [default: auto, from the engine it reports]',
  },
  grid: {
    type: 'string',
    repeatable: true,
    group: X,
    valueName: 'PARAM=V1,V2',
    description: 'A grid dimension (adds to the plan’s grid:), e.g. --grid max-num-batched-tokens=1024,2048',
  },
  serve: {
    type: 'string',
    group: X,
    valueName: 'COMMAND',
    description: 'Serve command template with {param} and {port} (replaces the plan’s serve:)',
  },
  out: {
    short: 'o',
    type: 'string',
    group: X,
    valueName: 'DIR',
    description: 'Experiment folder [default: the plan’s output:, else goodput-experiments/<name>]',
  },
  resume: {
    type: 'boolean',
    group: X,
    description:
      'Continue the interrupted experiment in the folder (same plan): finished runs kept, the rest run',
  },
  force: {
    type: 'boolean',
    group: X,
    description: 'Start over in a folder that holds an earlier experiment (its runs and logs are removed)',
  },
  quiet: { short: 'q', type: 'boolean', group: X, description: 'No progress on stderr' },
  json: { type: 'boolean', group: X, description: 'Print experiment.json on stdout' },
});

/** Run flags the plan cannot take: the experiment decides them. */
const NOT_IN_RUN: Record<string, string> = {
  url: 'each configuration gives its target (url: or serve:)',
  out: 'the experiment puts each run in runs/<configuration>/run-<k>/ (choose the folder with output: or --out)',
  force: 'use the experiment’s --force',
  time: 'use the plan’s time:',
  shard: 'an experiment runs whole runs',
  startAt: 'an experiment schedules its own runs',
  json: 'use the experiment’s --json',
  quiet: 'use the experiment’s --quiet',
  progress: 'the experiment prints one line per run',
  progressEvery: 'the experiment prints one line per run',
};

/** The run flags the command line takes: the benchmark's, but the experiment's own, the URL and the progress. */
const RUN_OPTIONS = omitOptions(
  omitOptionsOf(BENCHMARK_OPTIONS, { ...EXPERIMENT_OPTIONS, ...SEARCH_OPTIONS }),
  ['url', 'progress', 'progressEvery'],
);
const runSpec = defineCommand({
  name: 'experiment (plan run:)',
  summary: '',
  options: BENCHMARK_OPTIONS,
  run: async () => ExitCode.OK,
});

/** The run flags the command line may give, parsed. */
type RunFlags = Partial<FlagValues<typeof RUN_OPTIONS>>;

/** Parsed keys (camelCase) of the run flags the command line takes. */
const RUN_KEYS = Object.keys(RUN_OPTIONS) as Array<keyof RunFlags>;

/**
 * The run flags given on the command line, by key in sorted order: the one read of the
 * command's options by a key known only at run time (which run flags were given).
 */
function givenRunFlags(args: ParsedArgs<RunFlags>): RunFlags {
  const keys = RUN_KEYS.filter((key) => args.given.has(key)).sort();
  return Object.fromEntries(keys.map((key) => [key, args.options[key]]));
}

/** The plan's run flags with the command line's run flags over them. */
function mergedRunArgs(
  planArgv: string[],
  cli: ParsedArgs<RunFlags>,
): ParsedArgs<FlagValues<typeof BENCHMARK_OPTIONS>> {
  const plan = parseArgv(runSpec, planArgv);
  for (const key of plan.given) {
    const why = NOT_IN_RUN[key];
    if (why)
      throw new GoodputError(
        'E_CONFIG',
        `run: --${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} cannot be part of an experiment's run flags`,
        why,
      );
  }
  // A run flag has the same entry in both tables, so the command line's value has the plan's type.
  const overrides = givenRunFlags(cli);
  const options = { ...plan.options, ...overrides };
  return { options, positionals: [], given: new Set([...plan.given, ...Object.keys(overrides)]) };
}

function overridesFrom(
  args: ParsedArgs<FlagValues<typeof EXPERIMENT_OPTIONS> & RunFlags>,
  cwd: string,
): PlanOverrides {
  const o = args.options;
  const out: PlanOverrides = {};
  const runFlags = givenRunFlags(args);
  if (Object.keys(runFlags).length > 0) out.runFlags = runFlags;
  if (typeof o.runs === 'number') out.runs = o.runs;
  if (o.order !== undefined) out.order = o.order;
  if (typeof o.orderSeed === 'number') out.seed = o.orderSeed;
  if (typeof o.cooldown === 'number') out.cooldownMs = o.cooldown;
  if (o.restart !== undefined) out.restart = o.restart;
  if (o.time !== undefined) out.time = o.time;
  if (typeof o.baseline === 'string') out.baseline = o.baseline;
  if (o.cacheReset !== undefined) out.cache_reset = o.cacheReset;
  if (typeof o.serve === 'string') out.serve = o.serve;
  if (typeof o.out === 'string') out.output = resolvePath(cwd, o.out);
  if (o.grid !== undefined && o.grid.length > 0) {
    const grid: Record<string, Array<string | number | boolean>> = {};
    for (const item of o.grid) {
      const eq = item.indexOf('=');
      if (eq <= 0)
        throw new GoodputError(
          'E_USAGE',
          `--grid expects PARAM=V1,V2, got '${item}'`,
          'e.g. --grid max-num-batched-tokens=1024,2048',
        );
      grid[item.slice(0, eq)] = item
        .slice(eq + 1)
        .split(',')
        .map((v) =>
          v === 'true'
            ? true
            : v === 'false'
              ? false
              : v.trim() !== '' && Number.isFinite(Number(v))
                ? Number(v)
                : v,
        );
    }
    out.grid = grid;
  }
  return out;
}

export const experimentCommand = defineCommand({
  name: 'experiment',
  summary:
    'Measure serving configurations against a baseline: repeated, interleaved runs, servers started and stopped for you',
  description: [
    'PLAN is a YAML file: configurations (a list with url: or serve:, and/or a grid: of parameters), runs:, order:,',
    'cooldown:, restart:, cache_reset:, and the run: flags every configuration is measured with (the same for all).',
    'Without url: or serve:, a configuration is the embedded simulated engine with its params as engine flags',
    '(max-num-batched-tokens, enable-chunked-prefill, …), in virtual time: the whole experiment takes seconds.',
    'A serve: server leads its own process group and is stopped (stop_signal, grace, then SIGKILL) after its runs,',
    'on an error and on Ctrl-C; a server left by a killed goodput is found from DIR/server.pid.json and stopped.',
    'Writes DIR/experiment.json, DIR/runs/<configuration>/run-<k>/ and DIR/logs/<configuration>.log.',
    'Run flags given here override the plan’s run: section. Ctrl-C stops, exits 130; --resume continues.',
    'Traffic classes: run: takes classes: (each a --class value); a configuration’s class.NAME.KEY params change one',
    'field of a class (class.batch.priority: 0), and the matrix and the ADR break the figures down by class.',
  ].join('\n'),
  positionals: [
    {
      name: 'PLAN',
      description:
        'The experiment plan (YAML); or an experiment folder, whose metrics matrix is printed again',
      required: true,
    },
  ],
  options: { ...EXPERIMENT_OPTIONS, ...ANALYSIS_OPTIONS, ...SEARCH_OPTIONS, ...RUN_OPTIONS },
  async run(ctx) {
    const o = ctx.args.options;
    const file = resolvePath(ctx.cwd, ctx.args.positionals[0]!);
    if (await isExperimentFolder(file)) return reportExperiment(ctx, file);
    const read = await readTextFileBounded(file, { maxBytes: 1024 * 1024 });
    if (!read.ok)
      throw new GoodputError(
        'E_USAGE',
        `cannot read the plan ${file} (${read.problem})`,
        'give the path of a YAML plan',
      );
    const plan = parsePlanText(read.text, file);
    const { spec, runArgv } = planExperiment(plan, {
      text: read.text,
      file,
      baseDir: dirname(file),
      cwd: ctx.cwd,
      overrides: overridesFrom(ctx.args, ctx.cwd),
    });
    const runArgs = mergedRunArgs(runArgv, ctx.args);
    if (spec.virtual) runArgs.options.time = 'virtual';
    const measurement = await resolveBenchmarkConfig(runArgs, ctx.env, ctx.cwd);
    // A configuration's class.NAME.KEY parameters name the run's classes: refused now, not after runs.
    for (const c of spec.configurations)
      applyClassParams(measurement.workload.classes, c.params, `configuration ${c.name}`);
    const quiet = o.quiet === true;
    if (!quiet) for (const w of measurement.warnings ?? []) ctx.stderr.write(`warning: ${w}\n`);
    if (o.search !== undefined) return runSearchExperiment(ctx, o.search, spec, measurement, quiet);
    if (!quiet)
      ctx.stderr.write(
        `experiment ${spec.name}: ${spec.configurations.length} configuration(s) × ${spec.runs} run(s), ${spec.order.mode}${spec.order.seed !== undefined ? ` (seed ${spec.order.seed})` : ''}${spec.virtual ? ', virtual time' : ''} → ${spec.dir}\n`,
      );
    const result = await runExperiment(
      { ...spec, measurement },
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
    if (o.json === true) ctx.stdout.write(`${JSON.stringify(result.state, null, 2)}\n`);
    else await printAnalysisAfterRuns(ctx, result.dir, renderExperimentSummary(result.state, result.dir));
    if (ctx.signal.aborted || result.state.status === 'interrupted') {
      if (!quiet)
        ctx.stderr.write(
          `interrupted: continue with goodput experiment ${ctx.args.positionals[0]} --resume${typeof o.out === 'string' ? ` --out ${o.out}` : ''}\n`,
        );
      return ExitCode.INTERRUPTED;
    }
    if (result.state.configurations.every((c) => c.status === 'failed')) {
      const first = result.state.configurations[0]?.failure;
      throw new GoodputError(
        'E_UNREACHABLE',
        `no configuration could be measured (${first?.message ?? 'every run failed'})`,
        first?.hint ?? `see ${result.dir}/experiment.json and the logs`,
      );
    }
    return ExitCode.OK;
  },
});
