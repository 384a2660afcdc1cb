/**
 * The achieved load per stage (`--stages`) of several load generators that ran the same stages
 * together (load workers of one run, shards of one sharded run) as one: every part tallied its
 * own sends and requests in flight against the run's stage targets, so the sends, the achieved
 * rate and the mean in flight add up; the targets are the run's, and a stage counts as covered
 * as far as any part covered it.
 *
 * @module
 */

import type { StageLoad } from '../types.js';

/** The parts' stage loads as one (each part's list in stage order); undefined when no part had stages. */
export function mergeStageLoads(
  parts: ReadonlyArray<readonly StageLoad[] | undefined>,
): StageLoad[] | undefined {
  const lists = parts.filter((p): p is readonly StageLoad[] => p !== undefined && p.length > 0);
  const first = lists[0];
  if (!first) return undefined;
  return first.map((stage, i) => {
    const all = lists.map((l) => l[i]).filter((s): s is StageLoad => s !== undefined);
    const sum = (f: (s: StageLoad) => number) => all.reduce((a, s) => a + f(s), 0);
    return {
      ...stage,
      sent: sum((s) => s.sent),
      achievedRate: sum((s) => s.achievedRate),
      meanInFlight: sum((s) => s.meanInFlight),
      coveredMs: Math.max(...all.map((s) => s.coveredMs)),
    };
  });
}
