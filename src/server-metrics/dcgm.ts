/**
 * NVIDIA DCGM exporter (dcgm-exporter) → goodput's GPU vocabulary. Pure: the scrape is
 * dcgm-scrape.ts, so the readers of stored GPU figures (store, history, the HTML report) load
 * no HTTP client.
 *
 * The fields read, with the names and units of dcgm-exporter's etc/default-counters.csv:
 * - DCGM_FI_DEV_GPU_UTIL           gauge, GPU utilization (in %)          → utilPct
 * - DCGM_FI_DEV_FB_USED            gauge, Framebuffer memory used (in MiB) → fbUsedMiB
 * - DCGM_FI_DEV_FB_FREE            gauge, Framebuffer memory free (in MiB) → fbFreeMiB
 * - DCGM_FI_DEV_POWER_USAGE        gauge, Power draw (in W)                → powerW
 * - DCGM_FI_PROF_GR_ENGINE_ACTIVE  gauge, Ratio of time the graphics engine is active (0–1),
 *   only when the exporter runs with profiling (DCP) metrics → grEngineActive
 * - DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION  counter, Total energy consumption since boot (in mJ)
 *   → energyMJ (the run's energy: gpu-summary.ts)
 *
 * One exporter exposes every GPU of its host, one series per GPU, told apart by the labels
 * `gpu` (index), `UUID`, `modelName` and `Hostname` (`hostname` in newer exporters); a MIG
 * instance adds `GPU_I_ID`. Series of the same GPU repeated for several pods (GPU sharing)
 * carry the same reading: the last one is kept.
 *
 * @module
 */

import type { GpuFieldName, GpuReading, SeriesStats } from '../types.js';
import type { PromExposition } from './parse.js';

/** DCGM field → goodput's name, in the order the summary shows them. */
export const DCGM_FIELDS: ReadonlyArray<readonly [GpuFieldName, string]> = [
  ['utilPct', 'DCGM_FI_DEV_GPU_UTIL'],
  ['fbUsedMiB', 'DCGM_FI_DEV_FB_USED'],
  ['fbFreeMiB', 'DCGM_FI_DEV_FB_FREE'],
  ['powerW', 'DCGM_FI_DEV_POWER_USAGE'],
  ['grEngineActive', 'DCGM_FI_PROF_GR_ENGINE_ACTIVE'],
  ['energyMJ', 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION'],
];

const FIELD_OF = new Map(DCGM_FIELDS.map(([field, name]) => [name, field]));

/** The identity of the GPU a sample belongs to, from its labels. */
function identityOf(labels: Record<string, string>, fallback: number): GpuReading {
  const mig = labels.GPU_I_ID;
  const index = labels.gpu ?? labels.UUID ?? labels.uuid ?? String(fallback);
  const reading: GpuReading = { gpu: mig ? `${index}/mig${mig}` : index, values: {} };
  const uuid = labels.UUID ?? labels.uuid;
  const modelName = labels.modelName;
  const hostname = labels.Hostname ?? labels.hostname;
  if (uuid) reading.uuid = uuid;
  if (modelName) reading.modelName = modelName;
  if (hostname) reading.hostname = hostname;
  return reading;
}

/** One key per GPU across scrapes (host, UUID, index). */
export const gpuKey = (r: Pick<GpuReading, 'gpu' | 'uuid' | 'hostname'>): string =>
  `${r.hostname ?? ''}\u0000${r.uuid ?? ''}\u0000${r.gpu}`;

/**
 * The GPUs of one parsed exporter page, in the order they first appear; an empty list when
 * the page has none of the DCGM fields above.
 */
export function normalizeDcgm(exposition: Pick<PromExposition, 'samples'>): GpuReading[] {
  const byKey = new Map<string, GpuReading>();
  for (const s of exposition.samples) {
    const field = FIELD_OF.get(s.name);
    if (field === undefined || !Number.isFinite(s.value)) continue;
    const identity = identityOf(s.labels, byKey.size);
    const key = gpuKey(identity);
    let reading = byKey.get(key);
    if (!reading) {
      reading = identity;
      byKey.set(key, reading);
    }
    reading.values[field] = s.value;
  }
  return [...byKey.values()];
}

/**
 * One scrape's GPUs taken together: utilisation and graphics-engine activity averaged over
 * the GPUs that report them, framebuffer used and power summed. The one definition the
 * summary and the report's timeline share.
 */
export function gpuAggregate(gpus: readonly GpuReading[]): Partial<Record<GpuFieldName, number>> {
  const out: Partial<Record<GpuFieldName, number>> = {};
  const fold = (field: GpuFieldName, how: 'mean' | 'sum') => {
    let sum = 0;
    let n = 0;
    for (const g of gpus) {
      const v = g.values[field];
      if (v === undefined) continue;
      sum += v;
      n++;
    }
    if (n > 0) out[field] = how === 'mean' ? sum / n : sum;
  };
  fold('utilPct', 'mean');
  fold('fbUsedMiB', 'sum');
  fold('fbFreeMiB', 'sum');
  fold('powerW', 'sum');
  fold('grEngineActive', 'mean');
  return out;
}

/** min / mean / max / last of a sequence; undefined when empty. */
export class StatsOf {
  private min = Number.POSITIVE_INFINITY;
  private max = Number.NEGATIVE_INFINITY;
  private sum = 0;
  private n = 0;
  private last = 0;

  add(v: number): void {
    this.min = Math.min(this.min, v);
    this.max = Math.max(this.max, v);
    this.sum += v;
    this.last = v;
    this.n++;
  }

  stats(): SeriesStats | undefined {
    return this.n === 0
      ? undefined
      : { min: this.min, mean: this.sum / this.n, max: this.max, last: this.last };
  }
}
