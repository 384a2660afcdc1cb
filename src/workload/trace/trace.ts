/**
 * A trace in memory: one entry per request, kept in typed arrays (about 20 bytes a request
 * plus 8 per hash id, and 4 for its conversation when the trace has sessions), so a trace of millions of requests stays small. `TraceBuilder` takes
 * rows in file order, checks that timestamps never go back (naming the line), places a
 * session's `delay` lines after the turn before them, and orders the entries by time.
 *
 * @module
 */

import type { TraceFormat, TraceSpec } from '../../types.js';
import { type TraceRow, traceError } from './parse.js';

/** A parsed trace: entry k is the k-th request in time order. */
export interface Trace {
  path: string;
  format: TraceFormat;
  sha256: string;
  columns?: TraceSpec['columns'];
  timeUnit?: TraceSpec['timeUnit'];
  count: number;
  /** Send time of each entry in ms after the first (trace time, before --time-scale). */
  offsetMs: Float64Array;
  input: Uint32Array;
  output: Uint32Array;
  /** Entry k's hash ids are hashIds[hashStart[k] .. hashStart[k+1]). */
  hashStart: Uint32Array;
  hashIds: Float64Array;
  /** Distinct session ids (0 when the trace has none). */
  sessions: number;
  /**
   * Entry k's conversation: 1, 2, … in order of first appearance of its session id (a Mooncake
   * `session_id`, a Bailian conversation), 0 for none. Absent when the trace has no sessions.
   */
  conversation?: Uint32Array;
  /** Tokens per hash id that the format itself fixes (Bailian: 16); absent: the replay's --trace-block-size. */
  blockSize?: number;
}

/** The field holding a format's timestamps, named when one goes back (generic formats: the mapping's). */
const TIMESTAMP_FIELD: Partial<Record<TraceFormat, string>> = {
  azure: 'TIMESTAMP',
  burstgpt: 'Timestamp',
  mooncake: 'timestamp',
  bailian: 'timestamp',
};

/** The hash ids of entry k (a view, not a copy). */
export function entryHashIds(trace: Trace, k: number): Float64Array {
  return trace.hashIds.subarray(trace.hashStart[k]!, trace.hashStart[k + 1]!);
}

class Grow<T extends Float64Array | Uint32Array> {
  length = 0;
  constructor(
    public data: T,
    private readonly make: (n: number) => T,
  ) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = this.make(Math.max(16, this.data.length * 2));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  done(): T {
    return this.data.slice(0, this.length) as T;
  }
}

const f64 = () => new Grow(new Float64Array(1024), (n) => new Float64Array(n));
const u32 = () => new Grow(new Uint32Array(1024), (n) => new Uint32Array(n));

/** Collects rows in file order; `finish` gives the Trace. */
export class TraceBuilder {
  private readonly time = f64();
  private readonly input = u32();
  private readonly output = u32();
  private readonly hashStart = u32();
  private readonly hashIds = f64();
  private readonly lastTurn = new Map<string, number>();
  private readonly conversation = u32();
  private readonly conversationOf = new Map<string, number>();
  private lastTimestamp = Number.NEGATIVE_INFINITY;
  private lastTimestampWhere = '';
  private sorted = true;

  constructor(private readonly format: TraceFormat) {
    this.hashStart.push(0);
  }

  get count(): number {
    return this.input.length;
  }

  /** Adds one row read at `where` ("file:line"). */
  add(row: TraceRow, where: string): void {
    let time: number;
    if (row.timeMs !== undefined) {
      if (row.timeMs < this.lastTimestamp) {
        throw traceError(
          this.format,
          where,
          TIMESTAMP_FIELD[this.format],
          `timestamp ${row.timeMs} goes back in time (the line before it, ${this.lastTimestampWhere}, has ${this.lastTimestamp}): a trace must be in time order`,
        );
      }
      this.lastTimestamp = row.timeMs;
      this.lastTimestampWhere = where;
      time = row.timeMs;
    } else {
      const previous = this.lastTurn.get(row.sessionId!);
      if (previous === undefined) {
        throw traceError(
          this.format,
          where,
          'timestamp',
          `missing on the first line of session "${row.sessionId}"`,
        );
      }
      time = this.time.data[previous]! + row.delayMs!;
    }
    const k = this.input.length;
    if (k > 0 && time < this.time.data[k - 1]!) this.sorted = false;
    let conversation = 0;
    if (row.sessionId !== undefined) {
      this.lastTurn.set(row.sessionId, k);
      conversation = this.conversationOf.get(row.sessionId) ?? this.conversationOf.size + 1;
      this.conversationOf.set(row.sessionId, conversation);
    }
    this.conversation.push(conversation);
    this.time.push(time);
    this.input.push(row.input);
    this.output.push(row.output);
    for (const id of row.hashIds ?? []) this.hashIds.push(id);
    this.hashStart.push(this.hashIds.length);
  }

  finish(identity: Pick<Trace, 'path' | 'sha256' | 'columns' | 'timeUnit'>): Trace {
    const count = this.count;
    const time = this.time.done();
    let input = this.input.done();
    let output = this.output.done();
    let hashStart = this.hashStart.done();
    let hashIds = this.hashIds.done();
    let conversation = this.lastTurn.size > 0 ? this.conversation.done() : undefined;
    let offsetMs = time;
    if (!this.sorted) {
      // Session turns placed by their delay land between other requests: order by time (stable).
      const order = Array.from({ length: count }, (_, k) => k).sort((a, b) => time[a]! - time[b]! || a - b);
      offsetMs = Float64Array.from(order, (k) => time[k]!);
      input = Uint32Array.from(order, (k) => input[k]!);
      output = Uint32Array.from(order, (k) => output[k]!);
      if (conversation) {
        const before = conversation;
        conversation = Uint32Array.from(order, (k) => before[k]!);
      }
      const starts = new Uint32Array(count + 1);
      const ids = new Float64Array(hashIds.length);
      let at = 0;
      order.forEach((k, j) => {
        starts[j] = at;
        ids.set(hashIds.subarray(hashStart[k]!, hashStart[k + 1]!), at);
        at += hashStart[k + 1]! - hashStart[k]!;
      });
      starts[count] = at;
      hashStart = starts;
      hashIds = ids;
    }
    const first = count > 0 ? offsetMs[0]! : 0;
    if (first !== 0) for (let k = 0; k < count; k++) offsetMs[k] = offsetMs[k]! - first;
    const trace: Trace = {
      path: identity.path,
      format: this.format,
      sha256: identity.sha256,
      count,
      offsetMs,
      input,
      output,
      hashStart,
      hashIds,
      sessions: this.lastTurn.size,
    };
    if (conversation) trace.conversation = conversation;
    if (identity.columns) trace.columns = identity.columns;
    if (identity.timeUnit) trace.timeUnit = identity.timeUnit;
    return trace;
  }
}
