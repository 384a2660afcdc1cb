/**
 * What every load shape (a strategy: closed.ts, stages.ts, open.ts, sessions.ts) gets from
 * `runLoad` for its measured phase, and what it gives back. A strategy decides only when the
 * next request is sent; the stop rules (constraints.ts), the dispatch of a request and its
 * record (dispatcher.ts) and the result are `runLoad`'s.
 *
 * @module
 */

import type { LatencyHistogram, StartWindowTally } from '../../metrics/index.js';
import type { LoadClock, LoadSpec, Ms, RequestRecord, WorkItem } from '../../types.js';
import type { AgentSource, Part, SessionSource } from '../../workload/index.js';
import type { RecordQueue } from '../record-queue.js';

export interface LoadContext {
  load: LoadSpec;
  clock: LoadClock;
  /** Aborts when nothing more may be sent (a stop rule, Ctrl-C, a failed write). */
  stopped: AbortSignal;
  measuredStartMs: Ms;
  /** Clock time at which `--duration` ends the load (Infinity without one). */
  deadline: Ms;
  /** Item index past the last measured one (`warmup + requests`; Infinity without --requests). */
  limit: number;
  /** The i-th item, warmup first; `cls`: as a request of that traffic class (a user's, `userClass`). */
  workItem(index: number, cls?: number): WorkItem;
  /** The next measured item index (shared with other load workers), or undefined when none is left. */
  claim(): number | undefined;
  /** Sends one request; resolves with its record once it has been handed to the sinks. */
  dispatch(item: WorkItem, scheduledMs: Ms, onReply?: (text: string) => void): Promise<RequestRecord>;
  /** Finished records on their way to the sinks: the open loop holds them back while a send is due. */
  records: Pick<RecordQueue, 'deliverUntil' | 'release'>;
  /** Requests in flight now. */
  inFlight(): number;
  /** Resolves when a request in flight ends (or the load stops). */
  slotFreed(): Promise<void>;
  /** Resolves when a request in flight ends, or when `until` aborts. */
  slotFreedOr(until: AbortSignal): Promise<void>;
  /** While the record sink is backlogged: a wait for it to drain. */
  backpressure?: () => Promise<void> | undefined;
  /** Lag of every scheduled send. */
  dispatchLag: LatencyHistogram;
  /** The same, only for sends that did not wait for a slot (the client's own timer lag). */
  timerLag: LatencyHistogram;
  /** Live open loops' measured phase: each send's lag, in the first second or after it. */
  startWindow?: StartWindowTally;
  /** This loop's part of the run's closed-loop stage users. */
  stageUsers: Part;
  /** Traffic classes in a closed loop: the class of this loop's user u (its requests and sessions are its class's). */
  userClass?: (user: number) => number;
  /** Multi-turn sessions to replay. */
  sessions: SessionSource | undefined;
  /** Agent runs to run (strategies/agents.ts). */
  agents?: AgentSource;
  /** Aborts when another load worker took the run's last measured item. */
  exhausted: AbortSignal | undefined;
}

/** What a strategy counted of its sends. */
export interface StrategyResult {
  /** Measured requests handed to the sender. */
  sent: number;
  /** Due but never sent (open loops). */
  dropped: number;
  /** Sent more than LATE_SEND_TOLERANCE_MS behind schedule. */
  lateSends: number;
}

/** A load shape: runs the measured phase on the context until a stop rule or the items end. */
export type Strategy = (ctx: LoadContext) => Promise<StrategyResult>;
