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
 * @module
 */

import type { Client } from '../client/index.js';
import { redactUrl } from '../config/index.js';
import { GoodputError } from '../errors.js';
import { metric } from '../metrics/index.js';
import { describeOtlpOutcome, type OtlpConfig, OtlpExport } from '../otlp/index.js';
import {
  buildRunMeta,
  createRunClient,
  type PreparedTarget,
  prepareTarget,
  RunClock,
  sleepUntil,
} from '../runner/index.js';
import { chooseMetricsUrl } from '../server-metrics/index.js';
import { WatchStore } from '../store/index.js';
import type {
  ApiKind,
  EfficiencyInputs,
  LoadSpec,
  RequestRecord,
  RunSummary,
  Sampling,
  Slo,
  WorkloadSpec,
} from '../types.js';
import { createRng, createTokenizer, type Dataset, type Tokenizer } from '../workload/index.js';
import { type BreachEvidence, runBreachCommand, withoutKeys } from './breach.js';
import { WatchExporter } from './exporter.js';
import { DEFAULT_GPU_SCRAPE_INTERVAL_MS, GpuWatch } from './gpu.js';
import {
  initialRollbackState,
  type RollbackRule,
  type RollbackState,
  stepRollback,
  windowIsBad,
  windowsNeeded,
} from './rollback.js';
import { type ProbeTarget, type RoundResult, roundTokenBound, roundWorkload, runRound } from './round.js';
import type { WatchTarget } from './targets.js';

/** What a round's synthetic prompts are beyond their length: spread, system prompt, sessions, cancels. */
export type WatchWorkload = Pick<
  WorkloadSpec,
  'promptTokensRange' | 'systemPromptTokens' | 'sessions' | 'cancelRate' | 'cancelAfterMs'
>;

/**
 * The most tokens one probe request can spend (for the daily budget): its longest prompt (the
 * top of the length spread, the system prompt, and in a session the last turn carrying the
 * whole history) plus its output.
 */
export function worstRequestTokens(promptTokens: number, maxTokens: number, w: WatchWorkload = {}): number {
  const first = Math.ceil(promptTokens * (1 + (w.promptTokensRange ?? 0))) + (w.systemPromptTokens ?? 0);
  const turns = w.sessions?.turns?.max ?? 1;
  const later = (turns - 1) * ((w.sessions?.turnTokens ?? promptTokens) + maxTokens);
  return first + later + maxTokens;
}

/**
 * Why a daily token budget cannot bound rounds of this load (undefined: it can). A round set
 * by --duration alone has no bound; with a dataset the bound is the round's own prompts, which a
 * session's later turns are not until its replies come.
 */
export function unboundedBudget(load: LoadSpec, withDataset: boolean): GoodputError | undefined {
  if (load.requests === undefined)
    return new GoodputError(
      'E_USAGE',
      '--daily-token-budget needs --requests: a round set by --duration alone has no bound on the tokens it may spend',
      'give --requests N (with or without --duration), or drop --daily-token-budget',
    );
  if (withDataset && load.sessions !== undefined)
    return new GoodputError(
      'E_USAGE',
      "--daily-token-budget with --dataset needs single requests: the budget reads each round's prompts before sending them, and a session's later turns are not known until its replies come",
      'give --requests N (and no --sessions/--session-rate), or drop --daily-token-budget',
    );
  return undefined;
}

