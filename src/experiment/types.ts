/**
 * An experiment as the executor takes it: configurations resolved from a plan (or built by a
 * caller such as `experiment --search`), the measurement every configuration shares, repeats,
 * order and hygiene. `experiment.json` (types/experiment.ts) is what it writes.
 *
 * @module
 */

import type { BenchmarkConfig } from '../runner/index.js';
import type { EngineOptions } from '../sim/index.js';
import type { ServeParamValue } from '../types.js';

/** How to start, check and stop a configuration's server. Templates hold `{param}` and `{port}`. */
export interface ServeTemplate {
  /** argv template (already split; substitution is per element, so a value never splits). */
  argv: string[];
  /** Environment added to goodput's own (only the names are recorded). */
  env: Record<string, string>;
  /** Working folder (absolute). */
  cwd: string;
  /** Health URL template [default http://127.0.0.1:{port}/health]. */
  health: string;
  /** Base URL template the runs use [default http://127.0.0.1:{port}]. */
  url: string;
  startupTimeoutMs: number;
  stopSignal: NodeJS.Signals;
  /** Time given to the server after the stop signal, then SIGKILL to its process group. */
  graceMs: number;
}

export type ConfigurationTarget =
  | { kind: 'url'; url: string }
  | { kind: 'serve'; serve: ServeTemplate }
  | {
      kind: 'embedded';
      /** The simulated engine's flags. */
      engine: EngineOptions;
      /** The same, in vLLM's spelling (recorded as `engineArgs`). */
      engineArgs: string[];
      /** Hardware and model profile (`gpu[xN]:model`); default the measurement's. */
      profile?: string;
    };

export interface ConfigurationSpec {
  name: string;
  params: Record<string, ServeParamValue>;
  target: ConfigurationTarget;
}

/** The cache reset between runs: detected from the engine, named, none, or a command. */
export type CacheResetSpec =
  | { kind: 'auto' }
  | { kind: 'none' }
  | { kind: 'vllm' | 'sglang' | 'llama.cpp' }
  | { kind: 'command'; argv: string[] };

export interface ExperimentSpec {
  name: string;
  /** The experiment folder (absolute). */
  dir: string;
  configurations: ConfigurationSpec[];
  /** Name of the baseline configuration [default the first]. */
  baseline?: string;
  /** Runs per configuration. */
  runs: number;
  order: { mode: 'interleaved' | 'random-blocks'; seed?: number };
  cooldownMs: number;
  restart: 'per-run' | 'per-config';
  /** Embedded configurations in virtual time. */
  virtual: boolean;
  cacheReset: CacheResetSpec;
  /** The measurement every configuration gets (its url, outDir and engine are set per run). */
  measurement: BenchmarkConfig;
  /** The plan as parsed (recorded; never holds a secret) and the sha256 of its text. */
  plan: unknown;
  planSha256: string;
}
