/**
 * `goodput watch`: flags → WatchConfig → runWatch. Thin; see watcher.ts for the loop.
 *
 * @module
 */

import { resolve as resolvePath } from 'node:path';
import { readAdr } from '../adr/index.js';
import { ExitCode, GoodputError } from '../errors.js';
import {
  type CommandContext,
  defineCommand,
  type FlagValues,
  resolveBenchmarkConfig,
} from '../flags/index.js';
import { gateSpecThresholds, type Threshold } from '../gate/index.js';
import { resolveOtlpConfig } from '../otlp/index.js';
import { summaryMetrics } from '../report/index.js';
import { type BenchmarkConfig, runTokenizer, workloadShape } from '../runner/index.js';
import { toolVersion } from '../util/index.js';
import { loadDataset } from '../workload/index.js';
import { unboundedBudget } from './budget.js';
import { WATCH_COMMAND_OPTIONS } from './options-command.js';
import { parseRollbackFlag, type RollbackRule, rollbackFromAdr } from './rollback.js';
import { defaultTargetName, readTargetsFile, type WatchTarget } from './targets.js';
import { runWatch, type WatchConfig, type WatchIo } from './watcher.js';

/** Requests per round when --requests is not given. */
export const DEFAULT_WATCH_REQUESTS = 10;
/** Output tokens per probe request when --max-tokens is not given (probes stay small). */
export const DEFAULT_WATCH_MAX_TOKENS = 32;
/** Prompt tokens per probe request when --prompt-tokens is not given. */
export const DEFAULT_WATCH_PROMPT_TOKENS = 128;

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

type WatchFlags = FlagValues<typeof WATCH_COMMAND_OPTIONS>;
type WatchContext = CommandContext<WatchFlags>;

export const watchCommand = defineCommand({
  name: 'watch',
  summary: 'Probe endpoints on a schedule: history in SQLite, Prometheus exporter, ADR rollback rule',
  description: [
    'Each round sends a small bounded sample (--requests, default 10; --max-tokens, default 32) and records',
    'TTFT/TPOT/ITL/E2EL distributions, goodput and errors by code in --store. Without --url, the embedded engine.',
    'A round where the prober itself lagged is marked invalid and not held against the target.',
    'SIGTERM / Ctrl-C finishes the round in flight and exits; a restart resumes from the store.',
  ].join('\n'),
  options: WATCH_COMMAND_OPTIONS,
  async run(ctx) {
    const o = ctx.args.options;
    const config = await watchConfig(ctx);
    const quiet = o.quiet === true;
    const json = o.json === true;
    const line = (event: object) => ctx.stdout.write(`${JSON.stringify(event)}\n`);
    const outcome = await runWatch(config, {
      stderr: ctx.stderr,
      signal: ctx.signal,
      cwd: ctx.cwd,
      env: ctx.env,
      quiet,
      ...(json ? jsonLines(line) : {}),
    });
    if (json)
      line({
        schemaVersion: 1,
        kind: 'goodput.watch-end',
        rounds: outcome.rounds,
        rollbacks: outcome.rollbacks,
        store: config.storePath,
      });
    if (!quiet)
      ctx.stderr.write(
        `watch: ${outcome.rounds} round(s), ${outcome.rollbacks} rollback(s); history in ${config.storePath}\n`,
      );
    return ExitCode.OK;
  },
});

/**
 * The watch flags → WatchConfig: the run's own flag resolution, a probe's defaults, the targets,
 * the rollback rule and the exporter's bucket limits. The refusals come in the flags' order of
 * checking: load, budget, dataset, targets, rollback, then the exporter's and GPU flags.
 */
