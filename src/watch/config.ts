/**
 * What `goodput watch` is given (WatchConfig: targets, the probes' workload and load, the
 * schedule, the store, the exporter, the rollback rule) and what it hands back (WatchIo's
 * callbacks, WatchOutcome). The command builds a WatchConfig from its flags; runWatch runs it.
 *
 * @module
 */

import type { OtlpConfig } from '../otlp/index.js';
import type { ApiKind, EfficiencyInputs, LoadSpec, Sampling, WorkloadSpec } from '../types.js';
import type { Dataset, Tokenizer } from '../workload/index.js';
import type { BreachEvidence } from './breach.js';
import type { WatchExporter } from './exporter.js';
import type { RollbackRule } from './rollback.js';
import type { RoundResult } from './round.js';
import type { WatchTarget } from './targets.js';

/** What a round's synthetic prompts are beyond their length: spread, system prompt, sessions, cancels. */
export type WatchWorkload = Pick<
  WorkloadSpec,
  'promptTokensRange' | 'systemPromptTokens' | 'sessions' | 'cancelRate' | 'cancelAfterMs'
>;

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

export interface WatchOutcome {
  rounds: number;
  rollbacks: number;
}
