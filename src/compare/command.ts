/**
 * `goodput compare RUN_A RUN_B [RUN_C …]`, or with replicates `goodput compare A1,A2,A3
 * B1,B2,B3`: thin wiring of the loader → compareGroups → a renderer. Exits REGRESSION (6)
 * when --fail-on-worse names a metric that got worse.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { ExitCode, GoodputError } from '../errors.js';
import { chosenFormat, defineCommand } from '../flags/index.js';
import type { CompareInput } from './compare.js';
import { compareGroups } from './groups.js';
import { loadCompareInputs } from './load.js';
import { COMPARE_METRIC_KEYS } from './metrics.js';
import { renderCompareCsv, renderCompareMarkdown, renderCompareTable } from './render.js';

export const compareCommand = defineCommand({
  name: 'compare',
  summary:
    'Compare runs against a baseline: deltas with 95% confidence intervals, verdicts, bottleneck hints',
  description: [
    'Each RUN is a result directory (or its summary.json); the first is the baseline.',
    'One run a side: percentile changes get a bootstrap interval from the per-request records, medians a',
    'Mann–Whitney U test, attainment and error rate a Newcombe interval (in points), throughputs a rate-ratio',
    "interval; these are within-run intervals, blind to drift between runs, so a change under the row's noise",
    'floor (measured in A/A reruns) is no significant change, and the output says how many runs a side would resolve it.',
    'Replicates: RUN may be several run folders joined by commas (A1,A2,A3); each run is then one observation and',
    "the interval is Welch's across runs (mean ±std and CV per side).",
    'Runs whose sampling, workload or load differ are refused unless --allow-different.',
  ].join('\n'),
  positionals: [
    {
      name: 'RUN',
      description:
        'Result directories; the first is the baseline. Several runs of one configuration: join them with commas (A1,A2,A3)',
      required: true,
      variadic: true,
    },
  ],
  options: {
    format: {
      type: 'string',
      choices: ['table', 'markdown', 'json', 'csv'],
      default: 'table',
      group: 'Output',
      description:
        'table: the terminal table; markdown: for PR comments; json: the comparison (schemaVersion 1); csv: one row per candidate and metric (values, change, interval, verdict)',
    },
    markdown: { type: 'boolean', group: 'Output', description: 'Same as --format markdown' },
    json: { type: 'boolean', group: 'Output', description: 'Same as --format json' },
    allowDifferent: {
      type: 'boolean',
      description: 'Compare even when sampling, workload or load differ (the differences are listed)',
    },
    failOnWorse: {
      type: 'list',
      valueName: 'METRIC',
      choices: ['any', ...COMPARE_METRIC_KEYS],
      description: 'Exit 6 when a candidate is significantly worse on one of these metrics (or any)',
    },
    minEffect: {
      type: 'number',
      min: 0,
      below: 1,
      says: 'at least 0 and under 1',
      why: 'e.g. 0.05 for 5%',
      description:
        "One noise floor for every row (0.05 = 5%, or 5 pp for proportions) instead of each row's calibrated one [default: the table in the README's compare section]",
    },
    resamples: {
      type: 'integer',
      default: 2000,
      min: 100,
      why: "fewer leave a 95% interval's ends to chance; e.g. 2000",
      description: 'Bootstrap resamples',
    },
    seed: {
      type: 'integer',
      default: 1,
      description: 'Seed of the bootstrap (results repeat exactly)',
    },
    class: {
      type: 'string',
      valueName: 'NAME',
      description:
        'Compare one traffic class of the runs (--class name=NAME,…): its figures against its own SLO, its requests only',
    },
  },
  async run(ctx) {
    const o = ctx.args.options;
    const paths = ctx.args.positionals;
    if (paths.length < 2) {
      throw new GoodputError(
        'E_USAGE',
        `compare needs at least two runs, got ${paths.length}`,
        'pass a baseline result directory and one or more candidates: goodput compare RUN_A RUN_B',
      );
    }
    const format = chosenFormat(ctx.args, ['json', 'markdown']);
    const { resamples, minEffect } = o;
    // Relative to the command's working directory (as every other path flag).
    const groups = await Promise.all(
      paths.map((p) =>
        loadCompareInputs(
          runGroup(p, ctx.cwd).map((one) => resolvePath(ctx.cwd, one)),
          o.class,
        ),
      ),
    );
    const report = compareGroups(uniqueGroupNames(groups), {
      resamples,
      seed: o.seed,
      allowDifferent: o.allowDifferent === true,
      ...(minEffect !== undefined ? { minEffect } : {}),
    });
    if (format === 'json') ctx.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else if (format === 'markdown') ctx.stdout.write(renderCompareMarkdown(report));
    else if (format === 'csv') ctx.stdout.write(renderCompareCsv(report));
    else ctx.stdout.write(renderCompareTable(report));
    const watched: readonly string[] = o.failOnWorse ?? [];
    if (watched.length === 0) return ExitCode.OK;
    const worse = report.comparisons.flatMap((c) =>
      c.deltas
        .filter((d) => d.verdict === 'worse' && (watched.includes('any') || watched.includes(d.key)))
        .map((d) => `${c.candidate.name}: ${d.label}`),
    );
    if (worse.length === 0) return ExitCode.OK;
    ctx.stderr.write(`regression: significantly worse on ${worse.join(', ')}\n`);
    return ExitCode.REGRESSION;
  },
});

/** A positional's run folders: "A1,A2,A3" → three; a path that exists as written (commas and all) is one. */
export function runGroup(arg: string, cwd: string): string[] {
  if (!arg.includes(',') || existsSync(resolvePath(cwd, arg))) return [arg];
  return arg.split(',').filter((p) => p !== '');
}

/** Run names unique across every group (a second "run" becomes "run#2"), as one list would have them. */
function uniqueGroupNames(groups: CompareInput[][]): CompareInput[][] {
  const seen = new Map<string, number>();
  for (const run of groups.flat()) {
    const count = (seen.get(run.name) ?? 0) + 1;
    seen.set(run.name, count);
    if (count > 1) run.name = `${run.name}#${count}`;
  }
  return groups;
}
