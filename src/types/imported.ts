/**
 * A result another tool wrote (vLLM `bench serve --save-result`, guidellm, AIPerf, GenAI-Perf),
 * read into goodput's metric vocabulary: each figure exactly as the source states it, in the
 * catalogue's unit, and every catalogue figure the source lacks listed as missing, so that no
 * reader can take an absent figure for 0. `goodput import` writes one as summary.json.
 *
 * @module
 */

import type { SCHEMA_VERSION } from './request.js';

/** The tools whose results goodput reads. */
export const IMPORT_TOOLS = [
  'vllm',
  'guidellm',
  'aiperf',
  'genai-perf',
  'llm-d',
  'inference-perf',
  'sglang',
] as const;
export type ImportTool = (typeof IMPORT_TOOLS)[number];

/** Where an imported result came from. */
export interface ImportSource {
  tool: ImportTool;
  /** The file as it was named when read. */
  path: string;
  /** sha256 (hex) of the file's bytes. */
  sha256: string;
  /** A file holding several benchmarks (a guidellm sweep): which one, 1-based, of how many. */
  benchmark?: { index: number; count: number; label: string };
}

export interface ImportedSummary {
  schemaVersion: typeof SCHEMA_VERSION;
  kind: 'goodput.imported';
  source: ImportSource;
  /** When `goodput import` wrote it; absent when read straight from the tool's file. */
  importedAt?: string;
  /** The model, as the source names it. */
  model?: string;
  /** The source's own date or start time, as it states it. */
  date?: string;
  /**
   * Catalogue metric id → value in the catalogue's unit (ms, req/s, tok/s, count), exactly as
   * the source states it (units converted exactly, see `notes`).
   */
  figures: Record<string, number>;
  /** Every catalogue metric id the source does not state: never 0, never estimated. */
  missing: string[];
  /** How the figures were read: unit conversions, definitions that differ and were left out. */
  notes: string[];
  /** What the source says was run (load, workload, duration), label → value, as stated. */
  context: Array<[string, string]>;
  /**
   * Per-request values the source states, of its successful requests, in ms (vLLM's detailed
   * `ttfts` and `itls`, in seconds there, and `output_lens`): they give compare an interval for
   * TTFT and ITL. Absent when the source holds none (a summary file).
   */
  samples?: ImportedSamples;
}

/** Per-request values another tool states: TTFT per request, every inter-chunk gap, output tokens per request. */
export interface ImportedSamples {
  ttftMs: number[];
  itlMs: number[];
  outputTokens: number[];
  /** TPOT per request, where the tool states it per request (AIPerf's profile_export.jsonl). */
  tpotMs?: number[];
  /** End-to-end latency per request, where the tool states it per request (AIPerf). */
  e2elMs?: number[];
}
