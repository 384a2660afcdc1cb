/**
 * Where the simulation and the measurement disagree: the search's figures of each verified
 * configuration (one virtual run at the full budget) beside the mean of the experiment's runs
 * of it (a real server through `serve:`, or repeated virtual runs), per metric, as a relative
 * difference (simulated − measured) ÷ measured. Pure apart from reading the runs' summaries.
 *
 * @module
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentFile, RunSummary, ServeParamValue } from '../../types.js';
import type { PointFigures } from './evaluate.js';

/** The metrics compared, as the summary names them, and the figure of a search point for each. */
export const VERIFIED_METRICS = [
  { key: 'request_goodput', label: 'goodput req/s', of: (p: PointFigures) => p.requestGoodput },
  { key: 'p99_ttft_ms', label: 'TTFT p99 ms', of: (p: PointFigures) => p.p99TtftMs },
  { key: 'p99_tpot_ms', label: 'TPOT p99 ms', of: (p: PointFigures) => p.p99TpotMs },
  { key: 'output_throughput', label: 'output tok/s', of: (p: PointFigures) => p.outputThroughput },
] as const;
export type VerifiedMetric = (typeof VERIFIED_METRICS)[number]['key'];

export interface Disagreement {
  configuration: string;
  metric: VerifiedMetric;
  simulated?: number;
  /** Mean across the experiment's successful runs of the configuration. */
  measured?: number;
  runs: number;
  /** (simulated − measured) ÷ measured; absent when either is missing or measured is 0. */
  relDiff?: number;
}

const sameParams = (a: Record<string, ServeParamValue>, b: Record<string, ServeParamValue>): boolean =>
  Object.keys(a).length === Object.keys(b).length &&
  Object.entries(a).every(([k, v]) => String(b[k]) === String(v));

/** Each verified configuration's metrics: the search's figure beside the experiment's mean. */
export function disagreements(
  top: readonly PointFigures[],
  state: ExperimentFile,
  dir: string,
): Disagreement[] {
  const rows: Disagreement[] = [];
  for (const c of state.configurations) {
    const point = top.find((p) => sameParams(p.params, c.params));
    if (!point) continue;
    const summaries: RunSummary[] = [];
    for (const r of c.runs) {
      if (r.status !== 'ok') continue;
      try {
        summaries.push(JSON.parse(readFileSync(join(dir, r.dir, 'summary.json'), 'utf8')) as RunSummary);
      } catch {
        // a damaged run folder is left out of the mean
      }
    }
    for (const m of VERIFIED_METRICS) {
      const simulated = m.of(point);
      const values = summaries.map((s) => s[m.key]).filter((v) => Number.isFinite(v));
      const measured = values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : undefined;
      const row: Disagreement = { configuration: c.name, metric: m.key, runs: values.length };
      if (simulated !== undefined) row.simulated = simulated;
      if (measured !== undefined) row.measured = measured;
      if (simulated !== undefined && measured !== undefined && measured !== 0)
        row.relDiff = (simulated - measured) / measured;
      rows.push(row);
    }
  }
  return rows;
}
