/**
 * What a trace holds, before replaying it (pure): request count, duration, request rate over
 * time, prompt and output length distributions, and the best prefix-cache hit rate any server
 * could reach on it (an unbounded cache that keeps every block it ever saw).
 *
 * The hit-rate bound follows the prefix-caching rule of vLLM and SGLang: a request reuses the
 * leading blocks another request computed before it, up to its first miss, whole server
 * blocks only (`blockSize`, 16 by default as in vLLM), and never its last token (which must be
 * computed to produce the first output token). A trace's hash id names `traceBlockSize`
 * tokens of prompt text; a request ending inside a block shares only as much of it as the
 * earlier request that computed it had.
 *
 * @module
 */

import type { TraceFormat } from '../../types.js';
import { entryHashIds, type Trace } from './trace.js';

export interface LengthDistribution {
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  total: number;
  /** Requests per power-of-two bucket: `upTo` is the bucket's upper bound (inclusive). */
  histogram: { upTo: number; requests: number }[];
}

export interface RateBin {
  /** Start of the bin in ms after the first request. */
  startMs: number;
  requests: number;
  /** requests / bin width, per second. */
  rate: number;
}

export interface TraceAnalysis {
  path: string;
  format: TraceFormat;
  sha256: string;
  requests: number;
  /** Last request's time − first's. */
  durationMs: number;
  /** Requests per second over the duration (undefined when every request is at the same time). */
  meanRate?: number;
  /** Width of a rate bin. */
  binMs: number;
  rateOverTime: RateBin[];
  peakRate: number;
  input: LengthDistribution;
  output: LengthDistribution;
  sessions: number;
  /** Undefined when the trace names no hash ids (no prefix information). */
  prefixCache?: {
    /** Server's KV-cache block size in tokens. */
    blockSize: number;
    /** Tokens per hash id. */
    traceBlockSize: number;
    /** Best possible hit rate: hitTokens / promptTokens. */
    hitRate: number;
    hitTokens: number;
    promptTokens: number;
    /** Distinct hash ids: the blocks an unbounded cache would hold. */
    uniqueBlocks: number;
  };
}

export interface AnalyzeOptions {
  /** Server KV-cache block size [default 16]. */
  blockSize?: number;
  /** Tokens per hash id [default 512]. */
  traceBlockSize?: number;
  /** Number of rate bins [default 20]. */
  bins?: number;
}

/** Value at quantile q of sorted values (nearest rank). */
function quantile(sorted: Uint32Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function lengthDistribution(values: Uint32Array): LengthDistribution {
  const sorted = values.slice().sort();
  let total = 0;
  const buckets = new Map<number, number>();
  for (const v of sorted) {
    total += v;
    const upTo = v <= 1 ? 1 : 2 ** Math.ceil(Math.log2(v));
    buckets.set(upTo, (buckets.get(upTo) ?? 0) + 1);
  }
  return {
    min: sorted.length > 0 ? sorted[0]! : 0,
    mean: sorted.length > 0 ? total / sorted.length : 0,
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: sorted.length > 0 ? sorted[sorted.length - 1]! : 0,
    total,
    histogram: [...buckets].map(([upTo, requests]) => ({ upTo, requests })),
  };
}

/** A round bin width near duration / bins: 1, 2 or 5 × a power of ten ms. */
function niceBinMs(durationMs: number, bins: number): number {
  const raw = Math.max(1, durationMs / bins);
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function rateOverTime(trace: Trace, durationMs: number, bins: number): { binMs: number; bins: RateBin[] } {
  const binMs = niceBinMs(durationMs, bins);
  const n = Math.max(1, Math.floor(durationMs / binMs) + 1);
  const counts = new Array<number>(n).fill(0);
  for (let k = 0; k < trace.count; k++) counts[Math.min(n - 1, Math.floor(trace.offsetMs[k]! / binMs))]!++;
  return {
    binMs,
    bins: counts.map((requests, i) => ({ startMs: i * binMs, requests, rate: (requests * 1000) / binMs })),
  };
}

/** The best possible prefix-cache hit rate (see the module comment); undefined without hash ids. */
export function prefixCacheBound(
  trace: Trace,
  blockSize: number,
  traceBlockSize: number,
): TraceAnalysis['prefixCache'] {
  if (trace.hashIds.length === 0) return undefined;
  // Hash id → the most tokens of its block any request so far has computed.
  const seen = new Map<number, number>();
  let hitTokens = 0;
  let promptTokens = 0;
  for (let k = 0; k < trace.count; k++) {
    const ids = entryHashIds(trace, k);
    const input = trace.input[k]!;
    promptTokens += input;
    let shared = 0;
    for (let b = 0; b < ids.length; b++) {
      const mine = Math.min(traceBlockSize, input - b * traceBlockSize);
      if (mine <= 0) break;
      const before = seen.get(ids[b]!);
      if (before === undefined) break;
      const common = Math.min(mine, before);
      shared += common;
      if (common < traceBlockSize) break;
    }
    const reusable = Math.floor((input - 1) / blockSize) * blockSize;
    hitTokens += Math.min(Math.floor(shared / blockSize) * blockSize, reusable);
    for (let b = 0; b < ids.length; b++) {
      const mine = Math.min(traceBlockSize, input - b * traceBlockSize);
      if (mine <= 0) break;
      const id = ids[b]!;
      if ((seen.get(id) ?? 0) < mine) seen.set(id, mine);
    }
  }
  return {
    blockSize,
    traceBlockSize,
    hitRate: promptTokens > 0 ? hitTokens / promptTokens : 0,
    hitTokens,
    promptTokens,
    uniqueBlocks: seen.size,
  };
}

/** Analyses a trace; see the module comment. */
export function analyzeTrace(trace: Trace, options: AnalyzeOptions = {}): TraceAnalysis {
  const durationMs = trace.count > 0 ? trace.offsetMs[trace.count - 1]! : 0;
  const { binMs, bins } = rateOverTime(trace, durationMs, options.bins ?? 20);
  const analysis: TraceAnalysis = {
    path: trace.path,
    format: trace.format,
    sha256: trace.sha256,
    requests: trace.count,
    durationMs,
    binMs,
    rateOverTime: bins,
    peakRate: Math.max(...bins.map((b) => b.rate)),
    input: lengthDistribution(trace.input),
    output: lengthDistribution(trace.output),
    sessions: trace.sessions,
  };
  if (durationMs > 0) analysis.meanRate = (trace.count * 1000) / durationMs;
  const bound = prefixCacheBound(trace, options.blockSize ?? 16, options.traceBlockSize ?? 512);
  if (bound) analysis.prefixCache = bound;
  return analysis;
}
