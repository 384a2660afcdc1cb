/**
 * `goodput trace analyze FILE`: what a trace holds before it is replayed (request count,
 * duration, rate over time, length distributions, the best possible prefix-cache hit rate).
 *
 * @module
 */

import { resolve as resolvePath } from 'node:path';
import { ExitCode, GoodputError } from '../errors.js';
import { defineCommand, parseTraceColumns } from '../flags/index.js';
import {
  analyzeTrace,
  DEFAULT_TRACE_BLOCK_SIZE,
  loadTrace,
  renderTraceAnalysis,
  type TraceReadOptions,
  traceAnalysisJson,
} from './index.js';

const analyzeCommand = defineCommand({
  name: 'analyze',
  summary: 'Request count, duration, rate over time, length distributions and the best prefix-cache hit rate',
  positionals: [
    {
      name: 'FILE',
      description: 'The trace (Mooncake JSONL, Azure CSV, or mapped JSONL/CSV)',
      required: true,
    },
  ],
  options: {
    traceFormat: {
      type: 'string',
      choices: ['auto', 'mooncake', 'azure', 'burstgpt', 'bailian', 'jsonl', 'csv'],
      default: 'auto',
      description: 'Format of the trace; auto recognises it from the first line',
    },
    traceColumns: {
      type: 'list',
      valueName: 'K=COL',
      description: 'Generic JSONL/CSV: the fields holding timestamp, input and output tokens',
    },
    traceTimeUnit: {
      type: 'string',
      choices: ['ms', 's', 'us'],
      description: 'Generic JSONL/CSV: unit of numeric timestamps [default: ms]',
    },
    traceBlockSize: {
      type: 'integer',
      min: 1,
      why: 'e.g. 512',
      valueName: 'N',
      description: "Tokens per hash id of the trace [default: the format's own, Bailian 16, else 512]",
    },
    blockSize: {
      type: 'integer',
      valueName: 'N',
      default: 16,
      min: 1,
      why: 'e.g. 16',
      description: "The server's KV-cache block size: only whole blocks are reused",
    },
    bins: {
      type: 'integer',
      valueName: 'N',
      default: 20,
      min: 1,
      max: 10_000,
      why: 'more bins than a terminal or a chart can show',
      description: 'About this many bins of the rate over time',
    },
    json: { type: 'boolean', description: 'Print the analysis as one JSON document on stdout' },
  },
  async run(ctx) {
    const o = ctx.args.options;
    const file = ctx.args.positionals[0];
    if (file === undefined)
      throw new GoodputError(
        'E_USAGE',
        'trace analyze needs a FILE',
        'e.g. goodput trace analyze trace.jsonl',
      );
    const read: TraceReadOptions = { signal: ctx.signal };
    if (o.traceFormat !== 'auto') read.format = o.traceFormat;
    const columns = o.traceColumns;
    if (columns && columns.length > 0) read.columns = parseTraceColumns(columns);
    if (o.traceTimeUnit !== undefined) read.timeUnit = o.traceTimeUnit;
    const trace = await loadTrace(resolvePath(ctx.cwd, file), read);
    const analysis = analyzeTrace(trace, {
      blockSize: o.blockSize,
      traceBlockSize: o.traceBlockSize ?? trace.blockSize ?? DEFAULT_TRACE_BLOCK_SIZE,
      bins: o.bins,
    });
    ctx.stdout.write(o.json === true ? traceAnalysisJson(analysis) : renderTraceAnalysis(analysis));
    return ExitCode.OK;
  },
});

export const traceCommand = defineCommand({
  name: 'trace',
  summary: 'Look at a trace before replaying it with run --trace (analyze)',
  options: {},
  subcommands: [analyzeCommand],
  async run() {
    throw new GoodputError('E_USAGE', 'trace needs a subcommand', 'e.g. goodput trace analyze trace.jsonl');
  },
});
