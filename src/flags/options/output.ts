/**
 * Where results go and how they are printed, and `goodput run`'s sharding.
 *
 * @module
 */

import { DAY_MS } from './bounds.js';
import { type BooleanOption, defineOptions } from './table.js';

/** Replace an earlier run in the output folder; shared by every command that writes a result folder. */
export const FORCE_OPTION: BooleanOption = {
  type: 'boolean',
  group: 'Output',
  description:
    'Replace an earlier run found in --out (its summary.json, requests.jsonl, server-metrics.jsonl are removed first); without it such a folder is refused',
};

/** Where results go and how they are printed. */
export const OUTPUT_OPTIONS = defineOptions({
  json: { type: 'boolean', group: 'Output', description: 'Print the summary as JSON on stdout' },
  out: {
    type: 'string',
    short: 'o',
    valueName: 'DIR',
    group: 'Output',
    description:
      'Result directory for summary.json and requests.jsonl [default: goodput-results/<time>-<runId>/]',
  },
  force: FORCE_OPTION,
  label: {
    type: 'list',
    valueName: 'K=V',
    group: 'Output',
    description: 'Label the run (repeatable), e.g. --label gpu-mem=0.9 --label build=42',
  },
  buckets: {
    type: 'list',
    valueName: 'EDGES',
    group: 'Output',
    default: ['pow2'],
    description:
      'Prompt-length buckets for TTFT and E2EL: pow2, none, or ascending token edges (e.g. 512,2048,8192)',
  },
  quiet: {
    type: 'boolean',
    short: 'q',
    group: 'Output',
    description: 'No progress or table on stderr/stdout',
  },
  progress: {
    type: 'string',
    valueName: 'MODE',
    group: 'Output',
    choices: ['bar', 'lines', 'none'],
    description:
      'Progress on stderr: bar (redrawn, with rate and ETA), lines (one every --progress-every) or none [default: bar on a terminal, else lines]',
  },
  progressEvery: {
    type: 'duration',
    valueName: 'DURATION',
    group: 'Output',
    min: 1000,
    max: DAY_MS,
    description:
      'How often --progress lines prints a line (e.g. 60s for a long run in a CI log) [default: 10s]',
  },
});

/** `goodput run`'s sharding: one share of a workload that several processes run together. */
export const SHARD_OPTIONS = defineOptions({
  shard: {
    type: 'string',
    valueName: 'i/N',
    group: 'Sharding',
    description:
      "Run shard i (0 to N-1) of the workload given by the other flags (the whole run's --requests, --concurrency, --rate): every Nth request (with sessions: every Nth session, whole), 1/N of the concurrency and of each stage; `goodput merge` of the N result folders is the whole run",
  },
  startAt: {
    type: 'string',
    valueName: 'TIME',
    group: 'Sharding',
    description:
      'Start the measured load at this wall-clock instant, the same for every shard: ISO time with zone, Unix ms, or +DURATION (+2s); the start skew is recorded',
  },
});

/** OpenTelemetry export of the requests (run, watch); the OTEL_EXPORTER_OTLP_* variables work without them. */
export const OTLP_OPTIONS = defineOptions({
  otlpEndpoint: {
    type: 'string',
    valueName: 'URL',
    group: 'OpenTelemetry',
    description:
      'Export the requests as GenAI semantic-convention metrics over OTLP/HTTP protobuf to this collector base URL (…/v1/metrics appended, e.g. http://127.0.0.1:4318) [default: $OTEL_EXPORTER_OTLP_ENDPOINT]; headers from $OTEL_EXPORTER_OTLP_HEADERS, never printed. A failed or slow collector never fails the run',
  },
  otlpSpans: {
    type: 'boolean',
    group: 'OpenTelemetry',
    description: 'Also one span per request (…/v1/traces), timed by its send and end',
  },
});
