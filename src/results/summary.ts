/**
 * Reading a run's summary, records, server and GPU samples back, validated against the zod
 * schemas (results/index.ts loads this file on a reader's first call: writing a run loads no zod).
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { GoodputError } from '../errors.js';
import type {
  GpuSample,
  ImportedSummary,
  ImportTool,
  RequestRecord,
  RunSummary,
  ServerSample,
} from '../types.js';
import { runPaths } from './files.js';
import { checkForeignFile, parseForeignText, readAiperfRecords } from './foreign.js';
import { type JsonlReadOptions, readJsonl } from './jsonl.js';
import { readResultFile } from './read-file.js';
import {
  ImportedSummarySchema,
  RequestRecordSchema,
  RunSummarySchema,
  ServerSampleSchema,
} from './schema.js';
import { GpuSampleSchema } from './schema-gpu.js';
import {
  foreignTool,
  parseJsonFile,
  recogniseForeign,
  refuseNewerSchema,
  validateValue,
} from './validate.js';

/**
 * Reads a run's summary from its directory or a summary file, validated against the schema:
 * E_RESULT (exit 2) names the file, the field path and what was found, or what the file
 * looks like when another tool wrote it (or `goodput import` did).
 */
export async function readSummary(dirOrSummary: string): Promise<RunSummary> {
  const source = await readRunSource(dirOrSummary);
  if (source.kind === 'goodput') return source.summary;
  const what =
    source.kind === 'imported'
      ? `a goodput imported file (kind goodput.imported, from ${source.summary.source.tool})`
      : (recogniseForeign(source.value) ?? source.tool);
  throw new GoodputError(
    'E_RESULT',
    `${source.path} is not a goodput run summary: this looks like ${what}`,
    "it holds another tool's figures only, no per-request records or histograms: compare, gate --from and report read it; " +
      'this command needs a result directory written by goodput run --out DIR',
  );
}

/**
 * A result file read back: a goodput run summary; another tool's result (vLLM, guidellm,
 * AIPerf, GenAI-Perf) as its parsed value untouched, with the file's sha256 and the benchmark
 * a `FILE#N` suffix selects; or a summary `goodput import` wrote.
 */
export type RunSource =
  | { kind: 'goodput'; path: string; summary: RunSummary }
  | ForeignSource
  | { kind: 'imported'; path: string; summary: ImportedSummary };

/** Another tool's file, parsed, untouched; with AIPerf's per-request records read beside it. */
export interface ForeignSource {
  kind: 'foreign';
  path: string;
  tool: ImportTool;
  sha256: string;
  value: unknown;
  benchmark?: number;
  /** The parsed lines of AIPerf's profile_export.jsonl beside its summary, when there is one. */
  records?: unknown[];
}

/** `sweep.json#2` → the file and benchmark 2, when `sweep.json#2` itself does not exist. */
function splitSelector(arg: string): { path: string; benchmark?: number } {
  const m = /^(.*)#(\d+)$/.exec(arg);
  if (!m || existsSync(arg)) return { path: arg };
  return { path: m[1] as string, benchmark: Number(m[2]) };
}

/**
 * Reads a run's summary (as {@link readSummary}), or another tool's result file untouched, or
 * an imported summary, for the readers that take them (compare, gate, report, import).
 * `FILE#N` names the N-th benchmark of a file holding several (a guidellm sweep).
 */
export async function readRunSource(arg: string): Promise<RunSource> {
  const { path: dirOrSummary, benchmark } = splitSelector(arg);
  const paths = runPaths(dirOrSummary);
  const path = paths.summary;
  const bytes = await readResultFile(path);
  if (bytes === undefined) {
    if (existsSync(paths.requests)) {
      throw new GoodputError(
        'E_RESULT',
        `no run summary at ${path}, but the run's records are there (a run killed before it could write its summary)`,
        `rebuild the summary from the records: goodput summarize ${paths.dir}`,
      );
    }
    throw new GoodputError(
      'E_RESULT',
      `no run summary at ${path}`,
      'pass a result directory written by goodput run --out DIR, or its summary.json',
    );
  }
  const text = bytes.toString('utf8');
  const value = parseForeignText(text, path) ?? parseJsonFile(text, path, 'run the benchmark again');
  const kind = (value as { kind?: unknown } | null)?.kind;
  refuseNewerSchema(value, path, ['goodput.run', 'goodput.imported']);
  const tool = kind === undefined ? foreignTool(value, path) : undefined;
  if (benchmark !== undefined && tool !== 'guidellm' && tool !== 'sglang') {
    throw new GoodputError(
      'E_USAGE',
      `${arg}: #${benchmark} selects a benchmark of a file holding several (a guidellm sweep, an SGLang JSONL), and ${path} is not one`,
      `pass ${dirOrSummary} without #${benchmark}`,
    );
  }
  if (tool) {
    checkForeignFile(tool, value, path);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const source: ForeignSource = { kind: 'foreign', path, tool, sha256, value };
    if (benchmark !== undefined) source.benchmark = benchmark;
    const records = tool === 'aiperf' ? await readAiperfRecords(path) : undefined;
    if (records) source.records = records;
    return source;
  }
  if (kind === 'goodput.imported') {
    return {
      kind: 'imported',
      path,
      summary: validateValue(ImportedSummarySchema, value, path, 'a goodput imported summary'),
    };
  }
  return {
    kind: 'goodput',
    path,
    summary: validateValue(RunSummarySchema, value, path, 'a goodput run summary'),
  };
}

export function readRecords(dirOrSummary: string, opts?: JsonlReadOptions): AsyncGenerator<RequestRecord> {
  return readJsonl(runPaths(dirOrSummary).requests, 'goodput.requests', RequestRecordSchema, opts);
}

export function readServerSamples(
  dirOrSummary: string,
  opts?: JsonlReadOptions,
): AsyncGenerator<ServerSample> {
  return readJsonl(runPaths(dirOrSummary).serverMetrics, 'goodput.server-metrics', ServerSampleSchema, opts);
}

/** The run's DCGM scrapes (gpu-metrics.jsonl, written when `--gpu-metrics-url` was given). */
export function readGpuSamples(dirOrSummary: string, opts?: JsonlReadOptions): AsyncGenerator<GpuSample> {
  return readJsonl(runPaths(dirOrSummary).gpuMetrics, 'goodput.gpu-metrics', GpuSampleSchema, opts);
}
