/**
 * GC pauses of several load threads or generators as one (summary.load.gcPauses of a run with
 * `--workers`, of `goodput merge`, of shards merged). Pure.
 *
 * The rule: each thread or process pauses on its own, so the counts and the time add up
 * (`count`, `totalMs`: summed); the longest pause is the longest of any (`maxMs`: max); the p99
 * cannot be rebuilt from the parts' p99s, so the largest of them stands for it (`p99Ms`: max),
 * an upper bound: no more than 1 % of any part's pauses are above its p99, so no more than
 * 1 % of all pauses are above the largest. Parts that measured none (virtual time, an older
 * summary) add nothing; when none did, there are none (undefined). The heap flag (`heapFlag`)
 * stays only when every part that measured started with one (the first part's): one part
 * without it is enough for the caveat to name it. So does the pretenuring flag (`pretenuringFlag`).
 *
 * @module
 */

import type { GcPauses } from '../types.js';

const us = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The parts' pauses as one; see the module comment for the rule.
 *
 * @example
 * mergeGcPauses([{ count: 3, totalMs: 12, p99Ms: 6, maxMs: 6 }, { count: 1, totalMs: 40, p99Ms: 40, maxMs: 40 }]);
 * // → { count: 4, totalMs: 52, p99Ms: 40, maxMs: 40 }
 */
export function mergeGcPauses(parts: ReadonlyArray<GcPauses | undefined>): GcPauses | undefined {
  const measured = parts.filter((g): g is GcPauses => g !== undefined);
  if (measured.length === 0) return undefined;
  let count = 0;
  let totalMs = 0;
  let p99Ms = 0;
  let maxMs = 0;
  for (const g of measured) {
    count += g.count;
    totalMs += g.totalMs;
    p99Ms = Math.max(p99Ms, g.p99Ms);
    maxMs = Math.max(maxMs, g.maxMs);
  }
  const merged: GcPauses = { count, totalMs: us(totalMs), p99Ms: us(p99Ms), maxMs: us(maxMs) };
  const heapFlag = measured[0]!.heapFlag;
  if (heapFlag && measured.every((g) => g.heapFlag)) merged.heapFlag = heapFlag;
  const pretenuringFlag = measured[0]!.pretenuringFlag;
  if (pretenuringFlag && measured.every((g) => g.pretenuringFlag)) merged.pretenuringFlag = pretenuringFlag;
  return merged;
}
