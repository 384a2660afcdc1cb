/**
 * Turning the text of a result file into a typed value, or a GoodputError (E_RESULT, exit 2)
 * that names the file, the field path and what was found there, and recognises files written
 * by other tools (vLLM, guidellm, GenAI-Perf / AIPerf) or by another goodput command.
 *
 * @module
 */

import type { z } from 'zod';
import { GoodputError } from '../errors.js';
import { type ImportTool, SCHEMA_VERSION } from '../types.js';

const GOODPUT_RUN_HINT = 'pass a result directory written by goodput run --out DIR, or its summary.json';

/** A short description of a JSON value for messages: `string "12"`, `null`, `an array of 3`, missing. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'string') {
    const cut = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `string ${JSON.stringify(cut)}`;
  }
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** `counts.completed`, `chunkMs[3]`, or `(the whole value)`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(the whole value)' : out;
}

/** The first few problems of a failed parse, each as "field PATH: expected X, found Y". */
export function describeIssues(error: z.ZodError, value: unknown, max = 3): string {
  // What the file says it is comes first: a wrong kind explains every other field.
  const first = (path: readonly PropertyKey[]) => (path[0] === 'kind' || path[0] === 'schemaVersion' ? 0 : 1);
  const issues = [...error.issues].sort((a, b) => first(a.path) - first(b.path));
  const lines = issues.slice(0, max).map((issue) => {
    const expected =
      issue.code === 'invalid_type'
        ? `expected ${issue.expected}`
        : issue.code === 'invalid_value'
          ? `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
          : issue.message;
    return `field ${fieldPath(issue.path)}: ${expected}, found ${describeValue(valueAt(value, issue.path))}`;
  });
  const more = error.issues.length > max ? ` (and ${error.issues.length - max} more)` : '';
  return lines.join('; ') + more;
}

/** Parses JSON text; a truncated or damaged file is refused by name. */
export function parseJsonFile(text: string, path: string, rerun: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    if (text.trim().length === 0) {
      throw new GoodputError(
        'E_RESULT',
        `${path} is empty`,
        `the writer stopped before writing it: ${rerun}`,
      );
    }
    const at = /at position (\d+)/.exec(message);
    const truncated =
      /end of JSON input/.test(message) || (at !== null && Number(at[1]) >= text.trimEnd().length);
    if (truncated) {
      throw new GoodputError(
        'E_RESULT',
        `${path} is truncated: it ends after ${Buffer.byteLength(text)} bytes in the middle of a JSON value`,
        `the writer was interrupted: ${rerun}`,
      );
    }
    throw new GoodputError(
      'E_RESULT',
      `${path} is not valid JSON: ${message}`,
      `the file is damaged: ${rerun}`,
    );
  }
}

const has = (v: Record<string, unknown>, ...keys: string[]) => keys.every((k) => k in v);
const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const LLMD = 'an llm-d benchmark report';
const INFERENCE_PERF = 'an inference-perf lifecycle report (summary_lifecycle_metrics.json)';
const SGLANG = 'an SGLang bench_serving result (--output-file JSONL)';

/** A line of SGLang's bench_serving output: vLLM-like keys, with its own E2E spelling. */
function isSglangLine(v: unknown): boolean {
  return (
    isObject(v) &&
    v.kind === undefined &&
    (has(v, 'mean_e2e_latency_ms') ||
      has(v, 'median_e2e_latency_ms') ||
      has(v, 'total_output_tokens_retokenized'))
  );
}

/**
 * What a JSON value looks like when it is not a goodput run summary: "a vLLM --save-result
 * file", "a guidellm benchmarks file", …, or undefined when it is not recognised.
 */
export function recogniseForeign(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    // The lines of a JSONL file: SGLang's bench_serving appends one result a line.
    return value.length > 0 && value.every(isSglangLine) ? SGLANG : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.kind === 'string' && v.kind.startsWith('goodput.') && v.kind !== 'goodput.run') {
    const what = v.kind.slice('goodput.'.length);
    return `a goodput ${what} file (kind ${v.kind})`;
  }
  if (typeof v.version === 'string' && isObject(v.run) && isObject(v.results)) return LLMD;
  if (isObject(v.successes) && isObject(v.failures)) return INFERENCE_PERF;
  if (isSglangLine(v)) return SGLANG;
  if (Array.isArray(v.benchmarks)) return 'a guidellm benchmarks file';
  if (
    has(v, 'time_to_first_token') ||
    has(v, 'request_latency') ||
    has(v, 'input_config') ||
    (typeof v.request_throughput === 'object' && v.request_throughput !== null)
  ) {
    return 'a GenAI-Perf / AIPerf profile export';
  }
  if (
    v.kind === undefined &&
    (has(v, 'mean_ttft_ms') ||
      has(v, 'request_throughput') ||
      has(v, 'request_inthroughput') ||
      has(v, 'backend', 'model_id'))
  ) {
    return 'a vLLM --save-result file (vllm bench serve)';
  }
  return undefined;
}

/**
 * The tool that wrote a parsed result file, for the tools goodput reads (vLLM, guidellm, AIPerf,
 * GenAI-Perf), or undefined. AIPerf and GenAI-Perf exports share their layout: the file name
 * tells them apart (`profile_export_aiperf.json`, `profile_export_genai_perf.json`), else
 * AIPerf's own fields (`benchmark_duration`, `error_summary`, `was_cancelled`).
 */
export function foreignTool(value: unknown, path = ''): ImportTool | undefined {
  const what = recogniseForeign(value);
  if (what === undefined) return undefined;
  if (what.startsWith('a vLLM')) return 'vllm';
  if (what.startsWith('a guidellm')) return 'guidellm';
  if (what === LLMD) return 'llm-d';
  if (what === INFERENCE_PERF) return 'inference-perf';
  if (what === SGLANG) return 'sglang';
  if (!what.startsWith('a GenAI-Perf')) return undefined;
  const name = path.split(/[\\/]/).pop() ?? '';
  if (/genai[_-]?perf/i.test(name)) return 'genai-perf';
  if (/aiperf/i.test(name)) return 'aiperf';
  const v = value as Record<string, unknown>;
  return has(v, 'benchmark_duration') || has(v, 'error_summary') || has(v, 'was_cancelled')
    ? 'aiperf'
    : 'genai-perf';
}

/** The hint for a file that is not a goodput run, by what it looks like. */
function foreignHint(what: string): string {
  if (what.startsWith('a goodput sweep'))
    return "pass one of the sweep's point directories (or use goodput report on the sweep directory)";
  if (what.startsWith('a goodput imported'))
    return `it holds another tool's figures only, no records or histograms: compare, gate --from and report read it; this command needs a goodput run: ${GOODPUT_RUN_HINT}`;
  if (what.startsWith('a goodput')) return GOODPUT_RUN_HINT;
  return `compare, gate --from, report and import read it as it is; this command needs a goodput run: ${GOODPUT_RUN_HINT}`;
}

/**
 * Refuses a goodput file of one of `kinds` whose schemaVersion is newer than this goodput's
 * (E_RESULT, hint: upgrade), before its fields are validated against the older schema.
 */
export function refuseNewerSchema(value: unknown, path: string, kinds: readonly string[]): void {
  const { kind, schemaVersion: version } = (value ?? {}) as { kind?: unknown; schemaVersion?: unknown };
  if (
    typeof kind === 'string' &&
    kinds.includes(kind) &&
    typeof version === 'number' &&
    version > SCHEMA_VERSION
  ) {
    throw new GoodputError(
      'E_RESULT',
      `${path} has schemaVersion ${version}, newer than this goodput understands (${SCHEMA_VERSION})`,
      'upgrade goodput',
    );
  }
}

/**
 * Validates a parsed value against a schema. On failure throws E_RESULT naming the file (and
 * line, for JSONL), the field path and what was found; a foreign file is named as such.
 */
export function validateValue<T>(
  schema: z.ZodType<T>,
  value: unknown,
  where: string,
  expected: string,
  hint: string = GOODPUT_RUN_HINT,
): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const foreign = recogniseForeign(value);
  if (foreign) {
    throw new GoodputError(
      'E_RESULT',
      `${where} is not ${expected}: this looks like ${foreign}`,
      foreignHint(foreign),
    );
  }
  throw new GoodputError(
    'E_RESULT',
    `${where} is not ${expected}: ${describeIssues(parsed.error, value)}`,
    hint,
  );
}
