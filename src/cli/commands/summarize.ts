/**
 * `goodput summarize DIR`: rebuilds summary.json from requests.jsonl (and
 * server-metrics.jsonl) when a run was killed before it could write it (SIGKILL, a crash,
 * a power cut), so report, compare, gate and merge accept the folder again.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ExitCode, GoodputError } from '../../errors.js';
import { defineCommand } from '../../flags/index.js';
import { renderRunTable } from '../../report/index.js';
import { RESULT_FILES, runPaths, writeSummary } from '../../results/index.js';
import { rebuildSummary } from '../../runner/index.js';

export const summarizeCommand = defineCommand({
  name: 'summarize',
  summary:
    "Rebuild a killed run's summary.json from its requests.jsonl, so every command reads the folder again",
  description: [
    'A run killed with SIGKILL (or a crash) leaves DIR/requests.jsonl, streamed as it went, but no summary.json.',
    'summarize rebuilds it with the same accumulator the run uses, from the run meta in the header line of',
    'requests.jsonl (and server-metrics.jsonl when present). A last line cut off by the kill is ignored and said;',
    'a damaged line in the middle is an error naming the line, unless --skip-corrupt.',
  ].join('\n'),
  positionals: [{ name: 'DIR', description: 'result directory of the run', required: true }],
  options: {
    force: {
      type: 'boolean',
      description: 'Rebuild even when DIR already has a summary.json (it is replaced)',
    },
    skipCorrupt: {
      type: 'boolean',
      description: 'Skip damaged lines in the middle of requests.jsonl (each is named) instead of refusing',
    },
    json: { type: 'boolean', description: 'Print the rebuilt summary as JSON on stdout' },
  },
  async run(ctx) {
    const given = ctx.args.positionals[0];
    if (given === undefined) {
      throw new GoodputError(
        'E_USAGE',
        'summarize needs a result directory',
        'goodput summarize goodput-results/<run>/',
      );
    }
    const { dir } = runPaths(resolve(ctx.cwd, given));
    const summaryPath = join(dir, RESULT_FILES.summary);
    if (existsSync(summaryPath) && ctx.args.options.force !== true) {
      throw new GoodputError(
        'E_USAGE',
        `${dir} already has a summary.json; summarize rebuilds a missing one`,
        `add --force to rebuild it from the records anyway (the current summary.json is replaced)`,
      );
    }
    const rebuilt = await rebuildSummary(dir, { skipCorrupt: ctx.args.options.skipCorrupt === true });
    try {
      await writeSummary(summaryPath, rebuilt.summary);
    } catch (e) {
      throw new GoodputError(
        'E_IO',
        `could not write ${summaryPath}: ${(e as Error).message}`,
        'free space or fix the permissions of the folder, then run goodput summarize again',
        { cause: e },
      );
    }
    ctx.stderr.write(`rebuilt ${summaryPath} from ${rebuilt.records} records\n`);
    for (const note of rebuilt.notes) ctx.stderr.write(`note: ${note}\n`);
    ctx.stdout.write(
      ctx.args.options.json === true
        ? `${JSON.stringify(rebuilt.summary, null, 2)}\n`
        : renderRunTable(rebuilt.summary),
    );
    return ExitCode.OK;
  },
});
