/**
 * Other tools' result files as they are written, before their figures are read: Python's JSON
 * (`json.dumps` writes `Infinity` and `NaN`, which JSON.parse refuses: SGLang's unpaced
 * `request_rate`), JSON Lines (SGLang's bench_serving appends one result a line; AIPerf's
 * per-request `profile_export.jsonl`), YAML (llm-d reports), the versions goodput reads of each format, and the
 * fields a damaged file gets wrong. A version goodput does not read, or a damaged file, is a
 * usage error naming the file, the field and the fix.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { GoodputError } from '../errors.js';
import type { ImportTool } from '../types.js';
import { parseYamlBounded } from '../util/index.js';
import { readResultFile } from './read-file.js';
import { describeIssues, describeValue } from './validate.js';

/** Python's bare Infinity, -Infinity and NaN outside strings → strings JSON.parse accepts. */
function pythonJson(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"|-?Infinity|NaN/g, (m) => (m.startsWith('"') ? m : `"${m}"`));
}

function tryParse(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    try {
      return { value: JSON.parse(pythonJson(text)) };
    } catch {
      return undefined;
    }
  }
}

/**
 * JSON Lines: one object a line, blank lines skipped; a torn last line (a writer interrupted)
 * is left out; a damaged line before it is an error naming it. Undefined when the text is not
 * JSON Lines at all (its first line is not an object).
 */
export function parseJsonLines(text: string, path: string): unknown[] | undefined {
  const lines = text.split('\n');
  const out: unknown[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    const parsed = tryParse(line);
    const ok =
      parsed && parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value);
    if (ok) {
      out.push(parsed.value);
      continue;
    }
    if (out.length === 0) return undefined;
    if (lines.slice(i + 1).every((l) => l.trim() === '')) break;
    throw new GoodputError(
      'E_USAGE',
      `${path} line ${i + 1} is not a JSON object (a damaged JSON Lines file)`,
      'the file was damaged after it was written: write it again with the tool, or remove that line',
    );
  }
  return out;
}

/** The largest YAML result read (llm-d reports are a few hundred KiB at most). */
const YAML_RESULT_MAX_BYTES = 16 * 1024 * 1024;

/**
 * A result file's text: JSON, Python's JSON (Infinity, NaN), JSON Lines, or, for a `.yaml` /
 * `.yml` file, YAML (llm-d-benchmark writes its reports in YAML), parsed within util's bounds.
 * Undefined when it is none of them (the caller reports the JSON error).
 */
export function parseForeignText(text: string, path: string): unknown | undefined {
  const whole = tryParse(text);
  if (whole) return whole.value;
  if (/\.ya?ml$/i.test(path)) {
    const r = parseYamlBounded(text, { maxBytes: YAML_RESULT_MAX_BYTES });
    if (!r.ok) {
      throw new GoodputError(
        'E_USAGE',
        `${path} is not YAML goodput can read: ${r.problem}`,
        'pass the llm-d benchmark report as llm-d-benchmark wrote it (YAML or JSON)',
      );
    }
    return r.documents.length === 1 ? r.documents[0] : r.documents;
  }
  return parseJsonLines(text, path);
}

const num = z.number();
const stat = z.looseObject({ units: z.string(), mean: num });
const statistics = z.looseObject({
  units: z.string(),
  mean: num,
  stddev: num.nullish(),
  min: num.nullish(),
  p50: num.nullish(),
  p90: num.nullish(),
  p95: num.nullish(),
  p99: num.nullish(),
  p99p9: num.nullish(),
  max: num.nullish(),
});
const LlmdReport = z.looseObject({
  version: z.string(),
  run: z.looseObject({ uid: z.string() }),
  results: z.looseObject({
    request_performance: z
      .looseObject({
        aggregate: z
          .looseObject({
            requests: z
              .looseObject({
                total: z.int().nonnegative(),
                failures: z.int().nonnegative().nullish(),
                incomplete: z.int().nonnegative().nullish(),
              })
              .nullish(),
            latency: z.record(z.string(), statistics.nullable()).nullish(),
            throughput: z.record(z.string(), stat.nullable()).nullish(),
          })
          .nullish(),
      })
      .nullish(),
  }),
});
const aiperfMetric = z.looseObject({
  unit: z.string(),
  avg: num.nullish(),
  p50: num.nullish(),
  p99: num.nullish(),
});
const AiperfExport = z.looseObject({
  schema_version: z.string().nullish(),
  time_to_first_token: aiperfMetric.nullish(),
  inter_token_latency: aiperfMetric.nullish(),
  inter_chunk_latency: aiperfMetric.nullish(),
  request_latency: aiperfMetric.nullish(),
  request_throughput: aiperfMetric.nullish(),
});
const ipLatency = z.looseObject({ mean: num, median: num.nullish(), p90: num.nullish(), p99: num.nullish() });
const InferencePerfReport = z.looseObject({
  successes: z.looseObject({
    count: z.int().nonnegative(),
    latency: z.record(z.string(), ipLatency.nullable()).nullish(),
    throughput: z.record(z.string(), num).nullish(),
  }),
  failures: z.looseObject({ count: z.int().nonnegative() }),
});

