/**
 * Progressive load: 5 requests (any error?), then 30 (percentiles), then 100 (goodput),
 * stopping at the first stage that fails. Each stage is a normal `run`.
 *
 * @module
 */

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { REQUEST_ERRORS } from '../errors.js';
import { errorRate } from '../metrics/index.js';
import { type BenchmarkConfig, runBenchmark } from '../runner/index.js';
import type { RunSummary } from '../types.js';
import type { StepResult } from './types.js';

export const PROGRESSIVE_STAGES = [5, 30, 100] as const;
/** Error share above which the 30- and 100-request stages fail. */
export const MAX_ERROR_RATE = 0.05;

export interface ProgressiveOptions {
  config: BenchmarkConfig;
  outDir: string;
  cwd: string;
  signal?: AbortSignal;
  /** Attainment the 100-request stage needs when SLOs are set. */
  minAttainment: number;
  version?: string;
}

function mostCommonError(s: RunSummary): string {
  const top = [...s.errors].sort((a, b) => b.count - a.count)[0];
  if (!top) return '';
  return `${top.count}× ${top.code}: ${REQUEST_ERRORS[top.code].cause} (${top.example})`;
}

function judge(
  n: number,
  s: RunSummary,
  minAttainment: number,
): { ok: boolean; cause?: string; fix?: string } {
  const errors = s.counts.failed;
  const top = [...s.errors].sort((a, b) => b.count - a.count)[0];
  const fix = top ? REQUEST_ERRORS[top.code].hint : 'lower the load';
  if (n === PROGRESSIVE_STAGES[0]) {
    return errors === 0
      ? { ok: true }
      : { ok: false, cause: `${errors} of ${n} requests failed: ${mostCommonError(s)}`, fix };
  }
  // No judged request at all is no evidence that the channel works: treat it as all failed.
  const rate = errorRate(s) ?? 1;
  if (rate > MAX_ERROR_RATE) {
    return {
      ok: false,
      cause: `error rate ${(rate * 100).toFixed(1)}% over ${MAX_ERROR_RATE * 100}%: ${mostCommonError(s)}`,
      fix,
    };
  }
  const sloSet = Object.values(s.goodput.slo).some((v) => v !== undefined);
  if (n === PROGRESSIVE_STAGES[2] && sloSet && s.goodput.attainment < minAttainment) {
    return {
      ok: false,
      cause: `SLO attainment ${(s.goodput.attainment * 100).toFixed(1)}% is below ${(minAttainment * 100).toFixed(0)}% at concurrency ${s.meta.load.concurrency ?? '?'}`,
      fix: 'the endpoint misses the SLO at this load: lower --concurrency, or find the capacity with goodput sweep',
    };
  }
  return { ok: true };
}

/** Runs the stages in order; returns one StepResult per stage run. */
export async function runProgressive(opts: ProgressiveOptions): Promise<StepResult[]> {
  const steps: StepResult[] = [];
  for (const n of PROGRESSIVE_STAGES) {
    if (opts.signal?.aborted) break;
    const t0 = performance.now();
    const config: BenchmarkConfig = {
      ...opts.config,
      load: { ...opts.config.load, requests: n, durationMs: undefined, warmup: 0 },
      outDir: join(opts.outDir, `stage-${n}`),
    };
    if (config.load.mode === 'closed') config.load.concurrency = Math.min(config.load.concurrency ?? 4, n);
    const { summary: s, dir } = await runBenchmark(config, {
      cwd: opts.cwd,
      quiet: true,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.version ? { version: opts.version } : {}),
    });
    const verdict = judge(n, s, opts.minAttainment);
    const details = [
      `${s.completed}/${s.counts.attempted} completed in ${s.duration.toFixed(2)} s → ${dir}`,
      `TTFT p50 ${s.median_ttft_ms.toFixed(1)} ms, p99 ${s.p99_ttft_ms.toFixed(1)} ms; TPOT p50 ${s.median_tpot_ms.toFixed(1)} ms, p99 ${s.p99_tpot_ms.toFixed(1)} ms`,
    ];
    if (n === PROGRESSIVE_STAGES[2]) {
      details.push(
        `goodput ${s.request_goodput.toFixed(2)} req/s, attainment ${(s.goodput.attainment * 100).toFixed(1)}%, token goodput ratio ${s.goodput.tokenGoodputRatio.toFixed(3)}`,
      );
    }
    steps.push({
      stage: 'load',
      title: `Progressive load: ${n} requests`,
      status: verdict.ok ? 'pass' : 'fail',
      ms: performance.now() - t0,
      details,
      ...(verdict.cause ? { cause: verdict.cause, fix: verdict.fix } : {}),
      data: { requests: n, dir, attainment: s.goodput.attainment, failed: s.counts.failed },
    });
    if (!verdict.ok) break;
  }
  return steps;
}
