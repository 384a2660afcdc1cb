/**
 * runWatch: the probing loop of `goodput watch`. Rounds start on a seeded, jittered schedule
 * (t0 + k·every ± jitter·every on the monotonic clock, so several watchers do not align, no
 * drift accumulates and a wall clock stepped back does not hold rounds back;
 * ticks missed while a long round ran are skipped, not crowded). Each round probes every
 * target at once, writes the round to the store, feeds the exporter and the rollback
 * tracker, and saves the tracker's state, so that a restart resumes round numbering, the
 * streak of bad windows, the cooldown and the daily token budget. Aborting `signal`
 * (SIGTERM, Ctrl-C) lets the round in flight finish, then returns.
 *
 * What it is given is in config.ts, each target's preparation in probe.ts, the daily budget in
 * budget.ts, a rollback as it triggers in trigger.ts.
 *
 * @module
 */

import type { Client } from '../client/index.js';
import { redactUrl } from '../config/index.js';
import { GoodputError } from '../errors.js';
import { metric } from '../metrics/index.js';
import { describeOtlpOutcome, OtlpExport } from '../otlp/index.js';
import { type PreparedTarget, sleepUntil } from '../runner/index.js';
import { WatchStore } from '../store/index.js';
import type { RequestRecord, RunSummary } from '../types.js';
import { createRng, createTokenizer } from '../workload/index.js';
import { withoutKeys } from './breach.js';
import { unboundedBudget, worstRequestTokens } from './budget.js';
import type { WatchConfig, WatchIo, WatchOutcome } from './config.js';
import { WatchExporter } from './exporter.js';
import { DEFAULT_GPU_SCRAPE_INTERVAL_MS, GpuWatch } from './gpu.js';
import { type LiveTarget, prepareProbe } from './probe.js';
import { stepRollback, windowIsBad, windowsNeeded } from './rollback.js';
import { type RoundResult, roundTokenBound, runRound } from './round.js';
import { triggerRollback } from './trigger.js';

export type { WatchConfig, WatchIo, WatchOutcome } from './config.js';

