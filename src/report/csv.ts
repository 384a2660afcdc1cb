/**
 * CSV of runs (pure, strings): one row of catalogue metrics per run (`report --format csv`),
 * or one row per request record (`report --format csv --records`), RFC 4180 (util/csv.ts). Every
 * string comes from a summary or a record, which never hold the API key.
 *
 * @module
 */

import { importedValue, METRICS, meetsSlo, requestMetrics } from '../metrics/index.js';
import type { ImportedSummary, RequestRecord, RunSummary, Slo } from '../types.js';
import { type CsvValue, csvField, csvLine } from '../util/index.js';

export { type CsvValue, csvField, csvLine };

/** Columns of the summary CSV: the run, then every catalogue metric by id (its unit is the catalogue's). */
export const SUMMARY_CSV_COLUMNS: readonly string[] = ['run', 'run_id', 'model', ...METRICS.map((m) => m.id)];

/** A run's row of the summary CSV (and of report --json): each catalogue metric, undefined when not measured. */
export function summaryMetrics(summary: RunSummary): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const m of METRICS) {
    const v = m.read(summary);
    out[m.id] = v !== undefined && Number.isFinite(v) ? v : null;
  }
  return out;
}

/** An imported result's row: each catalogue metric it states, null for each it does not (never 0). */
export function importedMetrics(imported: ImportedSummary): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const m of METRICS) out[m.id] = importedValue(imported, m) ?? null;
  return out;
}

/** The summary CSV of labelled runs (and other tools' results, with an empty run id), header included. */
export function renderSummaryCsv(
  runs: ReadonlyArray<{ label: string; summary: RunSummary }>,
  imported: ReadonlyArray<{ label: string; summary: ImportedSummary }> = [],
): string {
  let out = csvLine(SUMMARY_CSV_COLUMNS);
  for (const { label, summary } of runs) {
    const metrics = summaryMetrics(summary);
    out += csvLine([label, summary.meta.runId, summary.meta.model, ...METRICS.map((m) => metrics[m.id])]);
  }
  for (const { label, summary } of imported) {
    const metrics = importedMetrics(summary);
    out += csvLine([label, '', summary.model ?? '', ...METRICS.map((m) => metrics[m.id])]);
  }
  return out;
}

/** Columns of the per-request CSV. Times are milliseconds; *_ms latencies as the metrics module derives them. */
export const RECORD_CSV_COLUMNS: readonly string[] = [
  'run',
  'id',
  'index',
  'warmup',
  'outcome',
  'good',
  'error_code',
  'error_message',
  'http_status',
  'attempts',
  'prompt_tokens',
  'server_prompt_tokens',
  'output_tokens',
  'output_tokens_source',
  'reasoning_tokens',
  'max_tokens',
  'finish_reason',
  'scheduled_ms',
  'sent_ms',
  'ttft_ms',
  'tpot_ms',
  'e2el_ms',
  'queue_wait_ms',
];

/** One record's line of the per-request CSV; `good` is whether it met the run's SLOs. */
export function recordCsvLine(run: string, record: RequestRecord, slo: Slo): string {
  const m = requestMetrics(record);
  return csvLine([
    run,
    record.id,
    record.index,
    record.warmup,
    record.outcome,
    meetsSlo(record, m, slo),
    record.error?.code,
    record.error?.message,
    record.httpStatus ?? record.error?.httpStatus,
    record.attempts,
    record.promptTokens,
    record.serverPromptTokens,
    record.outputTokens,
    record.outputTokensSource,
    record.reasoningTokens,
    record.maxTokens,
    record.finishReason,
    record.scheduledMs,
    record.sentMs,
    m.ttftMs,
    m.tpotMs,
    m.e2elMs,
    m.queueWaitMs,
  ]);
}
