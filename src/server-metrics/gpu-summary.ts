/**
 * GpuSample[] → GpuSummary: what the GPUs did during the run. Pure.
 *
 * Per scrape the GPUs are taken together (dcgm.ts gpuAggregate: mean utilisation and
 * graphics-engine activity, total framebuffer used and power), then min / mean / max / last
 * over the scrapes; each GPU also gets its own min / mean / max / last per field. The total
 * framebuffer is used + free summed over GPUs, from the last scrape that had both. The energy
 * is the increase of each GPU's energy counter over the scrapes, summed over GPUs.
 *
 * @module
 */

import type {
  GpuDeviceSummary,
  GpuFieldName,
  GpuSample,
  GpuSummary,
  SeriesStats,
  ServerSummary,
} from '../types.js';
import { DCGM_FIELDS, gpuAggregate, gpuKey, StatsOf } from './dcgm.js';

const AGGREGATES = [
  'utilPct',
  'fbUsedMiB',
  'powerW',
  'grEngineActive',
] as const satisfies readonly GpuFieldName[];

export interface SummarizeGpuOptions {
  metricsUrl: string;
  scrapeFailures?: number;
}

/** Summarises the exporter's scrapes of one run. */
export function summarizeGpu(samples: readonly GpuSample[], opts: SummarizeGpuOptions): GpuSummary {
  const aggregate = new Map<(typeof AGGREGATES)[number], StatsOf>(AGGREGATES.map((f) => [f, new StatsOf()]));
  const devices = new Map<
    string,
    { identity: Omit<GpuDeviceSummary, 'series'>; stats: Map<GpuFieldName, StatsOf> }
  >();
  let fbTotalMiB: number | undefined;
  const energy = new EnergyIncrease();
  for (const sample of samples) {
    energy.add(sample);
    const all = gpuAggregate(sample.gpus);
    for (const [field, stats] of aggregate) {
      const v = all[field];
      if (v !== undefined) stats.add(v);
    }
    if (
      sample.gpus.length > 0 &&
      sample.gpus.every((g) => g.values.fbUsedMiB !== undefined && g.values.fbFreeMiB !== undefined)
    ) {
      fbTotalMiB = (all.fbUsedMiB ?? 0) + (all.fbFreeMiB ?? 0);
    }
    for (const g of sample.gpus) {
      const key = gpuKey(g);
      let device = devices.get(key);
      if (!device) {
        const { values: _values, ...identity } = g;
        device = { identity, stats: new Map() };
        devices.set(key, device);
      }
      for (const [field] of DCGM_FIELDS) {
        const v = g.values[field];
        if (v === undefined || field === 'energyMJ') continue;
        let stats = device.stats.get(field);
        if (!stats) {
          stats = new StatsOf();
          device.stats.set(field, stats);
        }
        stats.add(v);
      }
    }
  }
  const summary: GpuSummary = {
    metricsUrl: opts.metricsUrl,
    samples: samples.length,
    gpuCount: devices.size,
    gpus: [],
  };
  if (opts.scrapeFailures !== undefined) summary.scrapeFailures = opts.scrapeFailures;
  for (const [field, stats] of aggregate) {
    const s = stats.stats();
    if (s) summary[field] = s;
  }
  if (fbTotalMiB !== undefined) summary.fbTotalMiB = fbTotalMiB;
  const used = energy.result();
  if (used) summary.energy = used;
  for (const { identity, stats } of devices.values()) {
    const device: GpuDeviceSummary = { ...identity, series: {} };
    for (const [field] of DCGM_FIELDS) {
      const s = stats.get(field)?.stats();
      if (s) device.series[field] = s;
    }
    summary.gpus.push(device);
  }
  return summary;
}

/**
 * The increase of every GPU's energy counter (mJ) over the scrapes that read it, summed, in J,
 * with the time from the first such scrape to the last. A counter that went down was reset
 * (a GPU reset, a driver reload): its new value is the increase since.
 */
class EnergyIncrease {
  private readonly last = new Map<string, number>();
  private millijoules = 0;
  private firstMs: number | undefined;
  private lastMs: number | undefined;

  add(sample: GpuSample): void {
    let read = false;
    for (const g of sample.gpus) {
      const v = g.values.energyMJ;
      if (v === undefined || !Number.isFinite(v) || v < 0) continue;
      read = true;
      const key = gpuKey(g);
      const before = this.last.get(key);
      if (before !== undefined) this.millijoules += v >= before ? v - before : v;
      this.last.set(key, v);
    }
    if (!read) return;
    this.firstMs ??= sample.tMs;
    this.lastMs = sample.tMs;
  }

  result(): { joules: number; seconds: number } | undefined {
    if (this.firstMs === undefined || this.lastMs === undefined || this.lastMs <= this.firstMs)
      return undefined;
    return { joules: this.millijoules / 1000, seconds: (this.lastMs - this.firstMs) / 1000 };
  }
}

/**
 * The server block with the GPU figures in it (a block of its own when the server's metrics
 * were not scraped): how a run's summary and a watch round's carry `server.gpu`.
 */
export function withGpu(
  server: ServerSummary | undefined,
  gpu: GpuSummary | undefined,
): ServerSummary | undefined {
  if (!gpu) return server;
  return { ...(server ?? { engine: 'unknown', metricsUrl: '', samples: 0, series: {} }), gpu };
}

/** A GPU summary without its URL and per-GPU series: what a watch round stores (store/RoundGpuFigures). */
export type GpuAggregates = Omit<GpuSummary, 'metricsUrl' | 'gpus'>;

/**
 * Consecutive windows' GPU summaries as one (a history window of watch rounds): samples and
 * failed scrapes added up, min of the minima, max of the maxima, means weighted by each part's
 * samples, the last part's last value and total framebuffer. Windows that follow one another
 * without overlap (watch's rounds) give the summary of all their samples; a field some scrapes
 * lacked is weighted by the part's samples all the same. An empty list: undefined.
 */
export function mergeGpuAggregates(parts: readonly GpuAggregates[]): GpuAggregates | undefined {
  if (parts.length === 0) return undefined;
  const out: GpuAggregates = { samples: 0, gpuCount: 0 };
  let failures: number | undefined;
  for (const p of parts) {
    out.samples += p.samples;
    out.gpuCount = Math.max(out.gpuCount, p.gpuCount);
    if (p.scrapeFailures !== undefined) failures = (failures ?? 0) + p.scrapeFailures;
    if (p.fbTotalMiB !== undefined) out.fbTotalMiB = p.fbTotalMiB;
  }
  // Energy adds up across windows only when every window measured it.
  if (parts.every((p) => p.energy !== undefined)) {
    out.energy = {
      joules: parts.reduce((a, p) => a + p.energy!.joules, 0),
      seconds: parts.reduce((a, p) => a + p.energy!.seconds, 0),
    };
  }
  if (failures !== undefined) out.scrapeFailures = failures;
  for (const field of AGGREGATES) {
    let weight = 0;
    let sum = 0;
    let merged: SeriesStats | undefined;
    for (const p of parts) {
      const s = p[field];
      if (!s || p.samples === 0) continue;
      weight += p.samples;
      sum += s.mean * p.samples;
      merged = merged
        ? { min: Math.min(merged.min, s.min), mean: 0, max: Math.max(merged.max, s.max), last: s.last }
        : { ...s };
    }
    if (merged) out[field] = { ...merged, mean: sum / weight };
  }
  return out;
}
