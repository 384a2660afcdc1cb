/**
 * What a shard keeps of its run beyond the records: the span of its measured sends (the
 * summary's `shardWindow`, which `goodput merge` lines the shards up by) and, in virtual time,
 * which records are its own. A virtual shard's engine serves the whole workload, so every
 * sink sees only the shard's records and its peak in flight is counted from their spans.
 *
 * @module
 */

import type { RequestRecord, RunSummary } from '../../types.js';
import type { Part } from '../../workload/index.js';
import type { RecordSinkFn } from '../pipeline.js';
import { inShardRecord, peakInFlight } from './shard.js';

export class ShardTally {
  private readonly spans: Array<[number, number]> = [];
  private first = Number.POSITIVE_INFINITY;
  private last = Number.NEGATIVE_INFINITY;
  private readonly keep: ((r: RequestRecord) => boolean) | undefined;

  /** `split`: this process sends only its part; else it runs the whole workload and keeps its part's records. */
  constructor(part: Part, warmup: number, split: boolean) {
    this.keep = split ? undefined : (r) => inShardRecord(r, warmup, part);
  }

  /** The run's sinks, plus the shard's own, seeing only the shard's records. */
  sinks(sinks: ReadonlyArray<RecordSinkFn | undefined>): Array<RecordSinkFn | undefined> {
    const all = [...sinks, (record: RequestRecord) => this.add(record)];
    const keep = this.keep;
    return keep ? all.map((s) => s && ((r: RequestRecord) => keep(r) && s(r))) : all;
  }

  private add(record: RequestRecord): void {
    if (record.warmup) return;
    if (this.keep) this.spans.push([record.sentMs, record.endMs]);
    this.first = Math.min(this.first, record.firstSentMs ?? record.sentMs);
    this.last = Math.max(this.last, record.endMs);
  }

  /** The shard's peak in flight: the load's own, or (whole workload run) counted from its records. */
  peakInFlight(loadPeak: number): number {
    return this.keep ? peakInFlight(this.spans) : loadPeak;
  }

  /** Sets `summary.load.shardWindow`, on the clock of the measured start. */
  window(summary: RunSummary, measuredStartMs: number): void {
    if (this.first > this.last) return;
    const at = (ms: number) => Math.round((ms - measuredStartMs) * 1000) / 1000;
    summary.load.shardWindow = { firstSendMs: at(this.first), lastEndMs: at(this.last) };
  }
}
