/**
 * `goodput import FILE -o DIR`: another tool's result (vLLM `--save-result`, a guidellm
 * benchmark — `FILE#N` for one of a sweep —, an AIPerf or GenAI-Perf export) written as a
 * goodput result directory, so that compare, gate --from and report read it like a run. Its
 * summary.json is an ImportedSummary (kind `goodput.imported`): the source tool, file and
 * sha256, the figures as stated and the catalogue figures missing; no requests.jsonl is
 * written, since the source holds no per-request records to put in it.
 *
 * @module
 */

import { join, resolve } from 'node:path';
import { importedRun } from '../../compare/index.js';
import { ExitCode, GoodputError } from '../../errors.js';
import { defineCommand } from '../../flags/index.js';
import { TOOL_DESCRIPTIONS } from '../../metrics/index.js';
import { buildImportedView, renderImportedTable } from '../../report/index.js';
import { prepareOutDir, RESULT_FILES, readRunSource, writeSummary } from '../../results/index.js';
import type { ImportedSummary } from '../../types.js';

export const importCommand = defineCommand({
  name: 'import',
  summary:
    "Write another tool's result (vLLM, guidellm, AIPerf, GenAI-Perf, llm-d, inference-perf, SGLang) as a result directory every command reads",
  description: [
    'Recognises the file by its content: a vLLM bench serve --save-result JSON (current and old keys), a guidellm',
    'benchmarks JSON up to 0.7 (FILE#N picks one benchmark of a sweep), an AIPerf profile_export_aiperf.json (schema',
    '1.x; the profile_export.jsonl beside it gives per-request samples) or a GenAI-Perf profile_export_genai_perf.json,',
    'an llm-d benchmark report (0.2, 0.2.1), an inference-perf summary or stage lifecycle report, an SGLang',
    'bench_serving JSONL (FILE#N picks a line). Figures are taken exactly as the file states them (times converted from their',
    'stated unit exactly); every figure it does not state is listed as missing in DIR/summary.json, with the source',
    'tool, the file and its sha256. compare, gate --from and report read DIR; merge and summarize refuse it (no records).',
  ].join('\n'),
  positionals: [
    {
      name: 'FILE',
      description: "the other tool's result file (FILE#N: benchmark N of a guidellm sweep)",
      required: true,
    },
  ],
  options: {
    out: {
      short: 'o',
      type: 'string',
      valueName: 'DIR',
      group: 'Output',
      description: 'Write the result directory here (summary.json)',
    },
    force: {
      type: 'boolean',
      group: 'Output',
      description: "Replace an earlier run's files in DIR",
    },
    json: { type: 'boolean', group: 'Output', description: 'Print the imported summary as JSON' },
  },
  async run(ctx) {
    const o = ctx.args.options;
    const given = ctx.args.positionals[0];
    if (given === undefined) {
      throw new GoodputError(
        'E_USAGE',
        'import needs a result file',
        'goodput import vllm-result.json -o runs/vllm',
      );
    }
    if (typeof o.out !== 'string') {
      throw new GoodputError(
        'E_USAGE',
        'import needs -o DIR: the result directory to write',
        `goodput import ${given} -o runs/imported`,
      );
    }
    const source = await readRunSource(resolve(ctx.cwd, given));
    if (source.kind === 'goodput') {
      throw new GoodputError(
        'E_USAGE',
        `${source.path} is already a goodput run summary`,
        'pass it to compare, gate --from and report as it is',
      );
    }
    if (source.kind === 'imported') {
      throw new GoodputError(
        'E_USAGE',
        `${source.path} was already imported (from ${TOOL_DESCRIPTIONS[source.summary.source.tool]} ${source.summary.source.path})`,
        'pass its directory to compare, gate --from and report as it is',
      );
    }
    const imported: ImportedSummary = { ...importedRun(source), importedAt: new Date().toISOString() };
    const { dir } = await prepareOutDir(resolve(ctx.cwd, o.out), { force: o.force === true });
    const path = join(dir, RESULT_FILES.summary);
    await writeSummary(path, imported);
    if (o.json === true) ctx.stdout.write(`${JSON.stringify(imported, null, 2)}\n`);
    else ctx.stdout.write(renderImportedTable(buildImportedView(imported, given)));
    ctx.stderr.write(
      `wrote ${path}: ${Object.keys(imported.figures).length} figures as stated, ${imported.missing.length} missing\n`,
    );
    return ExitCode.OK;
  },
});
