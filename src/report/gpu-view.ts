/**
 * The GPU rows of a run report's server section (the summary's `server.gpu`, from a DCGM
 * exporter): the GPUs together (mean utilisation, total memory and power, per scrape, then
 * min / mean / max / last over the run), then each GPU's own utilisation when there are several.
 *
 * @module
 */

import type { GpuSummary, SeriesStats } from '../types.js';
import { fmtInt, fmtNum, fmtPct } from './format.js';

type Fmt = (v: number) => string;

/** DCGM's utilisation is in percent; the report's percentages are ratios formatted once (fmtPct). */
const pctOf: Fmt = (v) => fmtPct(v / 100);

function row(label: string, st: SeriesStats | undefined, f: Fmt): string[][] {
  return st ? [[label, f(st.min), f(st.mean), f(st.max), f(st.last)]] : [];
}

/** Table rows: series, min, mean, max, last. */
export function gpuRows(gpu: GpuSummary): string[][] {
  const n = gpu.gpuCount;
  const rows = [
    ...row(`GPU utilisation${n === 1 ? '' : `, mean of ${n} GPUs`}`, gpu.utilPct, pctOf),
    ...row(`GPU graphics engine active${n === 1 ? '' : ', mean'}`, gpu.grEngineActive, fmtPct),
    ...row(`GPU memory used MiB${n === 1 ? '' : ', total'}`, gpu.fbUsedMiB, fmtInt),
    ...row(`GPU power W${n === 1 ? '' : ', total'}`, gpu.powerW, fmtNum),
  ];
  if (rows.length === 0) return [];
  if (n > 1) {
    for (const d of gpu.gpus) {
      const where = d.hostname ? ` on ${d.hostname}` : '';
      rows.push(...row(`  GPU ${d.gpu}${where} utilisation`, d.series.utilPct, pctOf));
    }
  }
  return rows;
}

/** Notes: which GPUs, their memory, failed scrapes. */
export function gpuNotes(gpu: GpuSummary): Array<[string, string]> {
  const models = new Map<string, number>();
  for (const d of gpu.gpus)
    models.set(d.modelName ?? 'unknown model', (models.get(d.modelName ?? 'unknown model') ?? 0) + 1);
  const hosts = new Set(gpu.gpus.map((d) => d.hostname).filter((h): h is string => h !== undefined));
  const notes: Array<[string, string]> = [
    [
      'GPUs',
      [...models].map(([m, k]) => `${k} × ${m}`).join(', ') +
        (hosts.size > 0 ? ` on ${[...hosts].join(', ')}` : '') +
        ` (${gpu.samples} scrapes of ${gpu.metricsUrl})`,
    ],
  ];
  if (gpu.fbTotalMiB !== undefined) notes.push(['GPU memory total', `${fmtInt(gpu.fbTotalMiB)} MiB`]);
  if (gpu.scrapeFailures) notes.push(['failed GPU scrapes', fmtInt(gpu.scrapeFailures)]);
  return notes;
}
