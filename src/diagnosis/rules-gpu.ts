/**
 * The diagnosis rule that reads the GPUs (a DCGM exporter's figures in the summary's
 * `server.gpu`, `--gpu-metrics-url`) beside the engine's queue:
 *
 * - scheduler-bound: the GPUs were mostly idle (mean utilisation < 50 %) while requests
 *   waited on the server most of the run (`waiting` ≥ 1 in ≥ 50 % of the scrapes) and the KV
 *   cache was not the limit (no preemption, KV usage below 90 % when exposed): the engine
 *   admitted too few sequences for the hardware, so the limit is its scheduler, not compute.
 *
 * @module
 */

import { type EngineId, engineAdvice } from '../engines/index.js';
import type { Finding, ServerSample } from '../types.js';
import { KV_PRESSURE_USAGE, type SummaryView } from './rules.js';

/** Mean GPU utilisation (%) below which the GPUs count as mostly idle. */
export const GPU_LOW_UTIL_PCT = 50;
/** Share of the scrapes with requests waiting above which the queue counts as full most of the run. */
export const QUEUE_FULL_SHARE = 0.5;

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Scheduler-bound: idle GPUs behind a standing queue, with KV memory to spare. */
export function schedulerBoundFinding(
  samples: readonly ServerSample[],
  summary?: SummaryView,
  engine?: EngineId,
): Finding | undefined {
  const gpu = summary?.server?.gpu;
  const util = gpu?.utilPct?.mean;
  if (gpu === undefined || util === undefined || util >= GPU_LOW_UTIL_PCT) return undefined;
  const withQueue = samples.filter((s) => s.values.waiting !== undefined);
  if (withQueue.length === 0) return undefined;
  const queued = withQueue.filter((s) => s.values.waiting! >= 1);
  const share = queued.length / withQueue.length;
  if (share < QUEUE_FULL_SHARE) return undefined;
  const kv = samples.map((s) => s.values.kvUsage).filter((v): v is number => v !== undefined);
  const kvPeak = kv.length > 0 ? Math.max(...kv) : undefined;
  const preemptions = summary?.server?.preemptions ?? 0;
  if ((kvPeak !== undefined && kvPeak >= KV_PRESSURE_USAGE) || preemptions > 0) return undefined;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const waiting = mean(queued.map((s) => s.values.waiting!));
  const running = samples.map((s) => s.values.running).filter((v): v is number => v !== undefined);
  const gpus = gpu.gpuCount === 1 ? 'the GPU' : `${gpu.gpuCount} GPUs`;
  return {
    kind: 'scheduler-bound',
    score: clamp01(0.3 + 0.4 * share + 0.3 * (1 - util / GPU_LOW_UTIL_PCT)),
    title: 'GPUs idle while requests queue (scheduler limit, not compute)',
    evidence:
      `GPU utilisation averaged ${util.toFixed(0)}% over ${gpus} while requests waited in ` +
      `${(share * 100).toFixed(0)}% of the scrapes (mean waiting ${waiting.toFixed(1)}` +
      (running.length > 0 ? `, running ${mean(running).toFixed(1)}` : '') +
      `); ` +
      (kvPeak !== undefined ? `KV usage peaked at ${(kvPeak * 100).toFixed(0)}%` : 'KV usage not exposed') +
      ', no preemption',
    knob: `${engineAdvice('scheduler-bound', engine)}; if they are already high, look at the server CPU (tokenisation, a single API process) or a gateway in front`,
    fromMs: queued[0]!.tMs,
    toMs: queued.at(-1)!.tMs,
  };
}
