/**
 * Catalogue metrics of the engine's own telemetry beyond the KV cache: speculative decoding
 * (vLLM's counters, deltas over the run; see server-metrics/summarize.ts) and the GPUs as an
 * NVIDIA DCGM exporter saw them (`--gpu-metrics-url`; server-metrics/gpu-summary.ts): per
 * scrape, utilisation is the mean over GPUs, framebuffer used and power the total.
 *
 * @module
 */

import { type MetricDef, scalar } from './metric-def.js';

export const SERVER_TELEMETRY_METRICS: readonly MetricDef[] = [
  scalar({
    id: 'spec_acceptance_rate',
    label: 'Spec-decode acceptance rate',
    unit: 'ratio',
    better: 'higher',
    server: true,
    read: (s) => s.server?.specAcceptanceRate,
  }),
  scalar({
    id: 'spec_mean_accepted_length',
    label: 'Spec-decode mean accepted length',
    unit: 'count',
    better: 'higher',
    server: true,
    read: (s) => s.server?.specMeanAcceptedLength,
  }),
  scalar({
    id: 'gpu_util',
    label: 'GPU utilisation (mean over GPUs and run)',
    unit: 'ratio',
    better: 'higher',
    server: true,
    gpu: true,
    read: (s) => percentToRatio(s.server?.gpu?.utilPct?.mean),
  }),
  scalar({
    id: 'gpu_gr_active',
    label: 'GPU graphics engine active (mean)',
    unit: 'ratio',
    better: 'higher',
    server: true,
    gpu: true,
    read: (s) => s.server?.gpu?.grEngineActive?.mean,
  }),
  scalar({
    id: 'gpu_fb_used_peak',
    label: 'GPU memory used (peak, all GPUs)',
    unit: 'MiB',
    better: 'lower',
    server: true,
    gpu: true,
    read: (s) => s.server?.gpu?.fbUsedMiB?.max,
  }),
  scalar({
    id: 'gpu_power',
    label: 'GPU power (mean, all GPUs)',
    unit: 'W',
    better: 'lower',
    server: true,
    gpu: true,
    read: (s) => s.server?.gpu?.powerW?.mean,
  }),
];

/** DCGM reports utilisation in percent; the catalogue's ratios run 0–1. */
function percentToRatio(pct: number | undefined): number | undefined {
  return pct === undefined ? undefined : pct / 100;
}
