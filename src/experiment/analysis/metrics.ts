/**
 * Which catalogue figures the experiment's matrix shows, and in what order: the documents'
 * columns first (TTFT P99, TPOT P99, goodput and SLO attainment, KV fragmentation), then
 * output throughput and per-user tokens/s, then the rest of compare's rows. Every figure is
 * read through the catalogue (one definition per figure): per-user tokens/s is the
 * catalogue's `user_tps_p50`, the median user's output tokens/s.
 *
 * @module
 */

import { COMPARE_ROW_IDS, metric } from '../../metrics/index.js';
import type { RunSummary } from '../../types.js';
import type { MatrixMetric } from './types.js';

/** Per-user tokens/s in the matrix: the median user's output tokens/s (catalogue `user_tps_p50`). */
export const PER_USER_TPS_ID = 'user_tps_p50';

/** The documents' columns, then throughput and per-user tokens/s. */
export const HEADLINE_MATRIX_IDS = [
  'ttft_p99',
  'tpot_p99',
  'request_goodput',
  'attainment',
  'kv_fragmentation',
  'output_throughput',
  PER_USER_TPS_ID,
] as const;

/** Every metric of the matrix, headline first, then compare's other rows. */
export const MATRIX_IDS: readonly string[] = [
  ...HEADLINE_MATRIX_IDS,
  ...COMPARE_ROW_IDS.filter((id) => !(HEADLINE_MATRIX_IDS as readonly string[]).includes(id)),
];

/** The KV-cache and queue figures the reading takes as pressure (fragmentation is read beside them). */
export const PRESSURE_SIGNAL_IDS = ['preemptions', 'waiting_mean', 'kv_usage_max'] as const;

/** The catalogue's definition of a matrix metric, as the analysis carries it. */
export function matrixMetric(id: string): MatrixMetric {
  const def = metric(id);
  return { id: def.id, label: def.label, unit: def.unit, better: def.better };
}

/** A run's figure for a metric (the catalogue's reader); undefined when the run did not measure it. */
export function readMetric(id: string, summary: RunSummary): number | undefined {
  const v = metric(id).read(summary);
  return v === undefined || !Number.isFinite(v) ? undefined : v;
}
