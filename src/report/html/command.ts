/**
 * `goodput report RUN [RUN …] -o report.html`: one self-contained HTML file (or Markdown) of
 * one or more runs, or of a sweep directory. The only part of the report that does I/O.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { importedRunName, pickedRuns } from '../../compare/index.js';
import { ExitCode, GoodputError } from '../../errors.js';
import {
  analyzeExperiment,
  EXPERIMENT_FILE,
  type ExperimentAnalysis,
  renderExperimentCsv,
  renderExperimentJson,
  renderExperimentMarkdown,
  renderExperimentTable,
} from '../../experiment/analysis/index.js';
import type { CommandContext } from '../../flags/index.js';
import { defineCommand } from '../../flags/index.js';
import { runCaveats } from '../../metrics/index.js';
import {
  outputFileError,
  readRecords,
  readRunSource,
  runPaths,
  writeOutputFile,
} from '../../results/index.js';
import {
  csvLine,
  importedMetrics,
  RECORD_CSV_COLUMNS,
  recordCsvLine,
  renderSummaryCsv,
  summaryMetrics,
} from '../csv.js';
import { buildImportedView, renderImportedTable } from '../imported.js';
import { llmdReportOfImported, llmdReportOfRun } from '../llmd.js';
import { renderRunTable } from '../terminal.js';
import { buildComparison } from './compare-view.js';
import { deltaComparison } from './comparison.js';
import { renderReportMarkdown } from './markdown.js';
import type { ComparisonView, HtmlReportInput, ImportedReportRun, ReportRun, SweepView } from './model.js';
import { isSweepDir, loadChartAssets, readReportRun, readSweep } from './read.js';
import { renderHtmlReport } from './render.js';

/** Gives repeated labels a suffix, so that legends tell runs apart. */
export function uniqueLabels(labels: string[]): string[] {
  const seen = new Map<string, number>();
  return labels.map((l) => {
    const n = (seen.get(l) ?? 0) + 1;
    seen.set(l, n);
    return n === 1 ? l : `${l} (${n})`;
  });
}

/** A default title: the run's model and label, or the number of runs. */
export function defaultTitle(
  runs: ReportRun[],
  sweep: SweepView | undefined,
  imported: readonly ImportedReportRun[] = [],
): string {
  if (sweep) return `goodput sweep — ${runs[0]?.summary.meta.model ?? ''}`.trim();
  if (runs.length === 1 && imported.length === 0)
    return `goodput report — ${runs[0]!.label} (${runs[0]!.summary.meta.model})`;
  if (runs.length === 0 && imported.length === 1) {
    const only = imported[0]!;
    return `goodput report — ${only.label}${only.summary.model ? ` (${only.summary.model})` : ''}`;
  }
  return `goodput report — ${runs.length + imported.length} runs`;
}

