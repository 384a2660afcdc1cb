/**
 * experiment.json: what `goodput experiment` tested and where each run's results are. Written by
 * the experiment executor after every state change (atomically), read by `--resume`, the
 * experiment's analysis (the metrics matrix), `report` and `adr new --experiment`.
 *
 * Paths are relative to the experiment folder. Nothing here holds a secret: environment values
 * of a serve command are kept by name only, and URLs are redacted.
 *
 * @module
 */

import type { ServerSelfDescription } from './run.js';

/** A serving parameter's value as the plan states it. */
export type ServeParamValue = string | number | boolean;

/** How a configuration's server came to be. */
export type ExperimentTargetKind = 'url' | 'serve' | 'embedded';

/** One run of one configuration. */
export interface ExperimentRun {
  /** 0-based repeat index within its configuration. */
  repeat: number;
  /** Position in the experiment's run order (0-based). */
  order: number;
  /** Result folder (relative): the usual run directory with summary.json and requests.jsonl. */
  dir: string;
  status: 'pending' | 'ok' | 'failed';
  startedAt?: string;
  endedAt?: string;
  /** Why it failed: the GoodputError code and message. */
  error?: { code: string; message: string };
  /** The cache reset before this run, with the server's answer. */
  cacheReset?: { method: string; ok: boolean; status?: number; detail?: string };
}

/** One configuration (Baseline, Exp-1, …) and its runs. */
export interface ExperimentConfiguration {
  /** Unique display name; the first configuration is the baseline unless the plan names one. */
  name: string;
  /** Folder-safe form of the name (used in run directories). */
  slug: string;
  baseline: boolean;
  /** The serving parameters that define it (grid point or list entry), as stated. */
  params: Record<string, ServeParamValue>;
  target: ExperimentTargetKind;
  /** target 'url': the base URL (redacted). */
  url?: string;
  /** target 'serve': the exact command run (after substitution), its folder and env names. */
  serve?: {
    argv: string[];
    cwd: string;
    envNames: string[];
    health: string;
    port: number;
    /**
     * Every start of the server, in order: its pid (the leader of its own process group), how
     * long it took to answer health, and how it was stopped ('signal': the stop signal was
     * enough; 'killed': SIGKILL after the grace period; 'gone': it had exited). Added by the
     * executor for the overhead per configuration and to check that no server outlives the experiment.
     */
    starts?: Array<{
      pid: number;
      startedAt: string;
      startupMs?: number;
      stoppedAt?: string;
      stopMs?: number;
      stop?: 'signal' | 'killed' | 'gone';
    }>;
  };
  /** target 'embedded': the simulated engine's flags (vLLM spelling, e.g. `--max-num-batched-tokens`). */
  engineArgs?: string[];
  /** Config files the serve template names, with their sha256. */
  configFiles?: Array<{ path: string; sha256: string }>;
  /** What the server said of itself (first start). */
  server?: ServerSelfDescription;
  /** Server log (stdout + stderr), relative; 'serve' configurations only. */
  log?: string;
  status: 'pending' | 'ok' | 'failed';
  /** Why the configuration failed (server did not start, health timeout, …). */
  failure?: { code: string; message: string; hint?: string; logTail?: string };
  runs: ExperimentRun[];
}

export interface ExperimentFile {
  schemaVersion: 1;
  kind: 'goodput-experiment';
  name: string;
  createdAt: string;
  updatedAt: string;
  /** sha256 of the plan file as read (resume refuses a changed plan). */
  planSha256: string;
  /** The plan as parsed (secrets never included). */
  plan: unknown;
  /** Run order: 'interleaved' (ABC ABC …) or 'random-blocks' (each block shuffled with `seed`). */
  order: { mode: 'interleaved' | 'random-blocks'; seed?: number };
  runsPerConfiguration: number;
  restart: 'per-run' | 'per-config';
  /** True when the measurement is in virtual time on the embedded engine. */
  virtual: boolean;
  configurations: ExperimentConfiguration[];
  /** Status of the whole experiment. */
  status: 'running' | 'done' | 'interrupted';
}
