/**
 * SGLang's `python -m sglang.bench_serving --output-file F.jsonl` results in the catalogue's
 * vocabulary, one benchmark per line (the file is appended to: one line per run, or per
 * request rate of `--request-rate-range … --multi`). Pure.
 *
 * The format: sgl-project/sglang `python/sglang/bench_serving.py`, the `result` dict of
 * `benchmark()` written with `json.dumps` (so `request_rate` of an unpaced run is `Infinity`):
 * `backend`, `dataset_name`, `request_rate`, `max_concurrency`, `duration`, `completed`,
 * `total_input_tokens`, `total_output_tokens`, `request_throughput`, `input_throughput`,
 * `output_throughput`, `{mean,median,std,p90,p95,p99,max}_{ttft,tpot,itl,e2e_latency}_ms`
 * (which percentiles depends on the version), `concurrency`, `accept_length`; with
 * `--output-details` also `input_lens`, `output_lens`, `ttfts` and `itls` (seconds) and `errors`,
 * the layout of vLLM's detailed result. bench_serving is adapted from vLLM's benchmark_serving:
 * TTFT, TPOT ((latency − TTFT) / (output − 1)), ITL (gaps between streamed chunks) and E2E
 * latency are defined as vLLM's, so as goodput's.
 *
 * @module
 */

import type { LatencyStatKey } from './catalogue.js';
import { finite, type ImportedFigures, putLatency, record } from './import-common.js';
import { vllmSamples } from './import-vllm.js';

const LATENCIES: ReadonlyArray<[key: string, latency: string]> = [
  ['ttft', 'ttft'],
  ['tpot', 'tpot'],
  ['itl', 'itl'],
  ['e2e_latency', 'e2el'],
];

const STATS: ReadonlyArray<[key: string, stat: LatencyStatKey]> = [
  ['mean', 'mean'],
  ['median', 'p50'],
  ['std', 'std'],
  ['p90', 'p90'],
  ['p95', 'p95'],
  ['p99', 'p99'],
  ['max', 'max'],
];

const RATES: ReadonlyArray<[key: string, id: string]> = [
  ['request_throughput', 'request_throughput'],
  ['output_throughput', 'output_throughput'],
  ['total_throughput', 'total_token_throughput'],
  ['completed', 'completed'],
];

const CONTEXT: ReadonlyArray<[key: string, label: string]> = [
  ['backend', 'backend'],
  ['dataset_name', 'dataset'],
  ['request_rate', 'request rate'],
  ['max_concurrency', 'max concurrency'],
  ['duration', 'duration (s)'],
  ['total_input_tokens', 'input tokens'],
  ['total_output_tokens', 'output tokens'],
  ['concurrency', 'mean concurrency'],
  ['accept_length', 'speculative accept length'],
];

/** "rate 4 req/s", "rate inf, 32 at once": a line's load, to tell the lines of a file apart. */
function label(line: Record<string, unknown>, index: number): string {
  const rate = line.request_rate;
  const conc = finite(line.max_concurrency);
  const parts = [
    typeof rate === 'number' || typeof rate === 'string' ? `rate ${rate === 'Infinity' ? 'inf' : rate}` : '',
    conc !== undefined ? `${conc} at once` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : `line ${index + 1}`;
}

function readLine(line: Record<string, unknown>, index: number): ImportedFigures {
  const figures: Record<string, number> = {};
  for (const [key, name] of LATENCIES) {
    const stats: Partial<Record<LatencyStatKey, unknown>> = {};
    for (const [k, stat] of STATS) stats[stat] = line[`${k}_${key}_ms`];
    putLatency(figures, name, stats);
  }
  for (const [key, id] of RATES) {
    const x = finite(line[key]);
    if (x !== undefined) figures[id] = x;
  }
  if (figures.total_token_throughput === undefined) {
    const input = finite(line.input_throughput);
    const output = finite(line.output_throughput);
    // input + output tokens/s over the same duration: exactly the total throughput.
    if (input !== undefined && output !== undefined) figures.total_token_throughput = input + output;
  }
  const context: Array<[string, string]> = [];
  for (const [key, text] of CONTEXT) {
    const x = line[key];
    if (typeof x === 'number' || (typeof x === 'string' && x !== '')) context.push([text, String(x)]);
  }
  const notes = ["SGLang's bench_serving defines TTFT, TPOT, ITL and E2E latency as vLLM's (and goodput's)"];
  const out: ImportedFigures = { figures, notes, context, label: label(line, index) };
  const samples = vllmSamples(line);
  if (samples) {
    out.samples = samples;
    notes.push(
      `per-request ttfts and itls of ${samples.ttftMs.length} successful requests read (seconds, ×1000 to ms): TTFT and ITL get intervals`,
    );
  }
  return out;
}

/** Every line of a bench_serving JSONL (an array of its lines, or one line's object). */
export function readSglang(value: unknown): ImportedFigures[] {
  const lines = Array.isArray(value) ? value : [value];
  return lines.map((line, i) => readLine(record(line) ?? {}, i));
}