export const reportCommand = defineCommand({
  name: 'report',
  summary: 'Write a self-contained HTML report (charts) or Markdown tables of one or more runs',
  description:
    "Reads result directories written by goodput run --out (or a sweep directory holding sweep.json) and writes one HTML file that opens with no network: latency CDFs, TTFT against prompt length, the run timeline with server metrics, sweep curves, the comparison, errors and diagnosis. The first run is the baseline of the comparison. Other tools' results (vLLM --save-result, guidellm benchmarks — every benchmark of a sweep, or FILE#N —, AIPerf and GenAI-Perf exports, or a directory goodput import wrote) are drawn from the figures they state: points on the latency CDFs and their tables, with what they do not state named.",
  positionals: [
    {
      name: 'RUN',
      description:
        "Result directory (or its summary.json), a sweep directory, an experiment folder (experiment.json: bars per configuration with across-run intervals, its Pareto chart), or another tool's result file (FILE#N: one benchmark of a guidellm sweep)",
      required: true,
      variadic: true,
    },
  ],
  options: {
    out: {
      short: 'o',
      type: 'string',
      valueName: 'FILE',
      group: 'Output',
      description: 'Write the report here (default: report.html; Markdown without -o goes to stdout)',
    },
    format: {
      type: 'string',
      choices: ['html', 'markdown', 'text', 'csv', 'json', 'llm-d'],
      default: 'html',
      group: 'Output',
      description:
        'html: charts, self-contained; markdown: the headline tables, for ADRs and PR comments; text: the terminal tables of each run; csv: one row of catalogue metrics per run (with --records: one row per request); json: the same metrics as one document (schemaVersion 1); llm-d: one run as an llm-d benchmark report v0.2 (JSON; goodput import reads it back)',
    },
    records: {
      type: 'boolean',
      group: 'Output',
      description: 'With --format csv: one row per request record of every run instead of one per run',
    },
    json: {
      type: 'boolean',
      group: 'Output',
      description: 'Same as --format json',
    },
    title: {
      type: 'string',
      valueName: 'TEXT',
      group: 'Output',
      description: 'Title of the report (default: from the runs)',
    },
  },
  async run(ctx) {
    const dirs = ctx.args.positionals;
    const format = outputFormat(ctx);
    if (dirs.length === 0) {
      throw new GoodputError(
        'E_USAGE',
        'goodput report needs at least one result directory',
        'write goodput report RUN_DIR [RUN_DIR …] -o report.html',
      );
    }
    const runs: ReportRun[] = [];
    const imported: ImportedReportRun[] = [];
    let sweep: SweepView | undefined;
    let experiment: ExperimentAnalysis | undefined;
    for (const d of dirs) {
      const path = resolve(ctx.cwd, d);
      ctx.stderr.write(`reading ${d}\n`);
      if (existsSync(join(path, EXPERIMENT_FILE))) {
        // An experiment folder: its analysis (the metrics matrix), drawn as its own section.
        if (experiment) ctx.stderr.write(`warning: only the first experiment is charted; ${d} is left out\n`);
        experiment ??= await analyzeExperiment(path);
      } else if (isSweepDir(path)) {
        const read = await readSweep(path);
        if (sweep) ctx.stderr.write(`warning: only the first sweep is charted; ${d} adds its runs only\n`);
        sweep ??= read.view;
        runs.push(...read.runs);
      } else {
        const source = await readRunSource(path);
        if (source.kind === 'goodput') runs.push(await readReportRun(path));
        else {
          // Every benchmark of a guidellm sweep, or the one FILE#N selects.
          const all = pickedRuns(source);
          for (const summary of all) imported.push({ label: importedRunName(source, summary), summary });
        }
      }
    }
    if (experiment && runs.length === 0 && imported.length === 0 && format !== 'html' && format !== 'llm-d') {
      const text =
        format === 'json'
          ? renderExperimentJson(experiment)
          : format === 'csv'
            ? renderExperimentCsv(experiment)
            : format === 'markdown'
              ? renderExperimentMarkdown(experiment)
              : renderExperimentTable(experiment);
      const out =
        typeof ctx.args.options.out === 'string' ? resolve(ctx.cwd, ctx.args.options.out) : undefined;
      if (out) {
        await writeOut(out, text);
        ctx.stderr.write(`wrote ${out}\n`);
      } else ctx.stdout.write(text);
      return ExitCode.OK;
    }
    if (runs.length === 0 && imported.length === 0 && !experiment) {
      throw new GoodputError(
        'E_RESULT',
        `no runs found in ${dirs.join(', ')}`,
        'pass result directories written by goodput run --out DIR',
      );
    }
    uniqueLabels([...runs, ...imported].map((r) => r.label)).forEach((label, i) => {
      const run = i < runs.length ? runs[i] : imported[i - runs.length];
      run!.label = label;
    });
    const out = typeof ctx.args.options.out === 'string' ? resolve(ctx.cwd, ctx.args.options.out) : undefined;
    if (format === 'llm-d') {
      const text = `${JSON.stringify(llmdReport(runs, imported), null, 2)}\n`;
      if (out) await writeOut(out, text);
      else ctx.stdout.write(text);
      if (out) ctx.stderr.write(`wrote ${out}\n`);
      return ExitCode.OK;
    }
    if (format === 'csv' || format === 'json') {
      await writeData(ctx, runs, imported, format, ctx.args.options.records === true, out);
      if (out) ctx.stderr.write(`wrote ${out}\n`);
      return ExitCode.OK;
    }
    const comparison = runs.length > 1 && !sweep ? comparisonOf(runs) : undefined;
    if (comparison?.note) ctx.stderr.write(`${comparison.note}\n`);
    if (format === 'text') {
      const text = [
        ...runs.map((r) => renderRunTable(r.summary)),
        ...imported.map((r) => renderImportedTable(buildImportedView(r.summary, r.label))),
      ].join('\n');
      if (out) await writeOut(out, text);
      else ctx.stdout.write(text);
      if (out) ctx.stderr.write(`wrote ${out}\n`);
      return ExitCode.OK;
    }
    const input: HtmlReportInput = {
      title:
        typeof ctx.args.options.title === 'string'
          ? ctx.args.options.title
          : experiment && runs.length === 0 && imported.length === 0
            ? `goodput experiment — ${experiment.name}`
            : defaultTitle(runs, sweep, imported),
      generatedAt: new Date().toISOString(),
      runs,
      ...(imported.length > 0 ? { imported } : {}),
      ...(sweep ? { sweep } : {}),
      ...(comparison ? { comparison } : {}),
      ...(experiment ? { experiment } : {}),
    };
    if (format === 'markdown') {
      const md = renderReportMarkdown(input);
      if (out) await writeOut(out, md);
      else ctx.stdout.write(md);
    } else {
      const html = renderHtmlReport(input, await loadChartAssets());
      await writeOut(out ?? resolve(ctx.cwd, 'report.html'), html);
    }
    if (out || format === 'html') ctx.stderr.write(`wrote ${out ?? resolve(ctx.cwd, 'report.html')}\n`);
    return ExitCode.OK;
  },
});

