/**
 * `goodput sim calibrate RUN_DIR…`: fits the simulated engine's step time to runs measured
 * against a real server, reports the error on held-out runs and writes the profile. A
 * subcommand of `sim`, which hands it its engine flags (the measured server's settings), so
 * that this file does not import sim's command.
 *
 * @module
 */

import { resolve } from 'node:path';
import { ExitCode, GoodputError } from '../errors.js';
import type { CommandSpec, OptionSpec } from '../flags/index.js';
import { writeOutputFile } from '../results/index.js';
import { DEFAULT_PROFILE, type EngineOptions, loadProfileFile, resolveProfile } from '../sim/index.js';
import { calibrate, coefficientsOf, type HoldoutPlan } from './fit.js';
import { calibratedProfileFile, calibrationReport, renderCalibration } from './report.js';
import { readCalibrationRuns } from './runs.js';

const G = 'Calibration';

const OPTIONS: OptionSpec[] = [
  {
    name: 'profile',
    type: 'string',
    default: DEFAULT_PROFILE,
    valueName: 'GPU[xN]:MODEL',
    description: 'Profile to start from: the served model, and a GPU whose rates the fit replaces',
    group: G,
  },
  {
    name: 'profile-file',
    type: 'string',
    valueName: 'FILE',
    description: 'Start from a JSON profile instead (overrides --profile)',
    group: G,
  },
  {
    name: 'holdout',
    type: 'string',
    repeatable: true,
    valueName: 'RUN',
    description: 'Hold this run out of the fit (folder or its name; repeatable) [default: leave-one-out]',
    group: G,
  },
  {
    name: 'out',
    short: 'o',
    type: 'string',
    default: 'calibrated-profile.json',
    valueName: 'FILE',
    description: 'Where to write the fitted profile',
    group: G,
  },
  { name: 'json', type: 'boolean', description: 'Print the report as JSON on stdout', group: G },
  {
    name: 'max-requests',
    type: 'integer',
    default: 200,
    valueName: 'N',
    description:
      'Replay and match the first N measured requests of each run (fits replay every run many times)',
    group: G,
  },
  {
    name: 'max-iterations',
    type: 'integer',
    default: 30,
    description: 'Most least-squares iterations per fit',
    group: G,
  },
];

/** The `calibrate` subcommand of `sim`, taking sim's engine flags (the measured server's settings). */
export function calibrateCommand(
  engineOptions: readonly OptionSpec[],
  engineFromArgs: (o: Record<string, unknown>) => EngineOptions,
): CommandSpec {
  return {
    name: 'calibrate',
    summary: "Fit the simulated engine's step time to runs measured on a real server; error on held-out runs",
    description: [
      'Replays each measured run (summary.json + requests.jsonl: its prompts, output lengths and load) on',
      "the simulated engine in virtual time and fits, by least squares on each run's mean TTFT and TPOT, the",
      'step-time coefficients: prefill FLOP/s, weight and KV read bytes/s, per-step and per-sequence overhead.',
      'Give runs at several concurrencies and prompt lengths, and the engine flags the server ran with.',
      'Held-out runs (leave-one-out, or --holdout) show the error to expect on runs the fit did not see.',
      'The profile written is read by goodput sim --profile-file.',
    ].join('\n'),
    options: [...OPTIONS, ...engineOptions.filter((o) => o.name !== 'abort-on-disconnect')],
    positionals: [
      { name: 'run_dirs', description: 'Result folders of measured runs', required: true, variadic: true },
    ],
    async run(ctx) {
      const o = ctx.args.options;
      const dirs = ctx.args.positionals.map((d) => resolve(ctx.cwd, d));
      if (dirs.length < 3)
        throw new GoodputError(
          'E_USAGE',
          `sim calibrate needs at least 3 runs (got ${dirs.length})`,
          'measure the server at several concurrencies and prompt lengths (e.g. goodput run --concurrency 1, 4, 16 with short and long prompts) and pass every result folder',
        );
      const start =
        typeof o.profileFile === 'string'
          ? await loadProfileFile(resolve(ctx.cwd, o.profileFile))
          : resolveProfile(o.profile as string, o.tensorParallelSize as number | undefined);
      if (typeof o.profileFile === 'string' && typeof o.tensorParallelSize === 'number')
        start.tensorParallel = o.tensorParallelSize;
      const maxRequests = o.maxRequests as number;
      if (!(maxRequests >= 2))
        throw new GoodputError(
          'E_USAGE',
          `--max-requests must be at least 2, got ${maxRequests}`,
          'e.g. --max-requests 200',
        );
      const runs = await readCalibrationRuns(dirs, maxRequests);
      const holdout = holdoutPlan((o.holdout as string[] | undefined) ?? [], runs, ctx.cwd);
      const cal = calibrate(runs, start, holdout, {
        engine: engineFromArgs(o),
        maxIterations: o.maxIterations as number,
      });
      const report = calibrationReport(cal, runs, { profile: start, coefficients: coefficientsOf(start) });
      const out = resolve(ctx.cwd, o.out as string);
      await writeOutputFile(out, `${JSON.stringify(calibratedProfileFile(cal, report), null, 2)}\n`, {
        flag: '--out',
        suggest: 'calibrated-profile.json',
      });
      ctx.stdout.write(
        o.json === true ? `${JSON.stringify(report, null, 2)}\n` : renderCalibration(report, out),
      );
      return ExitCode.OK;
    },
  };
}

/** `--holdout` names → a split (each must name a run, and at least 2 must be left to fit); none → leave-one-out. */
function holdoutPlan(
  names: readonly string[],
  runs: ReadonlyArray<{ name: string; dir: string }>,
  cwd: string,
): HoldoutPlan {
  if (names.length === 0) return { kind: 'leave-one-out' };
  const heldOut: string[] = [];
  for (const n of names) {
    const run = runs.find((r) => r.name === n || r.dir === resolve(cwd, n));
    if (!run)
      throw new GoodputError(
        'E_USAGE',
        `--holdout ${n} names none of the runs given`,
        `name one of: ${runs.map((r) => r.name).join(', ')}`,
      );
    heldOut.push(run.name);
  }
  if (runs.length - new Set(heldOut).size < 2)
    throw new GoodputError(
      'E_USAGE',
      `--holdout leaves ${runs.length - new Set(heldOut).size} run(s) to fit`,
      'hold out fewer runs (at least 2 must be fitted), or give more runs',
    );
  return { kind: 'split', heldOut };
}
