/**
 * Result directories: the files a run leaves behind and every later command reads.
 *
 * ```
 * DIR/summary.json          RunSummary (schemaVersion, kind "goodput.run")
 * DIR/requests.jsonl        header line, then one RequestRecord per line, streamed as the run goes
 * DIR/server-metrics.jsonl  header line, then one ServerSample per line (when scraped)
 * DIR/gpu-metrics.jsonl     header line, then one GpuSample per line (--gpu-metrics-url)
 * ```
 *
 * @module
 */

import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { EfficiencyInputs, RunMeta } from '../types.js';

export const RESULT_FILES = {
  summary: 'summary.json',
  requests: 'requests.jsonl',
  serverMetrics: 'server-metrics.jsonl',
  gpuMetrics: 'gpu-metrics.jsonl',
} as const;

/** Name of the file a sweep leaves in its directory (beside one result directory per point). */
export const SWEEP_FILE = 'sweep.json';

/** First line of every JSONL file we write. */
export interface JsonlHeader {
  schemaVersion: number;
  kind: 'goodput.requests' | 'goodput.server-metrics' | 'goodput.gpu-metrics';
  runId: string;
  startedAt: string;
  /**
   * requests.jsonl only: what `goodput summarize` needs to rebuild summary.json from the
   * records alone (a run killed before it wrote its summary). Absent in files of older versions.
   */
  run?: RunRebuildInfo;
}

/** The run's meta and the accumulator settings its summary was computed with. */
export interface RunRebuildInfo {
  meta: RunMeta;
  /** Prompt-length buckets of the summary ('pow2', ascending token edges, or false for none). */
  promptBuckets?: 'pow2' | readonly number[] | false;
  /** Open-loop sends later than this are late sends. */
  lateSendToleranceMs: number;
  /** Server metrics endpoint scraped into server-metrics.jsonl, when one was. */
  metricsUrl?: string;
  /** DCGM exporter scraped into gpu-metrics.jsonl (`--gpu-metrics-url`), when one was. */
  gpuMetricsUrl?: string;
  /** Energy and cost inputs (--gpu-power-watts, --gpu-count, --cost-per-hour, --cost-per), when given. */
  efficiency?: EfficiencyInputs;
}

/** A run given as a directory or as its summary.json: the directory and the paths of its files. */
export interface RunPaths {
  dir: string;
  summary: string;
  requests: string;
  serverMetrics: string;
  gpuMetrics: string;
}

/**
 * The files of a run given as its directory or as a file in it: a file given by path is read
 * as the summary itself (whatever its name), its siblings as the records.
 */
export function runPaths(dirOrSummary: string): RunPaths {
  const isFile = existsSync(dirOrSummary) && statSync(dirOrSummary).isFile();
  const dir = isFile ? dirname(dirOrSummary) : dirOrSummary;
  return {
    dir,
    summary: isFile ? dirOrSummary : join(dir, RESULT_FILES.summary),
    requests: join(dir, RESULT_FILES.requests),
    serverMetrics: join(dir, RESULT_FILES.serverMetrics),
    gpuMetrics: join(dir, RESULT_FILES.gpuMetrics),
  };
}