/** The one run of `--format llm-d` as an llm-d benchmark report (the format holds one run a file). */
function llmdReport(runs: ReportRun[], imported: readonly ImportedReportRun[]): Record<string, unknown> {
  const count = runs.length + imported.length;
  if (count !== 1) {
    throw new GoodputError(
      'E_USAGE',
      `--format llm-d writes one run a report, and ${count} were given`,
      'write one report per run: goodput report RUN --format llm-d -o RUN.llm-d.json (a sweep: one per point directory; FILE#N for one benchmark of a guidellm sweep)',
    );
  }
  return runs[0] ? llmdReportOfRun(runs[0].summary) : llmdReportOfImported(imported[0]!.summary);
}

/** --format, with --json as its shorthand and --records only for CSV. */
function outputFormat(ctx: CommandContext): string {
  const o = ctx.args.options;
  let format = String(o.format ?? 'html');
  if (o.json === true) {
    if (ctx.args.given.has('format') && format !== 'json') {
      throw new GoodputError(
        'E_USAGE',
        `--json contradicts --format ${format}`,
        'use one of them: --json is the same as --format json',
      );
    }
    format = 'json';
  }
  if (o.records === true && format !== 'csv') {
    throw new GoodputError(
      'E_USAGE',
      `--records is for CSV output, not --format ${format}`,
      "add --format csv (each run's requests.jsonl already holds its records as JSON lines)",
    );
  }
  return format;
}

/** Summary CSV, per-request CSV (streamed, one run after the other) or the JSON document. */
async function writeData(
  ctx: CommandContext,
  runs: ReportRun[],
  imported: readonly ImportedReportRun[],
  format: 'csv' | 'json',
  records: boolean,
  out: string | undefined,
): Promise<void> {
  if (!records) {
    const text =
      format === 'csv'
        ? renderSummaryCsv(runs, imported)
        : `${JSON.stringify(
            {
              schemaVersion: 1,
              kind: 'goodput.report',
              runs: [
                ...runs.map((r) => ({
                  label: r.label,
                  runId: r.summary.meta.runId,
                  model: r.summary.meta.model,
                  metrics: summaryMetrics(r.summary),
                  caveats: runCaveats(r.summary),
                })),
                ...imported.map((r) => ({
                  label: r.label,
                  source: r.summary.source,
                  model: r.summary.model,
                  metrics: importedMetrics(r.summary),
                  missing: r.summary.missing,
                })),
              ],
            },
            null,
            2,
          )}\n`;
    if (out) await writeOut(out, text);
    else ctx.stdout.write(text);
    return;
  }
  const file = out ? await openOut(out) : undefined;
  const write = async (text: string) => {
    if (!file) ctx.stdout.write(text);
    else
      await file.write(text).catch((e: unknown) => Promise.reject(outputFileError(out!, e, { flag: '-o' })));
  };
  try {
    await write(csvLine(RECORD_CSV_COLUMNS));
    for (const run of imported)
      ctx.stderr.write(
        `warning: ${run.label} is another tool's summary, with no request records; no rows for it\n`,
      );
    for (const run of runs) {
      if (run.dir === undefined || !existsSync(runPaths(run.dir).requests)) {
        ctx.stderr.write(`warning: ${run.label} has no requests.jsonl; no rows for it\n`);
        continue;
      }
      let chunk = '';
      let lines = 0;
      for await (const record of readRecords(run.dir)) {
        chunk += recordCsvLine(run.label, record, run.summary.meta.slo);
        if (++lines % 1000 === 0) {
          await write(chunk);
          chunk = '';
        }
      }
      await write(chunk);
    }
  } finally {
    await file?.close();
  }
}

async function openOut(path: string) {
  try {
    await mkdir(dirname(path), { recursive: true });
    return await open(path, 'w');
  } catch (e) {
    throw outputFileError(path, e, { flag: '-o' });
  }
}

/** compare's statistics; when they cannot be computed, plain deltas (and the report says why). */
function comparisonOf(runs: ReportRun[]): ComparisonView {
  try {
    return buildComparison(runs);
  } catch (e) {
    const view = deltaComparison(runs);
    view.note = `${view.note} (compare could not run: ${(e as Error).message})`;
    return view;
  }
}

async function writeOut(path: string, text: string): Promise<void> {
  await writeOutputFile(path, text, { flag: '-o' });
}