const DAMAGED_HINT: Partial<Record<ImportTool, string>> = {
  'llm-d':
    'write it again with llm-d-benchmark (its benchmark_report tools check the v0.2 schema), or fix the field named: goodput report --format llm-d writes one goodput reads',
  aiperf: 'write it again with aiperf profile, or fix the field named',
  'inference-perf': 'write it again with inference-perf, or fix the field named',
};

const SCHEMAS: Partial<Record<ImportTool, z.ZodType>> = {
  'llm-d': LlmdReport,
  aiperf: AiperfExport,
  'inference-perf': InferencePerfReport,
};

function unreadVersion(path: string, what: string, field: string, found: unknown, hint: string): never {
  throw new GoodputError(
    'E_USAGE',
    `${path}: ${what} ${field} ${describeValue(found)} is not a version goodput reads`,
    hint,
  );
}

/** Refuses a version of a format goodput does not read, naming the field and the fix. */
function checkVersion(tool: ImportTool, value: Record<string, unknown>, path: string): void {
  if (tool === 'llm-d' && value.version !== '0.2' && value.version !== '0.2.1') {
    unreadVersion(
      path,
      'an llm-d benchmark report:',
      'field version',
      value.version,
      value.version === '0.1'
        ? 'goodput reads versions 0.2 and 0.2.1: write the run again with llm-d-benchmark (its harnesses write 0.2), or convert it with its benchmark_report tools'
        : 'goodput reads versions 0.2 and 0.2.1: upgrade goodput for a newer one',
    );
  }
  if (tool === 'guidellm') {
    const version = (value.metadata as Record<string, unknown> | undefined)?.version;
    if (
      version !== undefined &&
      !(typeof version === 'number' && Number.isInteger(version) && version <= 2)
    ) {
      unreadVersion(
        path,
        'a guidellm benchmarks file:',
        'field metadata.version',
        version,
        'goodput reads guidellm reports up to metadata.version 2 (guidellm 0.7): upgrade goodput, or save the report with guidellm 0.7',
      );
    }
  }
  if (tool === 'aiperf' && value.schema_version !== undefined && value.schema_version !== null) {
    const v = value.schema_version;
    if (typeof v !== 'string' || !/^1(\.\d+)*$/.test(v)) {
      unreadVersion(
        path,
        'an AIPerf profile export:',
        'field schema_version',
        v,
        'goodput reads AIPerf export schemas 1.x (to 1.5): upgrade goodput for a newer major version',
      );
    }
  }
}

/**
 * Checks another tool's parsed file before its figures are read: a version goodput does not
 * read, or a field of the wrong type where goodput reads one, is E_USAGE naming the file, the
 * field and the fix.
 */
export function checkForeignFile(tool: ImportTool, value: unknown, path: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  checkVersion(tool, value as Record<string, unknown>, path);
  const schema = SCHEMAS[tool];
  if (!schema) return;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new GoodputError(
      'E_USAGE',
      `${path} is a damaged ${tool} result: ${describeIssues(parsed.error, value)}`,
      DAMAGED_HINT[tool] ?? 'write it again with the tool',
    );
  }
}

/**
 * AIPerf's per-request records beside its summary (`profile_export.jsonl` beside
 * `profile_export_aiperf.json`; `P.jsonl` beside `P_aiperf.json` with --profile-export-prefix),
 * parsed, or undefined when there is none. Read through the bounded result-file read.
 */
export async function readAiperfRecords(summaryPath: string): Promise<unknown[] | undefined> {
  const name = basename(summaryPath);
  if (!/_aiperf\.json$/i.test(name)) return undefined;
  const path = join(dirname(summaryPath), name.replace(/_aiperf\.json$/i, '.jsonl'));
  if (!existsSync(path)) return undefined;
  const bytes = await readResultFile(path);
  if (bytes === undefined) return undefined;
  return parseJsonLines(bytes.toString('utf8'), path) ?? [];
}
