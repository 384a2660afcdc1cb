/**
 * `goodput adr new | lint | check | enforce`: thin wiring of the ADR module to files, git
 * and the terminal. Violations exit ADR_VIOLATION (5); invalid usage exits 2.
 *
 * @module
 */

import { basename, join, relative, resolve } from 'node:path';
import { compareRuns, loadRun } from '../compare/index.js';
import { ExitCode, GoodputError } from '../errors.js';
import type { CommandContext } from '../flags/index.js';
import { defineCommand } from '../flags/index.js';
import { writeOutputFile } from '../results/index.js';
import { buildAdr } from './build.js';
import { evaluateChange, gitChanges, readProjectConfig } from './check.js';
import { serializeAdr } from './document.js';
import { enforceFile } from './enforce.js';
import { DEFAULT_ADR_DIR, listAdrFiles, readTextFile } from './files.js';
import { lintAdrs } from './lint.js';
import { newAdrFromExperiment } from './new-experiment-command.js';
import { parseRuleText } from './rules.js';
import { ADR_STATUSES, formatRule } from './schema.js';

const JSON_OPTION = {
  type: 'boolean',
  group: 'Output',
  description: 'Print the result as one JSON document on stdout (schemaVersion 1)',
} as const;

function writeJson(ctx: Pick<CommandContext, 'stdout'>, kind: string, body: Record<string, unknown>): void {
  ctx.stdout.write(`${JSON.stringify({ schemaVersion: 1, kind, ...body }, null, 2)}\n`);
}

const DIR_OPTION = {
  type: 'string',
  valueName: 'DIR',
  description: `ADR directory [default: adrDir of goodput.config.json, else ${DEFAULT_ADR_DIR}]`,
} as const;

async function adrDir(ctx: CommandContext<{ dir?: string }>): Promise<string> {
  const given = ctx.args.options.dir;
  if (typeof given === 'string') return resolve(ctx.cwd, given);
  const config = await readProjectConfig(ctx.cwd);
  return resolve(ctx.cwd, config.adrDir ?? DEFAULT_ADR_DIR);
}

/** A flag the subcommand needs: its text, or a usage error naming it. */
function required(ctx: CommandContext, value: string | undefined, flag: string, example: string): string {
  if (value === undefined || value === '') {
    throw new GoodputError(
      'E_USAGE',
      `goodput adr ${ctx.args.subcommand} needs --${flag}`,
      `e.g. ${example}`,
    );
  }
  return value;
}

function parseDate(text: string | undefined): Date {
  if (text === undefined) return new Date();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(`${text}T00:00:00Z`))) {
    throw new GoodputError('E_USAGE', `--date must be YYYY-MM-DD, got '${text}'`, 'e.g. --date 2025-01-02');
  }
  return new Date(`${text}T00:00:00Z`);
}