export interface WatchConfig {
  targets: WatchTarget[];
  api: ApiKind;
  sampling: Sampling;
  /** Synthetic prompt length (tokens). */
  promptTokens: number;
  /** The rest of the probes' workload, as the same flags give it to `goodput run` (workloadShape). */
  workload?: WatchWorkload;
  /** `--dataset`: rounds draw their prompts from it (promptTokens is then unused). */
  dataset?: Dataset;
  load: LoadSpec;
  seed: number;
  everyMs: number;
  /** Fraction of `every` by which a round start may move either way (default 0.1). */
  jitter: number;
  /** Stop after this many rounds (undefined: until signalled). */
  rounds?: number;
  storePath: string;
  /** Rounds older than this are deleted (ms). */
  retainMs: number;
  /** Exporter port (0 = any free port); undefined: no exporter. */
  metricsPort?: number;
  /** Exporter bind address (default 127.0.0.1; 0.0.0.0 exposes it on every interface, e.g. in a pod). */
  metricsHost?: string;
  /** Extra histogram boundaries in ms (ADR and SLO thresholds). */
  thresholdsMs?: Partial<Record<'ttft' | 'tpot' | 'itl' | 'e2el', number[]>>;
  rule?: RollbackRule;
  onBreach?: string;
  cooldownMs: number;
  dailyTokenBudget?: number;
  /** `replicas`: `--metrics-url` given once per replica; each round reads their totals. */
  serverMetrics: { enabled: boolean; url?: string; replicas?: string[] };
  /** Time between two scrapes of a target's GPU exporter (`gpuMetricsUrl`); default 5 s. */
  gpuScrapeIntervalMs?: number;
  /** Energy and cost inputs (--gpu-power-watts, --gpu-count, --cost-per-hour, --cost-per), for every round. */
  efficiency?: EfficiencyInputs;
  toolVersion?: string;
  /** OpenTelemetry export of every round's requests (`--otlp-endpoint`, OTEL_EXPORTER_OTLP_*), for the watcher's life. */
  otlp?: OtlpConfig;
  /** Extra request headers (--header), sent to every target with every request and the model list. In memory only. */
  headers?: Record<string, string>;
  /** Header values that are credentials: redacted like the key, kept from the --on-breach command. In memory only. */
  secrets?: string[];
  /** JSON fields merged last into every request body (--extra-body). */
  extraBody?: Record<string, unknown>;
  /** Counts the probes' prompts (--tokenizer); default o200k_base. */
  tokenizer?: Tokenizer;
}

export interface WatchIo {
  stderr: { write(chunk: string): unknown };
  signal?: AbortSignal;
  cwd: string;
  env: Record<string, string | undefined>;
  quiet?: boolean;
  /**
   * An exporter owned by the caller (already listening or not): watch feeds it and leaves it
   * open when it returns. Without it, --metrics-port makes watch create and close its own.
   */
  exporter?: WatchExporter;
  /** Called when the exporter listens (its port). */
  onListening?: (port: number) => void;
  /** Called after every round of every target is stored. */
  onRound?: (target: string, result: RoundResult) => void;
  /** Called after a rollback is recorded (and its --on-breach command, when any, has exited). */
  onRollback?: (evidence: BreachEvidence, commandExitCode?: number) => void;
}

/** Per-target state persisted in the store. */
interface TargetState {
  rollback: RollbackState;
  budget: { day: string; used: number };
}

export interface WatchOutcome {
  rounds: number;
  rollbacks: number;
}

