/**
 * The latency table: every latency a run measures, once, with its name in a summary, its
 * spelling in thresholds and ids, its label (the one spelling every view shows), its title,
 * its unit and its formula (in words, and as the field of `requestMetrics()` that computes it).
 *
 * The catalogue (latency × statistic metrics), the terminal, Markdown and HTML reports, the
 * gate grammar and compare all read this table, so a latency is named and computed in one place.
 *
 * @module
 */

import type { SummaryLatencyName } from '../types.js';
import type { RequestMetrics } from './request-metrics.js';

export interface LatencyDef {
  /** The latency's key in a RunSummary, e.g. `ttftFromScheduled`. */
  name: SummaryLatencyName;
  /** As written in thresholds, metric ids and ADR keys, e.g. `ttft_from_scheduled`. */
  text: string;
  /** The one label every view shows, e.g. "TTFT from schedule". */
  label: string;
  /** In words, e.g. "Time to first token from the scheduled send". */
  title: string;
  unit: 'ms';
  /** How one request's value is computed from its raw timestamps (DESIGN.md). */
  formula: string;
  /** A reasoning model's phase latency: shown only for a run that reasoned. */
  reasoning?: boolean;
  /** Measured from the intended send time: shown only for an open loop. */
  fromSchedule?: boolean;
  /** The request's values, as `requestMetrics()` computes them (none, one, or one per gap). */
  perRequest(m: RequestMetrics): number | readonly number[] | undefined;
}

/** Every latency, in display order (the order of `SUMMARY_LATENCY_NAMES`). */
export const LATENCIES: readonly LatencyDef[] = [
  {
    name: 'ttft',
    text: 'ttft',
    label: 'TTFT',
    title: 'Time to first token',
    unit: 'ms',
    formula: 'first chunk carrying content or reasoning − send',
    perRequest: (m) => m.ttftMs,
  },
  {
    name: 'tpot',
    text: 'tpot',
    label: 'TPOT',
    title: 'Time per output token',
    unit: 'ms',
    formula: '(E2EL − TTFT) / (output tokens − 1), for more than one output token',
    perRequest: (m) => m.tpotMs,
  },
  {
    name: 'itl',
    text: 'itl',
    label: 'ITL',
    title: 'Inter-token latency',
    unit: 'ms',
    formula: 'gap between consecutive chunks',
    perRequest: (m) => m.itlMs,
  },
  {
    name: 'itlPerToken',
    text: 'itl_per_token',
    label: 'ITL per token',
    title: 'Inter-token latency per token',
    unit: 'ms',
    formula: 'gap between consecutive chunks / tokens of the later chunk, weighted by those tokens',
    perRequest: (m) => m.itlPerTokenMs,
  },
  {
    name: 'e2el',
    text: 'e2el',
    label: 'E2EL',
    title: 'End-to-end latency',
    unit: 'ms',
    formula: 'last byte − send',
    perRequest: (m) => m.e2elMs,
  },
  {
    name: 'queueWait',
    text: 'queue_wait',
    label: 'Queue wait',
    title: 'Wait in the client queue',
    unit: 'ms',
    formula: 'first send − scheduled send',
    perRequest: (m) => m.queueWaitMs,
  },
  {
    name: 'ttftFromScheduled',
    text: 'ttft_from_scheduled',
    label: 'TTFT from schedule',
    title: 'Time to first token from the scheduled send',
    unit: 'ms',
    formula: 'first chunk − scheduled send',
    fromSchedule: true,
    perRequest: (m) => m.ttftFromScheduledMs,
  },
  {
    name: 'e2elFromScheduled',
    text: 'e2el_from_scheduled',
    label: 'E2EL from schedule',
    title: 'End-to-end latency from the scheduled send',
    unit: 'ms',
    formula: 'last byte − scheduled send',
    fromSchedule: true,
    perRequest: (m) => m.e2elFromScheduledMs,
  },
  // Reasoning models: time to first reasoning token, time to first answer token (content or
  // tool call; = TTFT when the server streams no reasoning), ITL inside each phase.
  {
    name: 'ttfrt',
    text: 'ttfrt',
    label: 'TTFRT',
    title: 'Time to first reasoning token',
    unit: 'ms',
    formula: 'first chunk carrying reasoning − send',
    reasoning: true,
    perRequest: (m) => m.ttfrtMs,
  },
  {
    name: 'ttfat',
    text: 'ttfat',
    label: 'TTFAT',
    title: 'Time to first answer token',
    unit: 'ms',
    formula: 'first chunk carrying content or a tool call − send',
    reasoning: true,
    perRequest: (m) => m.ttfatMs,
  },
  {
    name: 'reasoningItl',
    text: 'reasoning_itl',
    label: 'ITL reasoning',
    title: 'Inter-token latency while reasoning',
    unit: 'ms',
    formula: 'gap between consecutive chunks carrying reasoning',
    reasoning: true,
    perRequest: (m) => m.reasoningItlMs,
  },
  {
    name: 'answerItl',
    text: 'answer_itl',
    label: 'ITL answer',
    title: 'Inter-token latency of the answer',
    unit: 'ms',
    formula: 'gap between consecutive chunks carrying the answer',
    reasoning: true,
    perRequest: (m) => m.answerItlMs,
  },
];

const BY_NAME = new Map(LATENCIES.map((d) => [d.name, d]));

/** The table's row of a summary latency. */
export function latencyDef(name: SummaryLatencyName): LatencyDef {
  return BY_NAME.get(name) as LatencyDef;
}

/** A latency's label, e.g. "TTFT from schedule". */
export function latencyLabel(name: SummaryLatencyName): string {
  return latencyDef(name).label;
}

/** A latency's chart title, e.g. "Time to first token (TTFT)". */
export function latencyTitle(name: SummaryLatencyName): string {
  const { label, title } = latencyDef(name);
  return title.includes(label) || label.includes(' ') ? title : `${title} (${label})`;
}

/** Appends a request's values of one latency to `into` (the table's formula, nothing else). */
export function pushPerRequest(def: LatencyDef, m: RequestMetrics, into: number[]): void {
  const v = def.perRequest(m);
  if (v === undefined) return;
  if (typeof v === 'number') into.push(v);
  else for (const x of v) into.push(x);
}
