/**
 * The trace flags (`--trace`, `--trace-format`, `--trace-columns`, `--trace-time-unit`,
 * `--trace-block-size`, `--time-scale`) → the run's BenchmarkTrace, and the flags a trace
 * replay cannot be combined with.
 *
 * @module
 */

import { isAbsolute, resolve as resolvePath } from 'node:path';
import { GoodputError } from '../errors.js';
import type { BenchmarkTrace } from '../runner/config.js';
import { type FlagValues, flagName, type TRACE_OPTIONS } from './options/index.js';
import type { ParsedArgs } from './spec.js';

const COLUMN_KEYS = ['timestamp', 'input', 'output'] as const;
const GENERIC_DEFAULTS = { timestamp: 'timestamp', input: 'input_length', output: 'output_length' };
/** Flags that choose prompts or the load's schedule, which a trace replaces. */
const REPLACED = [
  'dataset',
  'promptTokens',
  'promptTokensRange',
  'systemPromptTokens',
  'rate',
  'concurrency',
  'burstiness',
  'sessions',
  'sessionRate',
];

function usage(message: string, hint: string): GoodputError {
  return new GoodputError('E_USAGE', message, hint);
}

/** `timestamp=ts,input=prompt_len,output=gen_len` → the mapping (unnamed keys keep their default). */
export function parseTraceColumns(items: readonly string[]): NonNullable<BenchmarkTrace['columns']> {
  const columns = { ...GENERIC_DEFAULTS };
  for (const item of items) {
    const eq = item.indexOf('=');
    const key = eq > 0 ? item.slice(0, eq).trim() : '';
    const value = eq > 0 ? item.slice(eq + 1).trim() : '';
    if (!(COLUMN_KEYS as readonly string[]).includes(key) || value === '') {
      throw usage(
        `--trace-columns expects KEY=COLUMN with KEY one of ${COLUMN_KEYS.join(', ')}, got '${item}'`,
        'e.g. --trace-columns timestamp=TIMESTAMP,input=ContextTokens,output=GeneratedTokens',
      );
    }
    columns[key as (typeof COLUMN_KEYS)[number]] = value;
  }
  return columns;
}

/** The first flag given that a trace replaces (as typed, e.g. `--prompt-tokens`), or undefined. */
export function flagReplacedByTrace(args: Pick<ParsedArgs, 'given'>): string | undefined {
  const key = REPLACED.find((k) => args.given.has(k));
  return key === undefined ? undefined : `--${flagName(key)}`;
}

/** The trace to replay, or undefined without --trace; refuses flags a trace replaces. */
export function resolveTraceFlags(
  args: ParsedArgs<Partial<FlagValues<typeof TRACE_OPTIONS>>>,
  cwd: string,
): BenchmarkTrace | undefined {
  const o = args.options;
  const path = o.trace === '' ? undefined : o.trace;
  if (path === undefined) {
    for (const key of ['traceColumns', 'traceTimeUnit', 'traceBlockSize', 'timeScale']) {
      // --time-scale also scales an agent trace's start times (flags/agents.ts).
      if (key === 'timeScale' && args.given.has('agentTrace')) continue;
      if (args.given.has(key))
        throw usage(`--${flagName(key)} needs --trace`, 'pass --trace FILE to replay a trace');
    }
    if (args.given.has('traceFormat'))
      throw usage('--trace-format needs --trace', 'pass --trace FILE to replay a trace');
    return undefined;
  }
  const replaced = flagReplacedByTrace(args);
  if (replaced !== undefined) {
    throw usage(
      `${replaced} cannot be used with --trace`,
      'a trace gives every request its send time and its prompt and output lengths; drop the flag (--time-scale speeds the replay up or slows it down)',
    );
  }
  // Not given: the trace format's own (Bailian's 16), else Mooncake's 512 (workload/trace/replay.ts).
  const blockSize = o.traceBlockSize;
  const timeScale = o.timeScale ?? 1;
  const trace: BenchmarkTrace = {
    path: isAbsolute(path) ? path : resolvePath(cwd, path),
    ...(blockSize !== undefined ? { blockSize } : {}),
    timeScale,
  };
  const format = o.traceFormat;
  if (format !== undefined && format !== 'auto') trace.format = format;
  const columns = o.traceColumns;
  if (columns && columns.length > 0) {
    if (trace.format !== undefined && trace.format !== 'jsonl' && trace.format !== 'csv') {
      throw usage(
        `--trace-columns applies to generic traces, not --trace-format ${trace.format}`,
        'use --trace-format jsonl or csv with --trace-columns',
      );
    }
    trace.columns = parseTraceColumns(columns);
  }
  if (o.traceTimeUnit !== undefined) trace.timeUnit = o.traceTimeUnit;
  return trace;
}