async function watchConfig(ctx: WatchContext): Promise<WatchConfig> {
  const o = ctx.args.options;
  const given = ctx.args.given;
  const base = await resolveBenchmarkConfig(ctx.args, ctx.env, ctx.cwd);
  const load = probeLoad(base, given);
  const sampling = { ...base.sampling };
  if (!given.has('maxTokens')) sampling.maxTokens = DEFAULT_WATCH_MAX_TOKENS;
  const datasetPath = base.workload.datasetPath;
  // Refused before a dataset is read: a budget that cannot bound the rounds.
  const unbounded =
    typeof o.dailyTokenBudget === 'number' ? unboundedBudget(load, datasetPath !== undefined) : undefined;
  if (unbounded) throw unbounded;
  const dataset =
    datasetPath === undefined ? undefined : await loadDataset(datasetPath, undefined, { signal: ctx.signal });
  const promptTokens = given.has('promptTokens') ? base.workload.promptTokens : DEFAULT_WATCH_PROMPT_TOKENS;
  const targets = await watchTargets(ctx, base);
  const { rule, thresholdsMs } = await rollbackAndLimits(ctx, targets);

  if (base.serverMetrics.prometheus)
    throw usage(
      '--metrics-prometheus applies to run: a watch round is too short for Prometheus to scrape within it',
      'give watch the engines themselves with --metrics-url (once per replica)',
    );
  const config: WatchConfig = {
    targets,
    api: base.api,
    sampling,
    promptTokens,
    workload: {
      ...workloadShape(base.workload, load),
      ...(base.workload.cancelRate !== undefined ? { cancelRate: base.workload.cancelRate } : {}),
      ...(base.workload.cancelAfterMs !== undefined ? { cancelAfterMs: base.workload.cancelAfterMs } : {}),
    },
    load,
    ...(dataset ? { dataset } : {}),
    seed: base.seed,
    everyMs: o.every,
    jitter: o.jitter,
    storePath: resolvePath(ctx.cwd, o.store),
    retainMs: o.retain,
    thresholdsMs,
    cooldownMs: o.cooldown,
    serverMetrics: base.serverMetrics,
    ...(base.efficiency ? { efficiency: base.efficiency } : {}),
    toolVersion: toolVersion(),
  };
  await applyOutputFlags(ctx, base, config);
  if (rule) config.rule = rule;
  if (typeof o.onBreach === 'string') config.onBreach = o.onBreach;
  if (typeof o.dailyTokenBudget === 'number') config.dailyTokenBudget = o.dailyTokenBudget;
  if (o.quiet !== true) for (const w of base.warnings ?? []) ctx.stderr.write(`warning: ${w}\n`);
  return config;
}

/** A round's load: a small probe (10 requests, at most 4 at once) unless the flags say otherwise; no stages. */
function probeLoad(base: BenchmarkConfig, given: ReadonlySet<string>): BenchmarkConfig['load'] {
  const load = { ...base.load };
  if (!given.has('requests') && !given.has('duration')) load.requests = DEFAULT_WATCH_REQUESTS;
  // Sessions set the load themselves (how many conversations at once, or per second).
  if (load.mode === 'closed' && !given.has('concurrency') && load.sessions === undefined)
    load.concurrency = Math.min(load.requests ?? 4, 4);
  if (load.stages !== undefined)
    throw usage(
      '--stages shapes a load test over time, but each watch round is a small probe sent the same way',
      'drop --stages (and --stages-of) from watch; ramp a load test with goodput run --stages',
    );
  return load;
}

/** The targets file's targets (the flags' SLO and GPU exporter as their defaults), or the one target of the flags. */
async function watchTargets(ctx: WatchContext, base: BenchmarkConfig): Promise<WatchTarget[]> {
  const o = ctx.args.options;
  const given = ctx.args.given;
  if (typeof o.targets === 'string') {
    if (given.has('url'))
      throw usage('--targets and --url cannot be used together', 'list every target in the file');
    if (given.has('name'))
      throw usage('--targets and --name cannot be used together', 'name each target in the file (name:)');
    const targets = await readTargetsFile(resolvePath(ctx.cwd, o.targets), ctx.env);
    for (const t of targets) {
      if (Object.keys(t.slo).length === 0) t.slo = base.slo;
      if (t.gpuMetricsUrl === undefined && base.gpuMetricsUrl !== undefined)
        t.gpuMetricsUrl = base.gpuMetricsUrl;
    }
    return targets;
  }
  const name = typeof o.name === 'string' ? o.name : base.url ? defaultTargetName(base.url) : 'embedded';
  const t: WatchTarget = { name, slo: base.slo };
  if (base.url !== undefined) t.url = base.url;
  if (base.model !== undefined) t.model = base.model;
  if (base.apiKey !== undefined) t.apiKey = base.apiKey;
  if (base.gpuMetricsUrl !== undefined) t.gpuMetricsUrl = base.gpuMetricsUrl;
  return [t];
}

/**
 * The rollback rule (--adr's rollback:, or --rollback) and the latency limits that become bucket
 * boundaries of the exporter's histograms: every gate or rollback threshold and every target's SLO.
 */
