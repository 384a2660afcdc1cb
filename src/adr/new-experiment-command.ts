/**
 * `goodput adr new --experiment DIR`: the ADR of an experiment folder, from its analysis (the
 * matrix, the winner, rules, gate, rollback, workload). The CLI face of adr/experiment.ts.
 *
 * @module
 */

import { join, relative, resolve } from 'node:path';
import { ExitCode, GoodputError } from '../errors.js';
import { analyzeExperiment, readExperimentFile } from '../experiment/analysis/index.js';
import { embeddedConfiguration } from '../experiment/index.js';
import type { CommandContext } from '../flags/index.js';
import { readSummary, writeOutputFile } from '../results/index.js';
import { serializeAdr } from './document.js';
import { buildExperimentAdr, EXPERIMENT_HEADROOM } from './experiment.js';
import { listAdrFiles } from './files.js';
import { parseRuleText } from './rules.js';
import type { AdrStatus } from './schema.js';

/** Flags of `adr new` that name runs, which an experiment replaces. */
const RUN_FLAGS = ['baseline', 'candidate', 'choose', 'allowDifferent'] as const;

/** What `adr new --experiment` reads of `adr new`'s parsed options (its table is in command.ts). */
interface ExperimentAdrFlags {
  title?: string;
  status: AdrStatus;
  headroom: number;
  rule?: string[];
  rollbackMetric: string;
  rollbackFor: string;
  rollbackAbove?: number;
  context?: string;
  json?: boolean;
}

/** Writes the ADR of the experiment in `experimentArg` into `adrDir`; prints its path (or JSON). */
export async function newAdrFromExperiment(
  ctx: CommandContext<ExperimentAdrFlags>,
  experimentArg: string,
  adrDir: string,
  date: Date,
): Promise<ExitCode> {
  const o = ctx.args.options;
  const clash = RUN_FLAGS.filter((k) => ctx.args.given.has(k));
  if (clash.length > 0) {
    throw new GoodputError(
      'E_USAGE',
      `--experiment takes its runs from the experiment folder; remove ${clash.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}`,
      'goodput adr new --experiment DIR (the winner is chosen by the analysis)',
    );
  }
  const dir = resolve(ctx.cwd, experimentArg);
  const experiment = await readExperimentFile(dir);
  const analysis = await analyzeExperiment(dir);
  const winner = analysis.configurations.find((r) => r.name === analysis.winner.name);
  const source = winner ?? analysis.configurations.find((r) => r.baseline && r.status === 'ok');
  const firstRun = source?.runs.dirs[0];
  if (!source || firstRun === undefined) {
    throw new GoodputError(
      'E_RESULT',
      `${dir}: the baseline has no finished run, so there is nothing to decide from`,
      'finish the experiment (goodput experiment PLAN --resume), then write its ADR',
    );
  }
  const meta = (await readSummary(join(dir, firstRun))).meta;
  const config = experiment.configurations.find((c) => c.name === winner?.name);
  const simEngine =
    config?.target === 'embedded'
      ? (embeddedConfiguration(config.name, config.params).target as { engine?: Record<string, unknown> })
          .engine
      : undefined;
  const link = (p: string) => relative(adrDir, p).replaceAll('\\', '/') || '.';
  const rollback: { metric: string; for: string; above?: number } = {
    metric: o.rollbackMetric,
    for: o.rollbackFor,
  };
  if (typeof o.rollbackAbove === 'number') rollback.above = o.rollbackAbove;
  const adr = buildExperimentAdr({
    analysis,
    ...(typeof o.title === 'string' && o.title !== '' ? { title: o.title } : {}),
    date,
    existing: await listAdrFiles(adrDir),
    status: o.status,
    headroom: ctx.args.given.has('headroom') ? o.headroom : EXPERIMENT_HEADROOM,
    meta,
    ...(simEngine ? { simEngine } : {}),
    rules: (o.rule ?? []).map(parseRuleText),
    rollback,
    ...(typeof o.context === 'string' ? { context: o.context } : {}),
    links: {
      experiment: link(dir),
      configurations: Object.fromEntries(
        experiment.configurations.map((c) => [c.name, link(join(dir, 'runs', c.slug))]),
      ),
    },
  });
  const path = join(adrDir, adr.fileName);
  await writeOutputFile(path, serializeAdr(adr.frontMatter, adr.body), { flag: '--dir', exclusive: true });
  if (o.json === true)
    ctx.stdout.write(
      `${JSON.stringify({ schemaVersion: 1, kind: 'goodput.adr-new', path, id: adr.id, frontMatter: adr.frontMatter }, null, 2)}\n`,
    );
  else ctx.stdout.write(`${path}\n`);
  if (!winner)
    ctx.stderr.write(`adr new: ${analysis.winner.reason}; the ADR records it, and adr lint refuses it\n`);
  return ExitCode.OK;
}
