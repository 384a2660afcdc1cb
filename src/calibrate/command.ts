/**
 * `goodput sim calibrate RUN_DIR…`: fits the simulated engine's step time to runs measured
 * against a real server, reports the error on held-out runs and writes the profile. A
 * subcommand of `sim`, which loads this file only when it runs; it takes sim's engine flags
 * (the measured server's settings).
 *
 * @module
 */

import { resolve } from 'node:path';
import { ExitCode, GoodputError } from '../errors.js';
import { defineCommand, defineOptions, omitOptions } from '../flags/index.js';
import { writeOutputFile } from '../results/index.js';
import { CALIBRATE_SUMMARY, ENGINE_OPTIONS, engineOptionsFromArgs } from '../sim/command.js';
import { DEFAULT_PROFILE, loadProfileFile, resolveProfile } from '../sim/index.js';
import { calibrate, coefficientsOf, type HoldoutPlan } from './fit.js';
import { calibratedProfileFile, calibrationReport, renderCalibration } from './report.js';
import { readCalibrationRuns } from './runs.js';

const G = 'Calibration';

const OPTIONS = defineOptions({
  profile: {
    type: 'string',
    default: DEFAULT_PROFILE,
    valueName: 'GPU[xN]:MODEL',
    description: 'Profile to start from: the served model, and a GPU whose rates the fit replaces',
    group: G,
  },
  profileFile: {
    type: 'string',
    valueName: 'FILE',
    description: 'Start from a JSON profile instead (overrides --profile)',
    group: G,
  },
  holdout: {
    type: 'string',
    repeatable: true,
    valueName: 'RUN',
    description: 'Hold this run out of the fit (folder or its name; repeatable) [default: leave-one-out]',
    group: G,
  },
  out: {
    short: 'o',
    type: 'string',
    default: 'calibrated-profile.json',
    valueName: 'FILE',
    description: 'Where to write the fitted profile',
    group: G,
  },
  json: { type: 'boolean', description: 'Print the report as JSON on stdout', group: G },
  maxRequests: {
    type: 'integer',
    default: 200,
    min: 2,
    valueName: 'N',
    description:
      'Replay and match the first N measured requests of each run (fits replay every run many times)',
    group: G,
  },
  maxIterations: {
    type: 'integer',
    default: 30,
    description: 'Most least-squares iterations per fit',
    group: G,
  },
});

/** The `calibrate` subcommand of `sim`, taking sim's engine flags (the measured server's settings). */
export const calibrateCommand = defineCommand({
  name: 'calibrate',
  summary: CALIBRATE_SUMMARY,
  description: [
    'Replays each measured run (summary.json + requests.jsonl: its prompts, output lengths and load) on',
    "the simulated engine in virtual time and fits, by least squares on each run's mean TTFT and TPOT, the",
    'step-time coefficients: prefill FLOP/s, weight and KV read bytes/s, per-step and per-sequence overhead.',
    'Give runs at several concurrencies and prompt lengths, and the engine flags the server ran with.',
    'Held-out runs (leave-one-out, or --holdout) show the error to expect on runs the fit did not see.',
    'The profile written is read by goodput sim --profile-file.',
  ].join('\n'),
  options: { ...OPTIONS, ...omitOptions(ENGINE_OPTIONS, ['abortOnDisconnect']) },
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
      o.profileFile !== undefined
        ? await loadProfileFile(resolve(ctx.cwd, o.profileFile))
        : resolveProfile(o.profile, o.tensorParallelSize);
    if (o.profileFile !== undefined && o.tensorParallelSize !== undefined)
      start.tensorParallel = o.tensorParallelSize;
    const runs = await readCalibrationRuns(dirs, o.maxRequests);
    const holdout = holdoutPlan(o.holdout ?? [], runs, ctx.cwd);
    const cal = calibrate(runs, start, holdout, {
      engine: engineOptionsFromArgs(o),
      maxIterations: o.maxIterations,
    });
    const report = calibrationReport(cal, runs, { profile: start, coefficients: coefficientsOf(start) });
    const out = resolve(ctx.cwd, o.out);
    await writeOutputFile(out, `${JSON.stringify(calibratedProfileFile(cal, report), null, 2)}\n`, {
      flag: '--out',
      suggest: 'calibrated-profile.json',
    });
    ctx.stdout.write(
      o.json === true ? `${JSON.stringify(report, null, 2)}\n` : renderCalibration(report, out),
    );
    return ExitCode.OK;
  },
});

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
