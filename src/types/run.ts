/** What a run was asked to do: SLOs, workload, load, target and the run's meta. @module */

import type { ApiKind, Sampling } from './request.js';

/** Service-level objectives in milliseconds; a request is good when it meets every one that is set. */
export interface Slo {
  ttftMs?: number;
  tpotMs?: number;
  e2elMs?: number;
}

export interface WorkloadSpec {
  kind: 'synthetic' | 'dataset';
  api: ApiKind;
  /** Synthetic: exact prompt length in tokens (user part, shared prefix excluded). */
  promptTokens?: number;
  /** Synthetic: uniform spread ±range×promptTokens. */
  promptTokensRange?: number;
  /** Synthetic: a shared system prompt of this many tokens before every user prompt. */
  systemPromptTokens?: number;
  dataset?: { path: string; format: 'jsonl' | 'sharegpt'; sha256: string; entries: number };
  maxTokens: number;
  /** Name of the tokenizer that counted prompt tokens, e.g. "o200k_base". */
  tokenizer: string;
  cancelAfterMs?: number;
  /** Fraction of requests whose user gives up after cancelAfterMs. */
  cancelRate?: number;
}

export interface LoadSpec {
  mode: 'closed' | 'open';
  concurrency?: number;
  /** Open loop: requests per second. */
  rate?: number;
  /** Gamma shape of inter-arrival times; 1 = Poisson. */
  burstiness?: number;
  /** Open loop: cap on requests in flight. */
  maxConcurrency?: number;
  requests?: number;
  durationMs?: number;
  warmup: number;
  timeoutMs: number;
  ttftTimeoutMs?: number;
  maxRetries: number;
}

export interface TargetInfo {
  /** Base URL as called (never with credentials). */
  baseUrl: string;
  api: ApiKind;
  /** True when the run used the embedded simulated engine. */
  embedded: boolean;
  /** For the embedded engine: 'live' (real sockets, real time) or 'virtual' (simulated time). */
  timeMode?: 'live' | 'virtual';
  /** For the embedded engine: its profile, e.g. "h100:llama-3.1-8b". */
  simProfile?: string;
}

export interface RunMeta {
  tool: { name: 'goodput'; version: string };
  runId: string;
  /** Wall-clock time of the run's t0, ISO 8601. */
  startedAt: string;
  target: TargetInfo;
  model: string;
  sampling: Sampling;
  workload: WorkloadSpec;
  load: LoadSpec;
  slo: Slo;
  seed: number;
  /** Optional free-form labels (--label k=v), e.g. the serving configuration under test. */
  labels?: Record<string, string>;
}
