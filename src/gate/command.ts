/**
 * `goodput gate`: run a benchmark (or read one with --from) and check thresholds from
 * flags, `--threshold` expressions or an ADR. Exit codes: 0 pass, 4 breach, 2 invalid usage,
 * 3 endpoint not measurable, 130 interrupted.
 *
 * @module
 */

import { resolve } from 'node:path';
import { type AdrDocument, adrWorkloadAsMeta, applyAdrWorkload, readAdr } from '../adr/index.js';
import { comparabilityDiffs, describeDiff, importedRun } from '../compare/index.js';
import { ExitCode, GoodputError } from '../errors.js';
import {
  BENCHMARK_OPTIONS,
  type CommandContext,
  defineCommand,
  defineOptions,
  type FlagValues,
  type NumberOption,
  type ParsedArgs,
  resolveBenchmarkConfig,
} from '../flags/index.js';
import { importedValue, resultNoun, runCaveats, TOOL_DESCRIPTIONS } from '../metrics/index.js';
import { readRunSource, readSummary, writeOutputFile } from '../results/index.js';
import { runBenchmark, unmeasurableError } from '../runner/index.js';
import { type ImportedSummary, type RunSummary, SCHEMA_VERSION } from '../types.js';
import { toolVersion } from '../util/index.js';
import {
  evaluateThresholds,
  evaluateThresholdsWith,
  gateSpecThresholds,
  missingClasses,
  SHORTHAND_THRESHOLDS,
  shorthandThresholds,
} from './evaluate.js';
import { formatThreshold, parseThresholds, type Threshold } from './grammar.js';
import { gateOutcomesJson, renderGateLines, renderGateMarkdown, renderJunit } from './render.js';

/**
 * One flag per shorthand threshold of the catalogue (`--max-ttft-p99-ms N`), by key. The keys
 * come from the catalogue, so they are not in the type of gate's parsed options:
 * `shorthandValues` is the one read of them.
 */
const SHORTHAND_OPTIONS: Readonly<Record<string, NumberOption>> = Object.fromEntries(
  SHORTHAND_THRESHOLDS.map((s): [string, NumberOption] => [
    s.key,
    {
      type: 'number',
      group: 'Gate',
      valueName: 'N',
      description: `Shorthand for '${s.template(Number.NaN).replace('NaN', 'N')}'`,
    },
  ]),
);

const GATE_OPTIONS = defineOptions({
  threshold: {
    type: 'list',
    valueName: 'EXPR',
    group: 'Gate',
    description:
      "Threshold, repeatable: 'p99(ttft)<350', 'p50(tpot)<=40', 'attainment>=0.95', 'error_rate<0.01'",
  },
  ...SHORTHAND_OPTIONS,
  adr: {
    type: 'string',
    valueName: 'FILE',
    group: 'Gate',
    description:
      "Take the gate thresholds and the workload (load, prompts, sampling, seed) from this ADR's front matter",
  },
  from: {
    type: 'string',
    valueName: 'DIR',
    group: 'Gate',
    description: 'Evaluate an existing result directory instead of running the load',
  },
  junit: {
    type: 'string',
    valueName: 'FILE',
    group: 'Gate',
    description: 'Write JUnit XML, one test case per threshold',
  },
  allowDifferent: {
    type: 'boolean',
    group: 'Gate',
    description: "With --adr --from: accept a result whose workload differs from the ADR's",
  },
});

/** Flags that shape the load: with --adr the load is the ADR's, so these are refused. */
const LOAD_SHAPING_KEYS = [
  'promptTokens',
  'promptTokensRange',
  'systemPromptTokens',
  'dataset',
  'trace',
  'traceFormat',
  'traceColumns',
  'traceTimeUnit',
  'traceBlockSize',
  'timeScale',
  'stages',
  'stagesOf',
  'maxTokens',
  'ignoreEos',
  'temperature',
  'topP',
  'seed',
  'cancelAfterMs',
  'cancelRate',
  'concurrency',
  'rate',
  'burstiness',
  'maxConcurrency',
  'requests',
  'duration',
  'warmup',
  'slo',
  'api',
];

/** Every option of gate, parsed (the shorthands' values are read by `shorthandValues`). */
const GATE_COMMAND_OPTIONS = defineOptions({ ...BENCHMARK_OPTIONS, ...GATE_OPTIONS });
type GateFlags = FlagValues<typeof GATE_COMMAND_OPTIONS>;

/** The shorthand flags given, by key (`maxTtftP99Ms` → 350): keys known only from the catalogue. */
function shorthandValues(args: ParsedArgs<GateFlags>): Record<string, number> {
  const options: Readonly<Record<string, unknown>> = args.options;
  const values: Record<string, number> = {};
  for (const { key } of SHORTHAND_THRESHOLDS) {
    const v = options[key];
    if (typeof v === 'number') values[key] = v;
  }
  return values;
}

