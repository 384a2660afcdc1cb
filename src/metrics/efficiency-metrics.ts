/**
 * Catalogue metrics of energy and cost per token (`RunSummary.efficiency`, computed once by
 * efficiency.ts): gate thresholds (`joules_per_output_token<0.5`, `cost_per_mtok<2`), ADR gate
 * keys, compare rows, report lines and watch's exporter read them here.
 *
 * @module
 */

import { type MetricDef, scalar } from './metric-def.js';

export const EFFICIENCY_METRICS: readonly MetricDef[] = [
  scalar({
    id: 'joules_per_output_token',
    label: 'GPU energy per output token',
    unit: 'J/tok',
    better: 'lower',
    efficiency: true,
    read: (s) => s.efficiency?.energy?.joulesPerOutputToken,
  }),
  scalar({
    id: 'output_tokens_per_joule',
    label: 'Output tokens per joule',
    unit: 'tok/J',
    better: 'higher',
    efficiency: true,
    read: (s) => s.efficiency?.energy?.outputTokensPerJoule,
  }),
  scalar({
    id: 'goodput_per_watt',
    label: 'Goodput per watt (good tok/s per W)',
    unit: 'tok/J',
    better: 'higher',
    efficiency: true,
    read: (s) => s.efficiency?.energy?.goodputPerWatt,
  }),
  scalar({
    id: 'cost_per_mtok',
    label: 'Cost per million output tokens',
    unit: 'cost/Mtok',
    better: 'lower',
    efficiency: true,
    read: (s) => s.efficiency?.cost?.perMillionOutputTokens,
  }),
  scalar({
    id: 'cost_per_mtok_input',
    label: 'Cost per million input tokens',
    unit: 'cost/Mtok',
    better: 'lower',
    efficiency: true,
    read: (s) => s.efficiency?.cost?.perMillionInputTokens,
  }),
  scalar({
    id: 'cost_per_mtok_good',
    label: 'Cost per million good tokens',
    unit: 'cost/Mtok',
    better: 'lower',
    efficiency: true,
    read: (s) => s.efficiency?.cost?.perMillionGoodTokens,
  }),
];

/** The energy and cost rows compare shows after its own (when a run has the figures). */
export const EFFICIENCY_ROW_IDS: readonly string[] = EFFICIENCY_METRICS.map((m) => m.id);