async function rollbackAndLimits(
  ctx: WatchContext,
  targets: readonly WatchTarget[],
): Promise<{ rule: RollbackRule | undefined; thresholdsMs: WatchConfig['thresholdsMs'] }> {
  const o = ctx.args.options;
  let rule: RollbackRule | undefined;
  const thresholdsMs: WatchConfig['thresholdsMs'] = { ttft: [], tpot: [], itl: [], e2el: [] };
  const gateThresholds: Threshold[] = [];
  if (typeof o.adr === 'string') {
    const doc = await readAdr(resolvePath(ctx.cwd, o.adr));
    const fm = doc.frontMatter;
    if (fm.rollback) rule = rollbackFromAdr(fm.rollback, fm.id);
    gateThresholds.push(...gateSpecThresholds(fm.gate ?? {}));
  }
  if (typeof o.rollback === 'string') rule = parseRollbackFlag(o.rollback);
  for (const t of rule ? [...gateThresholds, rule.threshold] : gateThresholds) {
    const lat = t.subject.kind === 'latency' ? t.subject.latency : undefined;
    if (lat === 'ttft' || lat === 'tpot' || lat === 'itl' || lat === 'e2el') thresholdsMs[lat]!.push(t.limit);
  }
  for (const t of targets) {
    if (t.slo.ttftMs) thresholdsMs.ttft!.push(t.slo.ttftMs);
    if (t.slo.tpotMs) thresholdsMs.tpot!.push(t.slo.tpotMs);
    if (t.slo.e2elMs) thresholdsMs.e2el!.push(t.slo.e2elMs);
  }
  if (typeof o.onBreach === 'string' && !rule) {
    throw usage(
      '--on-breach needs a rollback rule',
      "add --adr FILE (with rollback:) or --rollback 'p99(ttft)>500 for 5 windows'",
    );
  }
  return { rule, thresholdsMs };
}

/** OpenTelemetry, GPU scraping, request extras, the tokenizer, rounds and the exporter's port. */
async function applyOutputFlags(
  ctx: WatchContext,
  base: BenchmarkConfig,
  config: WatchConfig,
): Promise<void> {
  const o = ctx.args.options;
  const given = ctx.args.given;
  const otlp = resolveOtlpConfig({ endpoint: o.otlpEndpoint, spans: o.otlpSpans === true }, ctx.env);
  if (otlp) config.otlp = otlp;
  if (config.targets.some((t) => t.gpuMetricsUrl !== undefined)) {
    config.gpuScrapeIntervalMs = o.gpuScrapeInterval;
  } else if (given.has('gpuScrapeInterval'))
    throw usage(
      '--gpu-scrape-interval needs a GPU exporter to scrape',
      'add --gpu-metrics-url http://gpu-node:9400/metrics (or gpu_metrics_url in the targets file)',
    );
  if (base.headers !== undefined) config.headers = base.headers;
  if (base.secrets !== undefined) config.secrets = base.secrets;
  if (base.extraBody !== undefined) config.extraBody = base.extraBody;
  if (base.workload.tokenizer !== undefined || base.workload.chatTemplatePath !== undefined)
    config.tokenizer = await runTokenizer(base, (text) => ctx.stderr.write(`note: ${text}\n`));
  if (o.rounds !== undefined) config.rounds = o.rounds;
  if (o.metricsPort !== undefined) config.metricsPort = o.metricsPort;
  if (given.has('metricsHost')) {
    if (config.metricsPort === undefined)
      throw usage('--metrics-host needs --metrics-port', 'e.g. --metrics-port 9464 --metrics-host 0.0.0.0');
    config.metricsHost = o.metricsHost;
  }
}

/**
 * --json: one line per round, then the lines of the rollbacks it decided (a rollback is decided
 * before its round is reported, so its line is held until the round's).
 */
function jsonLines(line: (event: object) => void): Pick<WatchIo, 'onRound' | 'onRollback'> {
  const breaches = new Map<string, object[]>();
  return {
    onRound: (target, { stored, summary }) => {
      line({
        schemaVersion: 1,
        kind: 'goodput.watch-round',
        target,
        round: stored.round,
        startedAt: new Date(stored.startedAt).toISOString(),
        durationMs: stored.durationMs,
        valid: stored.valid,
        invalidReason: stored.invalidReason ?? null,
        attempted: stored.attempted,
        completed: stored.completed,
        failed: stored.failed,
        good: stored.good,
        errors: stored.errors,
        metrics: summaryMetrics(summary),
        // With a GPU exporter: the window's samples and failed scrapes (0 samples: no gpu_* metric).
        ...(stored.server?.gpu ? { gpu: stored.server.gpu } : {}),
      });
      for (const b of breaches.get(target) ?? []) line(b);
      breaches.delete(target);
    },
    onRollback: (evidence, commandExitCode) =>
      breaches.set(evidence.target, [
        ...(breaches.get(evidence.target) ?? []),
        commandExitCode === undefined ? evidence : { ...evidence, commandExitCode },
      ]),
  };
}