function collectThresholds(args: ParsedArgs<GateFlags>, adr: AdrDocument | undefined): Threshold[] {
  const thresholds = [
    ...(adr ? gateSpecThresholds(adr.frontMatter.gate ?? {}) : []),
    ...shorthandThresholds(shorthandValues(args)),
    ...parseThresholds(args.options.threshold ?? []),
    ...parseThresholds(args.positionals),
  ];
  if (thresholds.length === 0) {
    throw new GoodputError(
      'E_USAGE',
      'goodput gate has no threshold to check',
      "add --threshold 'p99(ttft)<350', a shorthand such as --max-ttft-p99-ms 350, or --adr FILE",
    );
  }
  return thresholds;
}

/** --progress and --progress-every show a run: with --from nothing runs, so they are refused. */
function refuseProgressWithFrom(args: ParsedArgs<GateFlags>): void {
  const given = (['progress', 'progressEvery'] as const).filter((k) => args.given.has(k));
  if (given.length === 0) return;
  const flags = given.map((k) => (k === 'progress' ? '--progress' : '--progress-every')).join(' and ');
  throw new GoodputError(
    'E_USAGE',
    `${flags} show a run's progress, and with --from nothing runs`,
    `drop ${flags}, or gate without --from to run the load`,
  );
}

async function measuredSummary(
  ctx: CommandContext<GateFlags>,
  adr: AdrDocument | undefined,
): Promise<{ summary: RunSummary; dir: string }> {
  const o = ctx.args.options;
  if (o.from !== undefined) {
    const dir = resolve(ctx.cwd, o.from);
    const summary = await readSummary(dir);
    if (adr?.frontMatter.workload && o.allowDifferent !== true) {
      const diffs = comparabilityDiffs(
        adrWorkloadAsMeta(adr.frontMatter.workload, summary.meta),
        summary.meta,
      );
      if (diffs.length > 0) {
        throw new GoodputError(
          'E_INCOMPARABLE',
          `${dir} was not measured under ${adr.frontMatter.id}'s workload:\n  ${diffs.map(describeDiff).join('\n  ')}`,
          'run the gate without --from to measure the ADR workload, or pass --allow-different',
        );
      }
    }
    return { summary, dir };
  }
  if (adr?.frontMatter.workload) {
    const clash = LOAD_SHAPING_KEYS.filter((k) => ctx.args.given.has(k));
    if (clash.length > 0) {
      throw new GoodputError(
        'E_USAGE',
        `with --adr the workload and load come from ${adr.frontMatter.id}; remove ${clash.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}`,
        'the ADR thresholds were measured under its own load: change the ADR, or gate without --adr',
      );
    }
  }
  let config = await resolveBenchmarkConfig(ctx.args, ctx.env, ctx.cwd);
  if (adr?.frontMatter.workload) config = applyAdrWorkload(config, adr.frontMatter.workload);
  const quiet = o.quiet === true;
  if (!quiet) for (const w of config.warnings ?? []) ctx.stderr.write(`warning: ${w}\n`);
  return runBenchmark(config, {
    stderr: ctx.stderr,
    signal: ctx.signal,
    cwd: ctx.cwd,
    quiet,
    ...(o.progress !== undefined ? { progress: o.progress } : {}),
    ...(o.progressEvery !== undefined ? { progressEveryMs: o.progressEvery } : {}),
    version: toolVersion(),
    ...(ctx.argv ? { command: ctx.argv } : {}),
  });
}

/**
 * `gate --from` another tool's result (a vLLM `--save-result` JSON, a guidellm benchmark, an
 * AIPerf or GenAI-Perf export, or a directory `goodput import` wrote): each threshold reads the
 * figure the file states; a figure it does not hold fails the threshold and is named, since a
 * gate that cannot see a figure must not pass it.
 */
async function gateImported(
  ctx: CommandContext<GateFlags>,
  path: string,
  imported: ImportedSummary,
  thresholds: readonly Threshold[],
  adr: AdrDocument | undefined,
): Promise<ExitCode> {
  const o = ctx.args.options;
  const noun = resultNoun(imported.source.tool);
  if (typeof o.junit === 'string') {
    // JUnit wants the run's start time, which other tools state in formats of their own.
    throw new GoodputError('E_USAGE', '--junit needs a goodput run', `drop --junit when gating ${noun}`);
  }
  if (adr?.frontMatter.workload && o.allowDifferent !== true) {
    throw new GoodputError(
      'E_INCOMPARABLE',
      `${path} is ${noun}: its workload cannot be checked against ${adr.frontMatter.id}'s`,
      'pass --allow-different to gate it on the ADR thresholds anyway, or run the gate without --from',
    );
  }
  // Another tool's result has no traffic classes: a class's threshold finds no figure, and fails.
  const gate = evaluateThresholdsWith(thresholds, (t) =>
    t.class === undefined ? importedValue(imported, t.metric) : undefined,
  );
  const missing = gate.outcomes.filter((x) => x.value === undefined).map((x) => formatThreshold(x.threshold));
  if (o.json === true) {
    const report = {
      schemaVersion: SCHEMA_VERSION,
      kind: 'goodput.gate',
      passed: gate.passed,
      source: imported.source.tool,
      file: path,
      ...(imported.source.benchmark ? { benchmark: imported.source.benchmark } : {}),
      adr: adr?.frontMatter.id,
      outcomes: gateOutcomesJson(gate),
    };
    ctx.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    ctx.stdout.write(renderGateLines(gate));
  }
  for (const m of missing) {
    ctx.stderr.write(
      `warning: ${m}: ${path} (${TOOL_DESCRIPTIONS[imported.source.tool]}) does not hold this figure, so the threshold fails\n`,
    );
  }
  const stepSummary = ctx.env.GITHUB_STEP_SUMMARY;
  if (stepSummary) {
    const name = `${noun.replace(/^an? /, '')} ${path}${imported.source.benchmark ? `#${imported.source.benchmark.index}` : ''}`;
    await appendStepSummary(ctx, stepSummary, renderGateMarkdown(gate, name));
  }
  return gate.passed ? ExitCode.OK : ExitCode.THRESHOLD_BREACH;
}

