/**
 * Per-request samples that compare resamples: TTFT, TPOT, ITL and E2EL of every measured,
 * successful request, sorted, plus the sums the throughput intervals need.
 *
 * Each value is `requestMetrics()`'s, the one computation of a request's latencies that the
 * run summary uses too (metrics/latencies.ts gives each formula). Warmup, failed and cancelled
 * requests are left out.
 *
 * @module
 */

import { latencyDef, pushPerRequest, requestMetrics } from '../metrics/index.js';
import type { ImportedSamples, RequestRecord } from '../types.js';

export interface RunSamples {
  /** Ascending, milliseconds. */
  ttft: Float64Array;
  tpot: Float64Array;
  itl: Float64Array;
  e2el: Float64Array;
  /** First reasoning and first answer token (reasoning models). */
  ttfrt?: Float64Array;
  ttfat?: Float64Array;
  /** Measured successful requests. */
  completed: number;
  /** Σ output tokens and Σ output tokens² over those requests (for the throughput interval). */
  outputTokens: { sum: number; sumOfSquares: number };
}

/**
 * The samples of another tool's per-request values (vLLM's detailed TTFTs and inter-chunk
 * gaps, AIPerf's per-request records): TTFT and ITL as stated; TPOT and E2EL where the tool
 * states them per request (AIPerf), else empty.
 */
export function samplesFromStated(stated: ImportedSamples): RunSamples {
  let sum = 0;
  let sumOfSquares = 0;
  for (const n of stated.outputTokens) {
    sum += n;
    sumOfSquares += n * n;
  }
  return {
    ttft: Float64Array.from(stated.ttftMs).sort(),
    tpot: Float64Array.from(stated.tpotMs ?? []).sort(),
    itl: Float64Array.from(stated.itlMs).sort(),
    e2el: Float64Array.from(stated.e2elMs ?? []).sort(),
    completed: stated.ttftMs.length,
    outputTokens: { sum, sumOfSquares },
  };
}

/** The latencies compare resamples, as `requestMetrics()` computes them (the latency table's formulas). */
const SAMPLED = ['ttft', 'tpot', 'itl', 'e2el', 'ttfrt', 'ttfat'] as const;

/** Collects the per-request latency samples of a run's records. */
export function samplesFromRecords(records: Iterable<RequestRecord>): RunSamples {
  const defs = SAMPLED.map(latencyDef);
  const values: number[][] = SAMPLED.map(() => []);
  let completed = 0;
  let sum = 0;
  let sumOfSquares = 0;
  for (const r of records) {
    if (r.warmup || r.outcome !== 'success') continue;
    completed++;
    sum += r.outputTokens;
    sumOfSquares += r.outputTokens * r.outputTokens;
    const m = requestMetrics(r);
    for (let i = 0; i < defs.length; i++) pushPerRequest(defs[i]!, m, values[i]!);
  }
  const [ttft, tpot, itl, e2el, ttfrt, ttfat] = values.map((v) => Float64Array.from(v).sort()) as [
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
  ];
  return { ttft, tpot, itl, e2el, ttfrt, ttfat, completed, outputTokens: { sum, sumOfSquares } };
}
