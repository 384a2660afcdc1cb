/**
 * `goodput compare RUN_A RUN_B [RUN_C …]`: thin wiring of loadRuns → compareRuns → a
 * renderer. Exits REGRESSION (6) when --fail-on-worse names a metric that got worse.
 *
 * @module
 */

import { resolve as resolvePath } from 'node:path';
import { ExitCode, GoodputError } from '../errors.js';
import { type CommandSpec, chosenFormat } from '../flags/index.js';
import { compareRuns } from './compare.js';
import { loadCompareInputs } from './load.js';
import { COMPARE_METRIC_KEYS } from './metrics.js';
import { renderCompareCsv, renderCompareMarkdown, renderCompareTable } from './render.js';

export const compareCommand: CommandSpec = {
  name: 'compare',
  summary:
    'Compare runs against a baseline: deltas with 95% confidence intervals, verdicts, bottleneck hints',
  description: [
    'Each RUN is a result directory (or its summary.json); the first is the baseline.',
    'Percentile changes get a bootstrap interval from the per-request records, medians a Mann–Whitney U test,',
    'attainment and error rate a Newcombe interval (in points), throughputs a rate-ratio interval.',
    'Runs whose sampling, workload or load differ are refused unless --allow-different.',
  ].join('\n'),
  positionals: [
    {
      name: 'RUN',
      description: 'Result directories; the first is the baseline',
      required: true,
      variadic: true,
    },
  ],
  options: [
    {
      name: 'format',
      type: 'string',
      choices: ['table', 'markdown', 'json', 'csv'],
      default: 'table',
      group: 'Output',
      description:
        'table: the terminal table; markdown: for PR comments; json: the comparison (schemaVersion 1); csv: one row per candidate and metric (values, change, interval, verdict)',
    },
    { name: 'markdown', type: 'boolean', group: 'Output', description: 'Same as --format markdown' },
    { name: 'json', type: 'boolean', group: 'Output', description: 'Same as --format json' },
    {
      name: 'allow-different',
      type: 'boolean',
      description: 'Compare even when sampling, workload or load differ (the differences are listed)',
    },
    {
      name: 'fail-on-worse',
      type: 'list',
      valueName: 'METRIC',
      choices: ['any', ...COMPARE_METRIC_KEYS],
      description: 'Exit 6 when a candidate is significantly worse on one of these metrics (or any)',
    },
    {
      name: 'min-effect',
      type: 'number',
      default: 0.05,
      description: 'Noise floor: relative changes below this (0.05 = 5%) are no significant change',
    },
    { name: 'resamples', type: 'integer', default: 2000, description: 'Bootstrap resamples' },
    {
      name: 'seed',
      type: 'integer',
      default: 1,
      description: 'Seed of the bootstrap (results repeat exactly)',
    },
  ],
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
    const resamples = o.resamples as number;
    if (!(resamples >= 100)) {
      throw new GoodputError(
        'E_USAGE',
        `--resamples must be at least 100, got ${resamples}`,
        'e.g. --resamples 2000',
      );
    }
    // Relative to the command's working directory (as every other path flag).
    const runs = await loadCompareInputs(paths.map((p) => resolvePath(ctx.cwd, p)));
    const report = compareRuns(runs, {
      resamples,
      seed: o.seed as number,
      allowDifferent: o.allowDifferent === true,
    });
    if (format === 'json') ctx.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else if (format === 'markdown') ctx.stdout.write(renderCompareMarkdown(report));
    else if (format === 'csv') ctx.stdout.write(renderCompareCsv(report));
    else ctx.stdout.write(renderCompareTable(report));
    const watched = (o.failOnWorse as string[] | undefined) ?? [];
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
};
