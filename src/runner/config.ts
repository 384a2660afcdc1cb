/**
 * BenchmarkConfig: everything one benchmark run needs, resolved from flags, environment and
 * config file (see src/cli/options.ts resolveBenchmarkConfig). The API key lives here in
 * memory only: it is never part of RunMeta, never printed and never written.
 *
 * @module
 */

import type { ApiKind, LoadSpec, Sampling, Slo } from '../types.js';

/** What the workload generates (the runner turns it into a WorkloadSpec once the tokenizer is known). */
export interface BenchmarkWorkload {
  /** Synthetic prompt length in tokens (user part). */
  promptTokens: number;
  /** Uniform spread ±range×promptTokens. */
  promptTokensRange?: number;
  /** Shared system prompt of this many tokens before every user prompt. */
  systemPromptTokens?: number;
  /** JSONL ({"prompt"} / {"messages"}) or ShareGPT JSON file; replaces synthetic prompts. */
  datasetPath?: string;
  /** Dataset: take each entry's own output length (true unless --max-tokens was given). */
  outputFromDataset?: boolean;
  cancelAfterMs?: number;
  /** Fraction of requests (0..1) whose user gives up after cancelAfterMs. */
  cancelRate?: number;
}

export interface BenchmarkConfig {
  /** Base URL of the endpoint; undefined → the embedded simulated engine. */
  url?: string;
  /** Model id; undefined → the first id of GET /v1/models. */
  model?: string;
  api: ApiKind;
  /** Bearer key. In memory only: never persisted, printed or logged. */
  apiKey?: string;
  sampling: Sampling;
  workload: BenchmarkWorkload;
  load: LoadSpec;
  slo: Slo;
  /** Seed of every random choice (prompts, lengths, arrivals, cancels, the embedded engine). */
  seed: number;
  /** Result directory; undefined → goodput-results/<stamp>-<runId>/ under cwd. */
  outDir?: string;
  labels?: Record<string, string>;
  /** Server metrics scrape (--metrics-url, --no-server-metrics, --scrape-interval). */
  serverMetrics: { enabled: boolean; url?: string; intervalMs?: number };
  /** Things the user should know about the configuration (printed on stderr; never the key). */
  warnings?: string[];
  /** Embedded engine options (only used without url). */
  sim?: { profile?: string };
}

/** The default load of `goodput run` with no load flags: about ten seconds on the embedded engine. */
export const DEFAULT_LOAD = {
  concurrency: 8,
  requests: 80,
  warmup: 0,
  timeoutMs: 60_000,
  maxRetries: 1,
} as const;

export const DEFAULT_WORKLOAD = {
  promptTokens: 256,
  maxTokens: 128,
} as const;

export const DEFAULT_SEED = 1;
