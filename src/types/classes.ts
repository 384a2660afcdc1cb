/**
 * A run's figures for one traffic class (`--class`): the same fields as the run's own
 * (counts, latencies, throughput, goodput against the class's SLO, errors, histograms), over
 * the class's measured requests and the run's whole duration, so that every reader of a run's
 * figures reads a class's the same way (metrics/classes.ts: `classView`).
 *
 * @module
 */

import type {
  ErrorCount,
  GoodputSummary,
  PerUserSummary,
  RunSummary,
  SummaryLatencies,
  SummaryLatencyName,
  TurnRow,
} from './summary.js';

export interface ClassSummary {
  /** The class's name (TrafficClassSpec.name). */
  name: string;
  /** Its share of the requests, as asked. */
  share: number;
  /** The priority its requests were sent with. */
  priority?: number;
  /** The model or adapter its requests named instead of the run's. */
  model?: string;
  counts: RunSummary['counts'];
  latency: SummaryLatencies;
  /** Per second of the whole run (classes run side by side). */
  throughput: RunSummary['throughput'];
  /** Against the class's own SLO (`goodput.slo`); token figures as the client counted them. */
  goodput: GoodputSummary;
  /** Prompt and output tokens of its successful measured requests. */
  tokens: { input: number; output: number };
  errors: ErrorCount[];
  /** Its latencies as mergeable histograms (as RunSummary.histograms). */
  histograms: Partial<Record<SummaryLatencyName, string>>;
  /** Its requests' per-user output tokens/s (as RunSummary.perUser); absent in runs recorded before it. */
  perUser?: PerUserSummary;
  /** Sessions runs: its turns' figures by turn index, and its later turns pooled (as RunSummary.turns). */
  turns?: TurnRow[];
  laterTurns?: TurnRow;
}
