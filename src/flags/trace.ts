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
import type { TraceFormat } from '../types.js';
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

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
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
export function flagReplacedByTrace(args: ParsedArgs): string | undefined {
  const key = REPLACED.find((k) => args.given.has(k));
  return key === undefined ? undefined : `--${kebab(key)}`;
}

/** The trace to replay, or undefined without --trace; refuses flags a trace replaces. */
export function resolveTraceFlags(args: ParsedArgs, cwd: string): BenchmarkTrace | undefined {
  const o = args.options;
  const path = typeof o.trace === 'string' && o.trace !== '' ? o.trace : undefined;
  if (path === undefined) {
    for (const key of ['traceColumns', 'traceTimeUnit', 'traceBlockSize', 'timeScale']) {
      if (args.given.has(key))
        throw usage(`--${kebab(key)} needs --trace`, 'pass --trace FILE to replay a trace');
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
  const blockSize = typeof o.traceBlockSize === 'number' ? o.traceBlockSize : undefined;
  if (blockSize !== undefined && !(blockSize >= 1))
    throw usage('--trace-block-size must be at least 1', 'Mooncake traces use 512');
  const timeScale = typeof o.timeScale === 'number' ? o.timeScale : 1;
  if (!(timeScale > 0)) {
    throw usage(
      `--time-scale must be > 0, got ${timeScale}`,
      'e.g. --time-scale 0.1 replays ten times as fast',
    );
  }
  const trace: BenchmarkTrace = {
    path: isAbsolute(path) ? path : resolvePath(cwd, path),
    ...(blockSize !== undefined ? { blockSize } : {}),
    timeScale,
  };
  const format = o.traceFormat;
  if (typeof format === 'string' && format !== 'auto') trace.format = format as TraceFormat;
  const columns = o.traceColumns as string[] | undefined;
  if (columns && columns.length > 0) {
    if (trace.format !== undefined && trace.format !== 'jsonl' && trace.format !== 'csv') {
      throw usage(
        `--trace-columns applies to generic traces, not --trace-format ${trace.format}`,
        'use --trace-format jsonl or csv with --trace-columns',
      );
    }
    trace.columns = parseTraceColumns(columns);
  }
  if (typeof o.traceTimeUnit === 'string') trace.timeUnit = o.traceTimeUnit as BenchmarkTrace['timeUnit'];
  return trace;
}
