/**
 * Per-request samples that compare resamples: TTFT, TPOT, ITL and E2EL of every measured,
 * successful request, sorted, plus the sums the throughput intervals need.
 *
 * Definitions follow DESIGN.md (vLLM's): TTFT = first content chunk − send; TPOT =
 * (E2EL − TTFT) / (output tokens − 1); ITL = gaps between consecutive content chunks;
 * E2EL = end − send. Warmup, failed and cancelled requests are left out.
 *
 * @module
 */

import { phaseMetrics } from '../metrics/index.js';
import type { ImportedSamples, RequestRecord } from '../types.js';

export interface RunSamples {
  /** Ascending, milliseconds. */
  ttft: Float64Array;
  tpot: Float64Array;
  itl: Float64Array;
  e2el: Float64Array;
  /** First reasoning and first answer token (reasoning models), as metrics' phaseMetrics defines them. */
  ttfrt?: Float64Array;
  ttfat?: Float64Array;
  /** Measured successful requests. */
  completed: number;
  /** Σ output tokens and Σ output tokens² over those requests (for the throughput interval). */
  outputTokens: { sum: number; sumOfSquares: number };
}

/**
 * The samples of another tool's per-request values (vLLM's detailed TTFTs and inter-chunk
 * gaps): TTFT and ITL as stated; TPOT and E2EL empty, since the tool does not state them per
 * request.
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
    tpot: new Float64Array(0),
    itl: Float64Array.from(stated.itlMs).sort(),
    e2el: new Float64Array(0),
    completed: stated.ttftMs.length,
    outputTokens: { sum, sumOfSquares },
  };
}

/** Collects the per-request latency samples of a run's records. */
export function samplesFromRecords(records: Iterable<RequestRecord>): RunSamples {
  const ttft: number[] = [];
  const tpot: number[] = [];
  const itl: number[] = [];
  const e2el: number[] = [];
  const ttfrt: number[] = [];
  const ttfat: number[] = [];
  let completed = 0;
  let sum = 0;
  let sumOfSquares = 0;
  for (const r of records) {
    if (r.warmup || r.outcome !== 'success') continue;
    completed++;
    sum += r.outputTokens;
    sumOfSquares += r.outputTokens * r.outputTokens;
    const total = r.endMs - r.sentMs;
    e2el.push(total);
    const phases = phaseMetrics(r, r.outputTokens);
    if (phases.ttfrtMs !== undefined) ttfrt.push(phases.ttfrtMs);
    if (phases.ttfatMs !== undefined) ttfat.push(phases.ttfatMs);
    if (r.firstTokenMs === undefined) continue;
    const first = r.firstTokenMs - r.sentMs;
    ttft.push(first);
    if (r.outputTokens > 1) tpot.push((total - first) / (r.outputTokens - 1));
    for (let i = 1; i < r.chunkMs.length; i++)
      itl.push((r.chunkMs[i] as number) - (r.chunkMs[i - 1] as number));
  }
  const sorted = (v: number[]) => Float64Array.from(v).sort();
  return {
    ttft: sorted(ttft),
    tpot: sorted(tpot),
    itl: sorted(itl),
    e2el: sorted(e2el),
    ttfrt: sorted(ttfrt),
    ttfat: sorted(ttfat),
    completed,
    outputTokens: { sum, sumOfSquares },
  };
}