interface Live {
  probe: ProbeTarget;
  round: number;
  state: TargetState;
  url: string;
}

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
  const targets: PreparedTarget[] = [];
  let exporter: WatchExporter | undefined;
  const clients: Client[] = [];
  const outcome: WatchOutcome = { rounds: 0, rollbacks: 0 };
  let gpu: GpuWatch | undefined;
  // One export for the watcher's life (cumulative histograms), a sink per target.
  const otlp = config.otlp ? new OtlpExport(config.otlp, config.toolVersion ?? '0.0.0') : undefined;
  const otlpSinks = new Map<string, (record: RequestRecord) => void>();
  try {
    const pruned = store.prune(Date.now() - config.retainMs);
    if (pruned > 0) log(`store: ${pruned} round(s) older than the retention removed`);
    const tokenizer = config.tokenizer ?? createTokenizer();
    const live: Live[] = [];
    for (const t of config.targets) {
      // The same target preparation as a run: URL or embedded engine, the model picked one way.
      const target = await prepareTarget({
        url: t.url,
        model: t.model,
        api: config.api,
        apiKey: t.apiKey,
        seed: config.seed,
        note: log,
        modelHint: 'pass --model (or model: in the targets file) so watch can start while the target is down',
        signal: io.signal,
        headers: config.headers,
        secrets: config.secrets,
      }).catch((e: unknown) => {
        if (e instanceof GoodputError) throw new GoodputError(e.code, `${t.name}: ${e.message}`, e.hint);
        throw e;
      });
      targets.push(target);
      const { baseUrl, model } = target;
      const clock = new RunClock();
      // The run's client, with this target's key: the same options as `goodput run`.
      const client = createRunClient(
        { ...config, apiKey: t.apiKey },
        { baseUrl, model },
        config.load,
        tokenizer,
        clock,
      );
      clients.push(client);
      const spec: WorkloadSpec = {
        kind: config.dataset ? 'dataset' : 'synthetic',
        api: config.api,
        ...(config.dataset ? {} : { promptTokens: config.promptTokens }),
        ...config.workload,
        maxTokens: config.sampling.maxTokens,
        tokenizer: tokenizer.name,
      };
      if (tokenizer.file) spec.tokenizerFile = { ...tokenizer.file };
      // runId and startedAt are set per round.
      const meta = buildRunMeta(
        { sampling: config.sampling, load: config.load, slo: t.slo as Slo, seed: config.seed },
        target,
        spec,
        { runId: '', startedAt: '', version: config.toolVersion },
      );
      const metrics = await chooseMetricsUrl(config.serverMetrics, baseUrl);
      const probe: ProbeTarget = { name: t.name, model, client, clock, tokenizer, meta, load: config.load };
      if (metrics.url) probe.metricsUrl = metrics.url;
      if (metrics.sources?.replicas) probe.metricsUrls = metrics.sources.replicas.map((r) => r.url);
      if (config.dataset) probe.dataset = config.dataset;
      store.targetId(t.name, target.info.baseUrl, model);
      const saved = store.loadState<TargetState>(t.name);
      const state: TargetState = saved ?? { rollback: initialRollbackState(), budget: { day: '', used: 0 } };
      const round = store.lastRound(t.name);
      if (round > 0)
        log(`${t.name}: resuming after round ${round} (bad-window streak ${state.rollback.streak.length})`);
      live.push({ probe, round, state, url: target.info.baseUrl });
      if (otlp)
        otlpSinks.set(
          t.name,
          otlp.sinkFor({ model, api: config.api, baseUrl, epochMsAtZero: () => Date.now() - clock.now() }),
        );
    }

    const gpuUrls = new Map<string, string>();
    for (const t of config.targets) if (t.gpuMetricsUrl) gpuUrls.set(t.name, t.gpuMetricsUrl);
    if (gpuUrls.size > 0) {
      const intervalMs = config.gpuScrapeIntervalMs ?? DEFAULT_GPU_SCRAPE_INTERVAL_MS;
      gpu = new GpuWatch(gpuUrls, { intervalMs, log });
      for (const [name, url] of gpuUrls)
        log(`${name}: GPU metrics from ${redactUrl(url)} every ${intervalMs} ms, summarised per round`);
    }

    const declare = (e: WatchExporter) => {
      for (const l of live) e.declareTarget(l.probe.name, l.probe.model, { gpu: gpuUrls.has(l.probe.name) });
    };
    if (io.exporter) {
      declare(io.exporter);
    } else if (config.metricsPort !== undefined) {
      exporter = new WatchExporter({ thresholdsMs: config.thresholdsMs });
      declare(exporter);
      const host = config.metricsHost ?? '127.0.0.1';
      const port = await exporter.listen(config.metricsPort, host).catch((e: NodeJS.ErrnoException) => {
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
    }
    const feed = io.exporter ?? exporter;

    const needed = config.rule ? windowsNeeded(config.rule, config.everyMs) : 0;
    if (config.rule)
      log(
        `rollback rule: ${config.rule.condition} for ${needed} consecutive window(s)${config.onBreach ? '' : ' (no --on-breach: recorded only)'}`,
      );
    const keyVars = config.targets.flatMap((t) => (t.keyEnv ? [t.keyEnv] : []));
    const breachEnvBase = withoutKeys(io.env, keyVars, config.secrets);
    const rng = createRng(`${config.seed}/watch-jitter`);
    // The schedule runs on the monotonic clock: a wall clock stepped back (NTP, a VM restored)
    // would otherwise hold the next round back by the step, and stale every alert meanwhile.
    const mono = { now: () => performance.now() };
    const t0 = mono.now();
    let tick = 0;
    // Requests a round sends, warmup included (a budget needs --requests: unboundedBudget).
    const roundRequests = (config.load.requests ?? 0) + config.load.warmup;
    const perRequestBound = worstRequestTokens(
      config.promptTokens,
      config.sampling.maxTokens,
      config.workload,
    );

    while (!io.signal?.aborted && (config.rounds === undefined || outcome.rounds < config.rounds)) {
      // The next tick that is still ahead (ticks missed by a long round are skipped).
      let due = t0 + tick * config.everyMs + (rng.next() * 2 - 1) * config.jitter * config.everyMs;
      while (tick > 0 && due < mono.now()) {
        tick++;
        due = t0 + tick * config.everyMs + (rng.next() * 2 - 1) * config.jitter * config.everyMs;
      }
      tick++;
      if (outcome.rounds > 0 || tick > 1) {
        const slept = await sleepUntil(mono, due, io.signal);
        if (!slept || io.signal?.aborted) break;
      }
      const driftMs = outcome.rounds === 0 && tick === 1 ? 0 : Math.max(0, mono.now() - due);
      const driftToleranceMs = Math.max(100, 0.1 * config.everyMs);
      const results = await Promise.all(
        live.map(async (l): Promise<RoundResult | undefined> => {
          const today = utcDay(Date.now());
          if (l.state.budget.day !== today) l.state.budget = { day: today, used: 0 };
          const seed = config.seed * 1_000_003 + l.round + 1;
          const workload = roundWorkload(l.probe, seed);
          if (
            config.dailyTokenBudget !== undefined &&
            l.state.budget.used + roundTokenBound(workload, roundRequests, perRequestBound) >
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
            driftToleranceMs,
            onRecord: (record) => {
              otlpSinks.get(l.probe.name)?.(record);
              if (!feed) return;
              feed.countRequest(l.probe.name, l.probe.model, record.outcome, record.error?.code);
            },
          });
          l.state.budget.used += result.tokensSpent;
          return result;
        }),
      );
      for (const [i, result] of results.entries()) {
        if (!result) continue;
        const l = live[i]!;
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
          const step = stepRollback(
            l.state.rollback,
            {
              round: stored.round,
              startedAt: stored.startedAt,
              valid: stored.valid,
              bad: verdict.bad,
              value: verdict.value,
            },
            needed,
            config.cooldownMs,
            Date.now(),
          );
          l.state.rollback = step.state;
          if (step.trigger && step.evidence) {
            outcome.rollbacks++;
            await triggerRollback(l, config, step.evidence, needed, breachEnvBase, io, store, feed, log);
          }
        }
        store.saveState(l.probe.name, l.state);
        io.onRound?.(l.probe.name, result);
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
    for (const c of clients) await c.close().catch(() => undefined);
    for (const t of targets) await t.close().catch(() => undefined);
    store.close();
  }
}

async function triggerRollback(
  l: Live,
  config: WatchConfig,
  streak: RollbackState['streak'],
  needed: number,
  envBase: Record<string, string>,
  io: WatchIo,
  store: WatchStore,
  exporter: WatchExporter | undefined,
  log: (text: string) => void,
): Promise<void> {
  const rule = config.rule!;
  const evidence: BreachEvidence = {
    schemaVersion: 1,
    kind: 'goodput.breach',
    target: l.probe.name,
    model: l.probe.model,
    rule: rule.source,
    condition: rule.condition,
    windows: needed,
    evidence: streak.map((w) => ({
      round: w.round,
      startedAt: new Date(w.startedAt).toISOString(),
      value: w.value,
    })),
    window: {
      from: new Date(streak[0]!.startedAt).toISOString(),
      to: new Date(streak[streak.length - 1]!.startedAt).toISOString(),
    },
    triggeredAt: new Date().toISOString(),
  };
  if (rule.adrId !== undefined) evidence.adrId = rule.adrId;
  log(
    `${l.probe.name}: ROLLBACK — ${rule.condition} held for ${needed} window(s) (rounds ${streak.map((w) => w.round).join(', ')})`,
  );
  const stored = {
    target: l.probe.name,
    at: Date.now(),
    round: l.round,
    rule: rule.source,
    evidence,
    ...(rule.adrId !== undefined ? { adrId: rule.adrId } : {}),
    ...(config.onBreach !== undefined ? { command: config.onBreach } : {}),
  };
  store.addRollback(stored);
  exporter?.countRollback(l.probe.name, l.probe.model);
  if (config.onBreach !== undefined) {
    const code = await runBreachCommand(config.onBreach, evidence, { env: envBase, cwd: io.cwd, log });
    store.setRollbackExitCode(l.probe.name, code);
    log(`${l.probe.name}: on-breach command exited with ${code}`);
    io.onRollback?.(evidence, code);
  } else io.onRollback?.(evidence);
}
