/**
 * The diagnosis rule that reads several replicas (`--metrics-url` given for each, or a
 * Prometheus server's instances; the summary's `server.replicas`):
 *
 * - replica-imbalance: the router in front spread the work unevenly. The share is measured by
 *   requests served (each replica's TTFT histogram count), else by generated tokens, else by
 *   the mean of running + waiting; the finding fires when the busiest replica took more than
 *   REPLICA_IMBALANCE_RATIO times the least busy one's (or the least busy took nothing), with
 *   enough work to judge (MIN_REQUESTS requests, or MIN_TOKENS tokens). It names both.
 *
 * @module
 */

import type { Finding, ReplicaServerSummary } from '../types.js';
import type { SummaryView } from './rules.js';

/** Busiest ÷ least busy replica above which the router counts as uneven. */
export const REPLICA_IMBALANCE_RATIO = 1.5;
/** Work below which no imbalance is judged (a handful of requests splits unevenly by chance). */
const MIN_REQUESTS = 8;
const MIN_TOKENS = 200;

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

interface Measure {
  what: string;
  of: (r: ReplicaServerSummary) => number | undefined;
  enough: (total: number) => boolean;
  format: (v: number) => string;
}

const load = (r: ReplicaServerSummary) => {
  const running = r.series.running?.mean;
  const waiting = r.series.waiting?.mean;
  return running === undefined && waiting === undefined ? undefined : (running ?? 0) + (waiting ?? 0);
};

const MEASURES: Measure[] = [
  { what: 'requests', of: (r) => r.requests, enough: (t) => t >= MIN_REQUESTS, format: (v) => v.toFixed(0) },
  {
    what: 'generated tokens',
    of: (r) => r.generatedTokens,
    enough: (t) => t >= MIN_TOKENS,
    format: (v) => v.toFixed(0),
  },
  { what: 'mean running + waiting', of: load, enough: (t) => t > 0.5, format: (v) => v.toFixed(1) },
];

/** Replica imbalance: one replica took far more of the work than another. */
export function replicaImbalanceFinding(summary?: SummaryView): Finding | undefined {
  const replicas = summary?.server?.replicas;
  if (!replicas || replicas.length < 2) return undefined;
  const measure = MEASURES.find((m) => replicas.every((r) => m.of(r) !== undefined));
  if (!measure) return undefined;
  const values = replicas.map((r) => measure.of(r)!);
  const total = values.reduce((a, b) => a + b, 0);
  if (!measure.enough(total)) return undefined;
  let hi = 0;
  let lo = 0;
  values.forEach((v, i) => {
    if (v > values[hi]!) hi = i;
    if (v < values[lo]!) lo = i;
  });
  const ratio = values[lo]! > 0 ? values[hi]! / values[lo]! : Number.POSITIVE_INFINITY;
  if (ratio <= REPLICA_IMBALANCE_RATIO) return undefined;
  const busy = replicas[hi]!.replica;
  const idle = replicas[lo]!.replica;
  const shares = replicas
    .map((r, i) => `${r.replica} ${measure.format(values[i]!)} (${((values[i]! / total) * 100).toFixed(0)}%)`)
    .join(', ');
  const loads =
    measure.of === load
      ? ''
      : replicas.map((r) => load(r)).every((v) => v !== undefined)
        ? `; mean running + waiting: ${replicas.map((r) => `${r.replica} ${load(r)!.toFixed(1)}`).join(', ')}`
        : '';
  const times = Number.isFinite(ratio) ? `${ratio.toFixed(1)}×` : 'all';
  return {
    kind: 'replica-imbalance',
    score: clamp01(0.35 + 0.25 * Math.log2(Math.min(ratio, 8))),
    title: Number.isFinite(ratio)
      ? `Router uneven: ${busy} took ${times} the ${measure.what} of ${idle}`
      : `Router uneven: ${idle} took none of the ${measure.what} (${busy} the most)`,
    evidence: `${measure.what} per replica: ${shares}${loads} (uneven above ${REPLICA_IMBALANCE_RATIO}×)`,
    knob:
      "the router's weights and balancing policy (equal weights, least outstanding requests; prefix- or session-affine routing concentrates load by design), " +
      'or the replicas themselves if they differ in capacity',
  };
}
