/**
 * `goodput merge`: the runs of several load generators that drove the same target at the
 * same time, combined into one result directory. Percentiles are merged through the runs'
 * histograms, so they are exactly those of one generator that recorded every request
 * (see mergeSummaries for what is exact, summed or taken as the maximum).
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { comparabilityDiffs, describeDiff, targetDiffs } from '../../compare/index.js';
import { ExitCode, GoodputError } from '../../errors.js';
import { defineCommand, FORCE_OPTION } from '../../flags/index.js';
import { mergeSummaries, startSkewSpreadMs, timeDiffs } from '../../metrics/index.js';
import { renderRunTable } from '../../report/index.js';
import {
  JsonlWriter,
  prepareOutDir,
  RESULT_FILES,
  readRecords,
  readSummary,
  runPaths,
  writeSummary,
} from '../../results/index.js';
import { type RequestRecord, SCHEMA_VERSION, type ShardOutcome } from '../../types.js';

/** Per-shard achieved load and the start skew across shards, for a merge of shards. */
export function renderShards(shards: readonly ShardOutcome[]): string {
  const ms = (v: number | undefined) => (v === undefined ? '—' : `${v >= 0 ? '+' : ''}${v.toFixed(1)} ms`);
  const lines = [
    '',
    `Shards (${shards.length})     requests   req/s    output tok/s   start skew`,
    ...shards.map(
      (s) =>
        `  ${String(s.index).padEnd(18)}${String(s.attempted).padStart(8)}${s.requestsPerS.toFixed(2).padStart(8)}${s.outputTokensPerS.toFixed(1).padStart(16)}   ${ms(s.startSkewMs)}`,
    ),
  ];
  const spread = startSkewSpreadMs(shards);
  lines.push(
    spread === undefined
      ? '  start skew across shards: not recorded (run the shards with --start-at)'
      : `  start skew across shards: ${spread.toFixed(1)} ms (latest − earliest start after --start-at)`,
  );
  return `${lines.join('\n')}\n`;
}

/** Whether a run input has its records beside it (a result folder, not a summary snapshot from stdout). */
function hasRecords(run: string): boolean {
  const paths = runPaths(run);
  return basename(paths.summary) === RESULT_FILES.summary && existsSync(paths.requests);
}

/** Copies every run's records into one requests.jsonl, ids prefixed with the run's position. */
async function mergeRecords(runs: string[], out: string, runId: string, startedAt: string): Promise<number> {
  const writer = new JsonlWriter<RequestRecord>(join(out, RESULT_FILES.requests), {
    schemaVersion: SCHEMA_VERSION,
    kind: 'goodput.requests',
    runId,
    startedAt,
  });
  let n = 0;
  try {
    for (const [i, run] of runs.entries()) {
      if (!hasRecords(run)) continue;
      for await (const record of readRecords(run)) {
        // Times stay on each generator's own clock: latencies are differences, so they hold.
        writer.write({ ...record, id: `g${i + 1}-${record.id}` });
        n++;
        if (writer.backlogged) await writer.drained();
      }
    }
  } finally {
    await writer.close();
  }
  return n;
}

export const mergeCommand = defineCommand({
  name: 'merge',
  summary: 'Combine the runs of several load generators (same target, same time) into one, percentiles exact',
  description: [
    'Each RUN is a result directory (or its summary.json, or a summary printed by `run --json`) written by goodput run; all must share the SLOs.',
    'The N shards of one `run --shard i/N` merge into the whole run: every shard exactly once, same workload and seed; per-shard load and start skew are shown.',
    'Writes OUT/summary.json (the merged summary) and OUT/requests.jsonl (every record, ids prefixed g1-, g2-, …).',
  ].join('\n'),
  positionals: [{ name: 'RUN', description: 'result directories to merge', required: true, variadic: true }],
  options: {
    out: {
      short: 'o',
      type: 'string',
      valueName: 'DIR',
      description: 'Directory of the merged run (required)',
    },
    json: { type: 'boolean', description: 'Print the merged summary as JSON on stdout' },
    allowDifferent: {
      type: 'boolean',
      description:
        'Merge even when the runs differ in target, model, sampling, workload or load, or did not run at the same time (the differences are printed)',
    },
    force: { ...FORCE_OPTION, group: undefined },
  },
  async run(ctx) {
    const runs = ctx.args.positionals.map((p) => resolve(ctx.cwd, p));
    if (runs.length < 2) {
      throw new GoodputError(
        'E_USAGE',
        `merge needs at least two runs, got ${runs.length}`,
        'goodput merge gen1/ gen2/ -o merged/',
      );
    }
    if (typeof ctx.args.options.out !== 'string') {
      throw new GoodputError('E_USAGE', 'merge needs --out DIR', 'goodput merge gen1/ gen2/ -o merged/');
    }
    const out = resolve(ctx.cwd, ctx.args.options.out);
    if (runs.some((r) => runPaths(r).dir === out)) {
      throw new GoodputError(
        'E_USAGE',
        `--out ${out} is one of the runs being merged`,
        'write the merged run to a new directory',
      );
    }
    const summaries = await Promise.all(runs.map((r) => readSummary(r)));
    const first = summaries[0]!.meta;
    const diffs = summaries.slice(1).flatMap((s, i) =>
      [...targetDiffs(first, s.meta), ...comparabilityDiffs(first, s.meta)]
        // --workers is how a generator ran its share, not the load it offered.
        .filter((d) => d.path !== 'load.workers')
        .map((d) => `  ${ctx.args.positionals[i + 1]}: ${describeDiff(d)}`),
    );
    // Parts of one run also ran at one time: shards told one --start-at, windows that overlap.
    diffs.push(...timeDiffs(summaries, ctx.args.positionals).map((d) => `  ${d}`));
    if (diffs.length > 0) {
      if (ctx.args.options.allowDifferent !== true) {
        throw new GoodputError(
          'E_INCOMPARABLE',
          `the runs did not measure the same thing, so their merge would mean nothing:\n${diffs.join('\n')}`,
          'merge runs of one target, model and load taken at the same time (the shards of one run share one --start-at), or pass --allow-different to merge anyway',
        );
      }
      ctx.stderr.write(`--allow-different: merging runs that differ:\n${diffs.join('\n')}\n`);
    }
    const merged = mergeSummaries(summaries);
    const { removed } = await prepareOutDir(out, { force: ctx.args.options.force === true });
    if (removed.length > 0)
      ctx.stderr.write(`--force: removed the earlier run's ${removed.join(', ')} from ${out}\n`);
    const records = await mergeRecords(runs, out, merged.meta.runId, merged.meta.startedAt);
    await writeSummary(join(out, RESULT_FILES.summary), merged);
    const snapshots = runs.filter((r) => !hasRecords(r)).length;
    ctx.stderr.write(
      `merged ${runs.length} ${merged.shards ? 'shards' : 'runs'} (${records} records${snapshots > 0 ? `; ${snapshots} summary snapshot(s) without records` : ''}) into ${out}\n`,
    );
    if (ctx.args.options.json === true) ctx.stdout.write(`${JSON.stringify(merged, null, 2)}\n`);
    else ctx.stdout.write(renderRunTable(merged) + (merged.shards ? renderShards(merged.shards) : ''));
    return ExitCode.OK;
  },
});
