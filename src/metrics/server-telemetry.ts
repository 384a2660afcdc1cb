/**
 * Catalogue metrics of the engine's own telemetry beyond the KV cache: speculative decoding
 * (vLLM's counters, deltas over the run; see server-metrics/summarize.ts).
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
];