const newCommand = defineCommand({
  name: 'new',
  summary: 'Write a new ADR from a baseline and candidate runs (docs/adr/ADR-YYYYMMDD-NNN-slug.md)',
  options: {
    title: {
      type: 'string',
      valueName: 'TEXT',
      description: 'What was decided, in a few words (required)',
    },
    baseline: {
      type: 'string',
      valueName: 'RUN',
      description: 'Result directory of the baseline (required)',
    },
    experiment: {
      type: 'string',
      valueName: 'DIR',
      description:
        'Write the ADR of an experiment folder (goodput experiment): every configuration in the matrix, the winner, rules from its flags, the gate from its interval across runs (headroom 0.1)',
    },
    candidate: {
      type: 'list',
      valueName: 'RUN',
      description: 'Result directory of an experiment (repeatable)',
    },
    dir: DIR_OPTION,
    status: {
      type: 'string',
      choices: ADR_STATUSES,
      default: 'proposed',
      description: 'Status of the new ADR',
    },
    rule: {
      type: 'list',
      valueName: 'RULE',
      description:
        "Serving parameter that must hold (repeatable): enable-chunked-prefill, max-num-batched-tokens=2048, '!enforce-eager'. Rules are also derived from the runs' serving.args labels",
    },
    choose: {
      type: 'integer',
      min: 1,
      why: 'candidates count from 1',
      valueName: 'N',
      description: 'Chosen experiment, 1-based [default: the best by verdicts]',
    },
    headroom: {
      type: 'number',
      default: 0.2,
      description: 'Gate headroom over the chosen run: p99 limits × (1+h)',
    },
    rollbackMetric: {
      type: 'string',
      default: 'ttft_p99_ms',
      description: 'Metric of the rollback rule',
    },
    rollbackAbove: {
      type: 'number',
      description: 'Rollback threshold [default: 1.5 × the TTFT p99 gate]',
    },
    rollbackFor: {
      type: 'string',
      default: '5m',
      description: 'How long the metric must stay above it',
    },
    context: {
      type: 'string',
      valueName: 'TEXT',
      description: 'The symptom in words, for the Context section',
    },
    date: {
      type: 'string',
      valueName: 'YYYY-MM-DD',
      description: 'Date of the record [default: today, UTC]',
    },
    allowDifferent: {
      type: 'boolean',
      description: 'Accept runs whose sampling, workload or load differ',
    },
    resamples: {
      type: 'integer',
      default: 2000,
      description: 'Bootstrap resamples for the verdicts',
    },
    json: {
      ...JSON_OPTION,
      description:
        'Print {schemaVersion: 1, kind: "goodput.adr-new", path, id, frontMatter} instead of the path',
    },
  },
  async run(ctx) {
    const o = ctx.args.options;
    if (typeof o.experiment === 'string')
      return newAdrFromExperiment(ctx, o.experiment, await adrDir(ctx), parseDate(o.date));
    const title = required(ctx, o.title, 'title', 'goodput adr new --title "Enable chunked prefill" ...');
    const baselinePath = required(ctx, o.baseline, 'baseline', '--baseline goodput-results/base');
    const candidatePaths = o.candidate ?? [];
    if (candidatePaths.length === 0) {
      throw new GoodputError(
        'E_USAGE',
        'goodput adr new needs at least one --candidate',
        'e.g. --candidate goodput-results/exp1',
      );
    }
    const rules = (o.rule ?? []).map(parseRuleText);
    const choose = o.choose;
    // At least 1 is the option's bound; at most the number of candidates is checked here.
    if (choose !== undefined && choose > candidatePaths.length) {
      throw new GoodputError(
        'E_USAGE',
        `--choose must be between 1 and ${candidatePaths.length}`,
        'count candidates from 1',
      );
    }
    const dir = await adrDir(ctx);
    const baseline = await loadRun(resolve(ctx.cwd, baselinePath), 'Baseline');
    const candidates = await Promise.all(
      candidatePaths.map((p, i) => loadRun(resolve(ctx.cwd, p), `Exp-${i + 1}`)),
    );
    const report = compareRuns([baseline, ...candidates], {
      resamples: o.resamples,
      allowDifferent: o.allowDifferent === true,
    });
    const link = (p: string) => relative(dir, resolve(ctx.cwd, p)).replaceAll('\\', '/') || '.';
    const rollback: { metric: string; for: string; above?: number } = {
      metric: o.rollbackMetric,
      for: o.rollbackFor,
    };
    if (typeof o.rollbackAbove === 'number') rollback.above = o.rollbackAbove;
    const adr = buildAdr({
      title,
      date: parseDate(o.date),
      existing: await listAdrFiles(dir),
      status: o.status,
      baseline,
      candidates,
      report,
      chosen: choose === undefined ? undefined : choose - 1,
      headroom: o.headroom,
      rules,
      rollback,
      context: o.context,
      links: { baseline: link(baselinePath), candidates: candidatePaths.map(link) },
    });
    const path = join(dir, adr.fileName);
    await writeOutputFile(path, serializeAdr(adr.frontMatter, adr.body), { flag: '--dir', exclusive: true });
    if (o.json === true)
      writeJson(ctx, 'goodput.adr-new', { path, id: adr.id, frontMatter: adr.frontMatter });
    else ctx.stdout.write(`${path}\n`);
    return ExitCode.OK;
  },
});

const lintCommand = defineCommand({
  name: 'lint',
  summary: 'Check that every ADR parses and that accepted ADRs carry an executable rule or threshold',
  positionals: [
    { name: 'FILE', description: 'ADR files [default: every ADR in the directory]', variadic: true },
  ],
  options: { dir: DIR_OPTION, json: JSON_OPTION },
  async run(ctx) {
    const json = ctx.args.options.json === true;
    let paths = ctx.args.positionals.map((p) => resolve(ctx.cwd, p));
    if (paths.length === 0) {
      const dir = await adrDir(ctx);
      paths = (await listAdrFiles(dir)).map((n) => join(dir, n));
      if (paths.length === 0) {
        if (json) writeJson(ctx, 'goodput.adr-lint', { passed: true, results: [] });
        else ctx.stdout.write(`no ADR in ${dir}\n`);
        return ExitCode.OK;
      }
    }
    const files = await Promise.all(
      paths.map(async (path) => ({ path, text: await readTextFile(path, 'ADR') })),
    );
    const results = lintAdrs(files);
    const failed = results.filter((r) => r.problems.length > 0).length;
    if (json) {
      writeJson(ctx, 'goodput.adr-lint', {
        passed: failed === 0,
        results: results.map((r) => ({
          path: relative(ctx.cwd, r.path) || basename(r.path),
          id: r.doc?.frontMatter.id ?? null,
          problems: r.problems,
        })),
      });
      return failed === 0 ? ExitCode.OK : ExitCode.ADR_VIOLATION;
    }
    for (const r of results) {
      const name = relative(ctx.cwd, r.path) || basename(r.path);
      if (r.problems.length === 0) ctx.stdout.write(`ok    ${name}\n`);
      for (const p of r.problems) ctx.stdout.write(`FAIL  ${name}: ${p}\n`);
    }
    if (failed === 0) return ExitCode.OK;
    ctx.stderr.write(`adr lint: ${failed} of ${results.length} ADR(s) failed\n`);
    return ExitCode.ADR_VIOLATION;
  },
});