/** The round line's GPU part: the catalogue's utilisation, or that the window had no sample. */
function gpuText(summary: RunSummary): string {
  const gpu = summary.server?.gpu;
  if (!gpu) return '';
  if (gpu.samples === 0) return ', no GPU sample';
  const util = metric('gpu_util').read(summary);
  return util === undefined ? '' : `, GPU util ${(util * 100).toFixed(0)}%`;
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The exporter of `--metrics-port`, listening, with every target declared (undefined: none asked). */
async function startExporter(
  config: WatchConfig,
  io: WatchIo,
  declare: (e: WatchExporter) => void,
  log: (text: string) => void,
): Promise<WatchExporter | undefined> {
  if (config.metricsPort === undefined) return undefined;
  const exporter = new WatchExporter({ thresholdsMs: config.thresholdsMs });
  declare(exporter);
  const host = config.metricsHost ?? '127.0.0.1';
  const port = await exporter.listen(config.metricsPort, host).catch(async (e: NodeJS.ErrnoException) => {
    await exporter.close().catch(() => undefined);
    throw new GoodputError(
      'E_USAGE',
      `the exporter cannot listen on ${host}:${config.metricsPort} (${e.code ?? e.message})`,
      e.code === 'EADDRINUSE'
        ? 'pick another --metrics-port (0 = any free port)'
        : '--metrics-host must be an address of this machine: 127.0.0.1, 0.0.0.0, :: or one of its interfaces',
    );
  });
  log(`exporter: http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`);
  io.onListening?.(port);
  return exporter;
}

/** What a round of every target shares: the watcher's parts it feeds. */
interface RoundContext {
  config: WatchConfig;
  io: WatchIo;
  store: WatchStore;
  feed: WatchExporter | undefined;
  log: (text: string) => void;
  /** Consecutive bad windows the rollback rule needs. */
  needed: number;
  /** The environment of --on-breach: the watcher's, without its keys. */
  breachEnv: Record<string, string>;
}

/** Feeds one target's round to the exporter, the log and the rollback rule, and saves its state. */
async function recordRound(l: LiveTarget, result: RoundResult, ctx: RoundContext, outcome: WatchOutcome) {
  const { config, store, feed, log } = ctx;
  const { stored, summary } = result;
  store.addRound(stored);
  if (feed) {
    for (const name of ['ttft', 'tpot', 'itl', 'e2el'] as const) {
      for (const ms of result.values[name]) feed.observeLatency(l.probe.name, l.probe.model, name, ms);
    }
    const endedAt = Date.now();
    feed.endRound(l.probe.name, l.probe.model, {
      valid: stored.valid,
      // The round summary's attainment, as gate and the rollback rule read it (catalogue).
      attainment: metric('attainment').read(summary) ?? Number.NaN,
      proberLagMs: stored.proberLagMs,
      endedAt,
      server: stored.server,
    });
    if (stored.valid) feed.setRoundMetrics(l.probe.name, l.probe.model, summary, endedAt);
  }
  const errs = Object.entries(stored.errors)
    .map(([c, n]) => `${c}×${n}`)
    .join(' ');
  log(
    `${l.probe.name} round ${stored.round}: ${stored.completed}/${stored.attempted} ok, ` +
      `ttft p99 ${summary.latency.ttft.p99.toFixed(1)} ms, tpot p99 ${summary.latency.tpot.p99.toFixed(1)} ms` +
      `${gpuText(summary)}${errs ? `, errors ${errs}` : ''}${stored.valid ? '' : ` [invalid: ${stored.invalidReason}]`}`,
  );
  if (config.rule) {
    const verdict = windowIsBad(config.rule, summary);
    const window = { round: stored.round, startedAt: stored.startedAt, valid: stored.valid };
    const step = stepRollback(
      l.state.rollback,
      { ...window, bad: verdict.bad, value: verdict.value },
      ctx.needed,
      config.cooldownMs,
      Date.now(),
    );
    l.state.rollback = step.state;
    if (step.trigger && step.evidence) {
      outcome.rollbacks++;
      await triggerRollback(l, config, step.evidence, ctx.needed, ctx.breachEnv, ctx.io, store, feed, log);
    }
  }
  store.saveState(l.probe.name, l.state);
  ctx.io.onRound?.(l.probe.name, result);
}

/** Runs the watch loop until `rounds` are done or the signal aborts; see the module comment. */
export async function runWatch(config: WatchConfig, io: WatchIo): Promise<WatchOutcome> {
  const log = (text: string) => {
    if (!io.quiet) io.stderr.write(`${text}\n`);
  };
  if (config.dailyTokenBudget !== undefined) {
    const unbounded = unboundedBudget(config.load, config.dataset !== undefined);
    if (unbounded) throw unbounded;
  }
  const store = WatchStore.open(config.storePath);
  const stale = store.tookOverLockOf;
  if (stale)
    log(`store: took over the lock of watch pid ${stale.pid} (since ${stale.since}), which no longer runs`);
  const own: { targets: PreparedTarget[]; clients: Client[] } = { targets: [], clients: [] };
  let exporter: WatchExporter | undefined;
  const outcome: WatchOutcome = { rounds: 0, rollbacks: 0 };
  let gpu: GpuWatch | undefined;
  // One export for the watcher's life (cumulative histograms), a sink per target.
  const otlp = config.otlp ? new OtlpExport(config.otlp, config.toolVersion ?? '0.0.0') : undefined;
  const otlpSinks = new Map<string, (record: RequestRecord) => void>();
  try {
    const pruned = store.prune(Date.now() - config.retainMs);
    if (pruned > 0) log(`store: ${pruned} round(s) older than the retention removed`);
    const tokenizer = config.tokenizer ?? createTokenizer();
    const live: LiveTarget[] = [];
    for (const t of config.targets) {
      const prepared = await prepareProbe(t, { config, tokenizer, store, log, signal: io.signal, otlp }, own);
      live.push(prepared.live);
      if (prepared.otlpSink) otlpSinks.set(t.name, prepared.otlpSink);
    }

    const gpuUrls = new Map<string, string>();
    for (const t of config.targets) if (t.gpuMetricsUrl) gpuUrls.set(t.name, t.gpuMetricsUrl);
    if (gpuUrls.size > 0) gpu = startGpuWatch(config, gpuUrls, log);

    const declare = (e: WatchExporter) => {
      for (const l of live) e.declareTarget(l.probe.name, l.probe.model, { gpu: gpuUrls.has(l.probe.name) });
    };
    if (io.exporter) declare(io.exporter);
    else exporter = await startExporter(config, io, declare, log);
    const feed = io.exporter ?? exporter;

    const roundContext = rollbackContext(config, io, store, feed, log);
    const nextRound = roundSchedule(config);
    const probing: Probing = {
      config,
      log,
      gpu,
      feed,
      otlpSinks,
      // Requests a round sends, warmup included (a budget needs --requests: unboundedBudget).
      roundRequests: (config.load.requests ?? 0) + config.load.warmup,
      perRequestBound: worstRequestTokens(config.promptTokens, config.sampling.maxTokens, config.workload),
    };

    while (!io.signal?.aborted && (config.rounds === undefined || outcome.rounds < config.rounds)) {
      const driftMs = await nextRound(outcome.rounds, io.signal);
      if (driftMs === undefined) break;
      const results = await Promise.all(live.map((l) => probeTarget(l, probing, driftMs)));
      for (const [i, result] of results.entries()) {
        if (result) await recordRound(live[i]!, result, roundContext, outcome);
      }
      outcome.rounds++;
      if (outcome.rounds % 100 === 0) store.prune(Date.now() - config.retainMs);
    }
    return outcome;
  } finally {
    if (otlp && config.otlp) {
      const undelivered = describeOtlpOutcome(await otlp.close(), redactUrl(config.otlp.metricsUrl));
      if (undelivered) log(`warning: ${undelivered}`);
    }
    await gpu?.close().catch(() => undefined);
    await exporter?.close().catch(() => undefined);
    for (const c of own.clients) await c.close().catch(() => undefined);
    for (const t of own.targets) await t.close().catch(() => undefined);
    store.close();
  }
}

/** One GPU exporter scrape loop per target that has one, for the watcher's life. */
function startGpuWatch(
  config: WatchConfig,
  gpuUrls: Map<string, string>,
  log: (text: string) => void,
): GpuWatch {
  const intervalMs = config.gpuScrapeIntervalMs ?? DEFAULT_GPU_SCRAPE_INTERVAL_MS;
  const gpu = new GpuWatch(gpuUrls, { intervalMs, log });
  for (const [name, url] of gpuUrls)
    log(`${name}: GPU metrics from ${redactUrl(url)} every ${intervalMs} ms, summarised per round`);
  return gpu;
}

/** What every round shares, with the rollback rule's window count and --on-breach's environment. */
function rollbackContext(
  config: WatchConfig,
  io: WatchIo,
  store: WatchStore,
  feed: WatchExporter | undefined,
  log: (text: string) => void,
): RoundContext {
  const needed = config.rule ? windowsNeeded(config.rule, config.everyMs) : 0;
  if (config.rule)
    log(
      `rollback rule: ${config.rule.condition} for ${needed} consecutive window(s)${config.onBreach ? '' : ' (no --on-breach: recorded only)'}`,
    );
  const keyVars = config.targets.flatMap((t) => (t.keyEnv ? [t.keyEnv] : []));
  const breachEnv = withoutKeys(io.env, keyVars, config.secrets);
  return { config, io, store, feed, log, needed, breachEnv };
}

/**
 * The round schedule: each call waits for the next tick still ahead (t0 + k·every ± jitter, on
 * the monotonic clock; ticks missed by a long round are skipped) and gives the timer's drift,
 * or undefined when the signal aborted the wait. The first round starts at once.
 */
function roundSchedule(
  config: WatchConfig,
): (roundsDone: number, signal?: AbortSignal) => Promise<number | undefined> {
  const rng = createRng(`${config.seed}/watch-jitter`);
  // The schedule runs on the monotonic clock: a wall clock stepped back (NTP, a VM restored)
  // would otherwise hold the next round back by the step, and stale every alert meanwhile.
  const mono = { now: () => performance.now() };
  const t0 = mono.now();
  let tick = 0;
  const dueAt = (k: number) =>
    t0 + k * config.everyMs + (rng.next() * 2 - 1) * config.jitter * config.everyMs;
  return async (roundsDone, signal) => {
    let due = dueAt(tick);
    while (tick > 0 && due < mono.now()) {
      tick++;
      due = dueAt(tick);
    }
    tick++;
    if (roundsDone > 0 || tick > 1) {
      const slept = await sleepUntil(mono, due, signal);
      if (!slept || signal?.aborted) return undefined;
    }
    return roundsDone === 0 && tick === 1 ? 0 : Math.max(0, mono.now() - due);
  };
}

/** What probing a target for a round needs from the watcher. */
interface Probing {
  config: WatchConfig;
  log: (text: string) => void;
  gpu: GpuWatch | undefined;
  feed: WatchExporter | undefined;
  otlpSinks: Map<string, (record: RequestRecord) => void>;
  /** Requests a round sends, warmup included. */
  roundRequests: number;
  /** The most tokens one request may spend. */
  perRequestBound: number;
}

/** One target's round, or undefined when today's token budget cannot hold it (the round is skipped). */
async function probeTarget(l: LiveTarget, p: Probing, driftMs: number): Promise<RoundResult | undefined> {
  const { config, log, gpu } = p;
  const today = utcDay(Date.now());
  if (l.state.budget.day !== today) l.state.budget = { day: today, used: 0 };
  const seed = config.seed * 1_000_003 + l.round + 1;
  const workload = l.probe.workloadFor(seed);
  if (
    config.dailyTokenBudget !== undefined &&
    l.state.budget.used + roundTokenBound(workload, p.roundRequests, p.perRequestBound) >
      config.dailyTokenBudget
  ) {
    log(
      `${l.probe.name}: daily token budget reached (${l.state.budget.used}/${config.dailyTokenBudget}); round skipped`,
    );
    return undefined;
  }
  l.round++;
  const gpuWindow = gpu && (() => gpu?.cut(l.probe.name));
  const result = await runRound(l.probe, {
    ...(gpuWindow ? { gpuWindow } : {}),
    ...(config.efficiency ? { efficiency: config.efficiency } : {}),
    round: l.round,
    seed,
    workload,
    timerDriftMs: driftMs,
    driftToleranceMs: Math.max(100, 0.1 * config.everyMs),
    onRecord: (record) => {
      p.otlpSinks.get(l.probe.name)?.(record);
      p.feed?.countRequest(l.probe.name, l.probe.model, record.outcome, record.error?.code);
    },
  });
  l.state.budget.used += result.tokensSpent;
  return result;
}
