/**
 * What the store keeps per round and per rollback, and what its readers return.
 *
 * @module
 */

import type { GpuAggregates } from '../server-metrics/index.js';
import type { RequestErrorCode } from '../types.js';
import type { StoreHistogram } from './histogram.js';

/** The latencies whose distributions every round keeps. */
export const STORED_LATENCIES = ['ttft', 'tpot', 'itl', 'e2el'] as const;
export type StoredLatency = (typeof STORED_LATENCIES)[number];

/**
 * A round's GPU figures (`watch --gpu-metrics-url`): the run's GpuSummary of the exporter's
 * samples since the target's previous round, without the URL and the per-GPU series. No
 * sample in the window: `samples: 0` (with the failed scrapes) and no figure.
 */
export type RoundGpuFigures = GpuAggregates;

/** Server figures of a round, when the server's metrics (or its GPUs) were scraped. */
export interface RoundServerFigures {
  kvUsage?: number;
  waiting?: number;
  running?: number;
  /** Preemptions during the round (counter delta). */
  preemptions?: number;
  gpu?: RoundGpuFigures;
}

/** One probing round of one target, as stored. */
export interface StoredRound {
  /** Target name (unique in the store). */
  target: string;
  /** 1-based, counted per target across restarts. */
  round: number;
  /** Wall-clock start, ms since the epoch. */
  startedAt: number;
  durationMs: number;
  /** False when the prober itself was the bottleneck: not counted against the target. */
  valid: boolean;
  invalidReason?: string;
  attempted: number;
  completed: number;
  /** Requests that ended with an error (metrics/definitions.ts: cancels and interruptions excluded). */
  failed: number;
  /** Requests that met every SLO. */
  good: number;
  outputTokens: number;
  /** The prober's own lag this round (worst of event-loop delay p99, dispatch lag, timer drift), ms. */
  proberLagMs: number;
  errors: Partial<Record<RequestErrorCode, number>>;
  server?: RoundServerFigures;
  histograms: Record<StoredLatency, StoreHistogram>;
}

/** A rollback that was triggered. */
export interface StoredRollback {
  target: string;
  at: number;
  round: number;
  adrId?: string;
  rule: string;
  evidence: unknown;
  command?: string;
  exitCode?: number;
}

/** Figures of one window of rounds, recomputed from merged histograms. */
export interface WindowFigures {
  target: string;
  /** Window start, ms since the epoch (aligned to the window size). */
  start: number;
  rounds: number;
  invalidRounds: number;
  attempted: number;
  failed: number;
  good: number;
  /** good / attempted over valid rounds (NaN when nothing was attempted). */
  attainment: number;
  errors: Partial<Record<RequestErrorCode, number>>;
  latency: Record<StoredLatency, { count: number; p50: number; p90: number; p99: number; mean: number }>;
  /**
   * The GPUs over the window's valid rounds (`watch --gpu-metrics-url`): their GPU windows
   * merged (server-metrics' mergeGpuAggregates), so the summary of all the samples they read.
   * Absent when no round of the window had a GPU exporter.
   */
  gpu?: RoundGpuFigures;
}