/** Appends to the CI runner's job summary; if that fails, says so and keeps the gate's own exit code. */
async function appendStepSummary(ctx: CommandContext, path: string, markdown: string): Promise<void> {
  await writeOutputFile(path, markdown, { flag: '$GITHUB_STEP_SUMMARY', append: true }).catch(
    (e: GoodputError) => {
      ctx.stderr.write(`warning: the job summary was not written (${e.message}); the gate's result stands\n`);
    },
  );
}

export const gateCommand = defineCommand({
  name: 'gate',
  summary: 'Run (or read) a benchmark and check thresholds: exit 4 on a breach, 3 when unmeasurable',
  description: [
    'Thresholds come from --threshold expressions, the shorthand flags, or an ADR (--adr FILE), all combined.',
    "Grammar: STAT(LATENCY) OP NUMBER [ms|s] or NAME OP NUMBER, e.g. 'p99(ttft)<350', 'error_rate<0.01'; {class=NAME} after the subject reads a traffic class's figure: 'p99(ttft){class=chat}<500'.",
    'Exit codes: 0 every threshold holds; 4 a threshold is breached; 2 invalid usage or threshold;',
    '3 the endpoint could not be measured (no request succeeded); 130 interrupted.',
    'Prints [GATE PASS]/[GATE FAIL] lines; with $GITHUB_STEP_SUMMARY set, appends a Markdown summary there.',
  ].join('\n'),
  positionals: [
    {
      name: 'THRESHOLD',
      description: "Threshold expressions, as --threshold takes them: 'p99(ttft)<350'",
      variadic: true,
    },
  ],
  options: GATE_COMMAND_OPTIONS,
  async run(ctx) {
    const o = ctx.args.options;
    const adr = o.adr !== undefined ? await readAdr(resolve(ctx.cwd, o.adr)) : undefined;
    const thresholds = collectThresholds(ctx.args, adr); // invalid thresholds fail before any load runs
    if (o.from !== undefined) {
      refuseProgressWithFrom(ctx.args);
      const source = await readRunSource(resolve(ctx.cwd, o.from));
      if (source.kind !== 'goodput')
        return gateImported(ctx, source.path, importedRun(source), thresholds, adr);
    }
    const { summary, dir } = await measuredSummary(ctx, adr);
    if (ctx.signal.aborted) {
      ctx.stderr.write(`interrupted: what was measured is in ${dir}; the gate was not evaluated\n`);
      return ExitCode.INTERRUPTED;
    }
    const result = evaluateThresholds(thresholds, summary);
    const context = `Run \`${summary.meta.runId}\` (${dir})${adr ? `, thresholds from ${adr.frontMatter.id}` : ''}`;
    if (o.json === true) {
      const report = {
        schemaVersion: SCHEMA_VERSION,
        kind: 'goodput.gate',
        passed: result.passed,
        runId: summary.meta.runId,
        dir,
        adr: adr?.frontMatter.id,
        outcomes: gateOutcomesJson(result),
        caveats: runCaveats(summary),
      };
      ctx.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      ctx.stdout.write(renderGateLines(result));
      // A pass or a breach on figures the client limited is about the client: say so beside it.
      for (const c of runCaveats(summary)) ctx.stderr.write(`warning: caveat ${c.id}: ${c.text}\n`);
    }
    const classes = (summary.classes ?? []).map((c) => c.name);
    for (const name of missingClasses(thresholds, summary))
      ctx.stderr.write(
        `warning: the run has no traffic class '${name}' (${classes.length > 0 ? `its classes: ${classes.join(', ')}` : 'it ran without --class'}), so its thresholds fail\n`,
      );
    if (typeof o.junit === 'string') {
      const path = resolve(ctx.cwd, o.junit);
      await writeOutputFile(
        path,
        renderJunit(result, {
          timestamp: summary.meta.startedAt,
          properties: { runId: summary.meta.runId, dir },
        }),
        { flag: '--junit', suggest: 'gate.xml' },
      );
    }
    const stepSummary = ctx.env.GITHUB_STEP_SUMMARY;
    if (stepSummary) await appendStepSummary(ctx, stepSummary, renderGateMarkdown(result, context));
    const unmeasurable = unmeasurableError(summary, dir);
    if (unmeasurable) throw unmeasurable;
    return result.passed ? ExitCode.OK : ExitCode.THRESHOLD_BREACH;
  },
});
