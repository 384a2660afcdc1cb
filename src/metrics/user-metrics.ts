/**
 * Catalogue metrics of the per-user and per-SLO views: per-user output tokens/s (its median and
 * slow tail), each SLO's own attainment beside the joint one, and good-token throughput.
 *
 * @module
 */

import type { RateStats, RunSummary, SloName } from '../types.js';
import { type MetricDef, scalar } from './metric-def.js';

const USER_TPS_STATS: ReadonlyArray<readonly [key: keyof RateStats, label: string]> = [
  ['p50', 'p50'],
  ['p10', 'p10'],
  ['p1', 'p1'],
  ['mean', 'mean'],
  ['min', 'min'],
];

function userTps(key: keyof RateStats, label: string): MetricDef {
  return scalar({
    id: `user_tps_${key}`,
    label: `Per-user output tokens/s ${label}`,
    unit: 'tok/s',
    better: 'higher',
    read: (s: RunSummary) => {
      const r = s.perUser?.outputTokensPerS;
      return r && r.count > 0 ? r[key] : undefined;
    },
  });
}

/** Each SLO on its own: id suffix and label. */
const SLO_VIEWS: ReadonlyArray<readonly [name: SloName, id: string, label: string]> = [
  ['ttft', 'ttft', 'TTFT'],
  ['tpot', 'tpot', 'TPOT'],
  ['e2el', 'e2el', 'E2EL'],
  ['userTps', 'user_tps', 'per-user tokens/s'],
];

export const USER_METRICS: readonly MetricDef[] = [
  ...USER_TPS_STATS.map(([key, label]) => userTps(key, label)),
  ...SLO_VIEWS.map(([name, id, label]) =>
    scalar({
      id: `attainment_${id}`,
      label: `SLO attainment, ${label} alone`,
      unit: 'ratio',
      better: 'higher',
      read: (s) => s.goodput.perSlo?.[name]?.attainment,
    }),
  ),
  scalar({
    id: 'good_token_throughput',
    label: 'Good-token throughput',
    unit: 'tok/s',
    better: 'higher',
    read: (s) => s.goodput.goodTokenThroughput,
  }),
];