const checkCommand = defineCommand({
  name: 'check',
  summary: 'Fail when the change since a git ref touches serving-parameter files and adds no ADR',
  options: {
    base: {
      type: 'string',
      valueName: 'REF',
      description: 'Git ref to compare with, e.g. origin/main (required)',
    },
    globs: {
      type: 'list',
      valueName: 'GLOB',
      description: 'Serving-parameter files (repeatable) [default: servingParams of goodput.config.json]',
    },
    dir: DIR_OPTION,
    json: JSON_OPTION,
  },
  async run(ctx) {
    const base = required(ctx, ctx.args.options.base, 'base', 'goodput adr check --base origin/main');
    const { root, changes } = await gitChanges(ctx.cwd, base);
    const config = await readProjectConfig(root);
    const globs = ctx.args.options.globs ?? config.servingParams ?? [];
    if (globs.length === 0) {
      throw new GoodputError(
        'E_USAGE',
        'no serving-parameter globs: adr check does not know which files hold serving parameters',
        'pass --globs "deploy/**/*.yaml" or set "servingParams" in goodput.config.json at the repository root',
      );
    }
    const dirOption = ctx.args.options.dir;
    const dir =
      typeof dirOption === 'string'
        ? relative(root, resolve(ctx.cwd, dirOption))
        : (config.adrDir ?? DEFAULT_ADR_DIR);
    const outcome = evaluateChange(changes, globs, dir);
    if (ctx.args.options.json === true) {
      writeJson(ctx, 'goodput.adr-check', {
        passed: outcome.passed,
        base,
        adrDir: dir,
        servingFiles: outcome.servingFiles,
        newAdrs: outcome.newAdrs,
      });
      return outcome.passed ? ExitCode.OK : ExitCode.ADR_VIOLATION;
    }
    if (outcome.servingFiles.length === 0) {
      ctx.stdout.write(`adr check: no serving-parameter file changed since ${base}\n`);
      return ExitCode.OK;
    }
    const files = outcome.servingFiles.join(', ');
    if (outcome.passed) {
      ctx.stdout.write(
        `adr check: serving parameters changed (${files}); recorded by ${outcome.newAdrs.join(', ')}\n`,
      );
      return ExitCode.OK;
    }
    ctx.stdout.write(`adr check: serving parameters changed since ${base} without a new ADR: ${files}\n`);
    ctx.stderr.write(
      `hint: measure the change (goodput run / compare) and record it with goodput adr new, adding the ADR under ${dir}/\n`,
    );
    return ExitCode.ADR_VIOLATION;
  },
});

const enforceCommand = defineCommand({
  name: 'enforce',
  summary: 'Check a serving configuration against the rules of the latest accepted ADR (or --adr)',
  options: {
    config: {
      type: 'string',
      valueName: 'FILE',
      description:
        'Serving configuration: a command-line file, a Kubernetes manifest or compose file (YAML/JSON) (required)',
    },
    adr: {
      type: 'string',
      valueName: 'FILE',
      description: 'ADR whose rules apply [default: the latest accepted one]',
    },
    dir: DIR_OPTION,
    json: JSON_OPTION,
  },
  async run(ctx) {
    const configPath = resolve(
      ctx.cwd,
      required(ctx, ctx.args.options.config, 'config', 'goodput adr enforce --config deploy/vllm.yaml'),
    );
    const adrPath =
      typeof ctx.args.options.adr === 'string' ? resolve(ctx.cwd, ctx.args.options.adr) : undefined;
    const result = await enforceFile(configPath, adrPath ?? { dir: await adrDir(ctx) });
    if (ctx.args.options.json === true) {
      writeJson(ctx, 'goodput.adr-enforce', {
        passed: result.violations.length === 0,
        adrId: result.adrId,
        config: relative(ctx.cwd, configPath) || basename(configPath),
        violations: result.violations.map((v) => ({
          rule: formatRule(v.rule),
          found: v.found ?? null,
          problem: v.problem,
          source: v.source,
        })),
      });
    } else for (const line of result.lines) ctx.stdout.write(`${line}\n`);
    return result.violations.length === 0 ? ExitCode.OK : ExitCode.ADR_VIOLATION;
  },
});

export const adrCommand = defineCommand({
  name: 'adr',
  summary: 'Architecture Decision Records with executable rules: new, lint, check, enforce',
  description: [
    'new: write an ADR from runs (front matter: workload, gate thresholds, rules, rollback).',
    'lint: every ADR parses; an accepted ADR needs a rule or a gate threshold.',
    'check: serving-parameter files changed since --base need a new ADR.',
    'enforce: a serving configuration obeys the rules of the latest accepted ADR.',
    'Exit codes: 0 ok, 5 ADR violation, 2 invalid usage.',
  ].join('\n'),
  options: {},
  subcommands: [newCommand, lintCommand, checkCommand, enforceCommand],
  async run() {
    throw new GoodputError(
      'E_USAGE',
      'goodput adr needs a subcommand: new, lint, check, enforce',
      'run goodput adr --help',
    );
  },
});
