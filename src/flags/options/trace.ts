/**
 * The trace-replay option group (`--trace` and its format, columns, block size and time scale),
 * part of every benchmark-running command's flags (BENCHMARK_OPTIONS).
 *
 * @module
 */

import { defineOptions } from './table.js';

/** Trace replay: requests at the times and lengths of a trace file (Mooncake, Azure, mapped JSONL/CSV). */
export const TRACE_OPTIONS = defineOptions({
  trace: {
    type: 'string',
    valueName: 'FILE',
    group: 'Trace',
    description:
      'Replay a trace: each request at its timestamp with its prompt and output lengths (Mooncake or Bailian JSONL with hash_ids, Azure or BurstGPT CSV, or --trace-columns); replaces --rate/--concurrency and synthetic prompts',
  },
  traceFormat: {
    type: 'string',
    choices: ['auto', 'mooncake', 'azure', 'burstgpt', 'bailian', 'jsonl', 'csv'],
    default: 'auto',
    group: 'Trace',
    description: 'Format of --trace; auto recognises it from the first line',
  },
  traceColumns: {
    type: 'list',
    valueName: 'K=COL',
    group: 'Trace',
    description:
      'Generic JSONL/CSV trace: the fields holding timestamp, input (prompt tokens) and output tokens, e.g. timestamp=ts,input=prompt_len,output=gen_len [default: timestamp,input_length,output_length]',
  },
  traceTimeUnit: {
    type: 'string',
    choices: ['ms', 's', 'us'],
    group: 'Trace',
    description:
      'Generic JSONL/CSV trace: unit of numeric timestamps (date-times are read as such) [default: ms]',
  },
  traceBlockSize: {
    type: 'integer',
    min: 1,
    valueName: 'N',
    group: 'Trace',
    description:
      "Tokens per hash id of a trace: requests sharing a hash id share that block of prompt text [default: the format's own, Bailian 16, else 512]",
  },
  timeScale: {
    type: 'number',
    above: 0,
    valueName: 'F',
    group: 'Trace',
    description:
      'Multiply every trace time by F (--trace send times, --agent-trace run start times): 0.1 replays ten times as fast, 2 half as fast [default: 1]',
  },
});
