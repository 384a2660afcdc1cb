/**
 * GPU telemetry from an NVIDIA DCGM exporter (`--gpu-metrics-url`): what one scrape read per
 * GPU, and what the run's server block reports. Units are the exporter's own: utilisation in
 * percent, framebuffer in MiB, power in watts, graphics-engine activity as a ratio (0–1), energy
 * in millijoules since the GPU's boot (a counter).
 *
 * @module
 */

import type { Ms } from './request.js';
import type { SeriesStats } from './server.js';

/** The DCGM fields goodput reads, by its own names (server-metrics/dcgm.ts maps them). */
export type GpuFieldName = 'utilPct' | 'fbUsedMiB' | 'fbFreeMiB' | 'powerW' | 'grEngineActive' | 'energyMJ';

/** Who a GPU is: the exporter's labels. `gpu` is the index on its host. */
export interface GpuIdentity {
  gpu: string;
  uuid?: string;
  modelName?: string;
  hostname?: string;
}

/** One GPU in one scrape. */
export interface GpuReading extends GpuIdentity {
  values: Partial<Record<GpuFieldName, number>>;
}

/** One scrape of the exporter (a line of gpu-metrics.jsonl). */
export interface GpuSample {
  tMs: Ms;
  gpus: GpuReading[];
}

/** One GPU over the run: min / mean / max / last of each field it exposed. */
export interface GpuDeviceSummary extends GpuIdentity {
  series: Partial<Record<GpuFieldName, SeriesStats>>;
}

/**
 * The GPUs over the run. Aggregates are taken per scrape across GPUs, then over the scrapes:
 * utilisation and graphics-engine activity are the mean over GPUs, framebuffer used and power
 * the total over GPUs (so `fbUsedMiB.max` is the peak memory the whole server held).
 */
export interface GpuSummary {
  metricsUrl: string;
  samples: number;
  /** Scrapes that failed (timeout, refused, not DCGM text): counted, never fatal. */
  scrapeFailures?: number;
  /** Distinct GPUs seen. */
  gpuCount: number;
  /** Mean over GPUs, per scrape. */
  utilPct?: SeriesStats;
  /** Total over GPUs, per scrape. */
  fbUsedMiB?: SeriesStats;
  /** Total framebuffer (used + free) over GPUs, in the last scrape that had both. */
  fbTotalMiB?: number;
  /** Total over GPUs, per scrape. */
  powerW?: SeriesStats;
  /** Mean over GPUs, per scrape (DCGM_FI_PROF_GR_ENGINE_ACTIVE, when the exporter has profiling metrics). */
  grEngineActive?: SeriesStats;
  /**
   * Energy of all GPUs over the scrape window, from DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION: the
   * counter's increase per GPU (a reset counts the new value), summed, in J; `seconds` from the
   * first to the last scrape that read it. Absent when the exporter does not publish it.
   */
  energy?: { joules: number; seconds: number };
  /** Each GPU on its own, in the exporter's order (the energy counter left out). */
  gpus: GpuDeviceSummary[];
}
