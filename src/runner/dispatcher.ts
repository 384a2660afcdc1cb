/**
 * Sends one request of the load and keeps what every send shares: requests in flight (and
 * their peak), the waits for a free slot, the client's own queue wait, the stage tally and the
 * end of the last measured request. A sender that throws (a bug: the client must not) gives a
 * failed record, so the run keeps going.
 *
 * @module
 */

import { LatencyHistogram } from '../metrics/index.js';
import type { LoadClock, Ms, RequestRecord, WorkItem } from '../types.js';
import type { StageTally } from '../workload/index.js';
import { RecordQueue } from './record-queue.js';

/** Sends one request and resolves with its record; must not throw (a failure is a record). */
export type SendFn = (
  item: WorkItem,
  opts: { scheduledMs: Ms; signal: AbortSignal; onReply?: (text: string) => void },
) => Promise<RequestRecord>;

export class Dispatcher {
  inFlight = 0;
  peakInFlight = 0;
  measuredEndMs = 0;
  /** Measured requests: first send − the moment they were handed to the sender (ms). */
  readonly clientQueueWait = new LatencyHistogram();
  /** Where records go: to the sinks at once, or held while the open loop has a send due (record-queue.ts). */
  readonly records: RecordQueue;
  private readonly slotWaiters: Array<() => void> = [];
  /** The measured phase's start, the stage tally's zero. */
  private stageZero = 0;

  constructor(
    private readonly send: SendFn,
    private readonly clock: LoadClock,
    /** Aborts every request in flight (the deadline, the signal). */
    private readonly signal: () => AbortSignal,
    onRecord: (record: RequestRecord) => void,
    private readonly tally: StageTally | undefined,
  ) {
    this.records = new RecordQueue(onRecord, () => clock.now());
  }

  /** The measured phase starts now. */
  startMeasured(measuredStartMs: Ms): void {
    this.stageZero = measuredStartMs;
    this.measuredEndMs = measuredStartMs;
  }

  /**
   * Sends `item`; resolves with its record once the sinks have it (or, while the open loop
   * holds records back, once it waits for them in `records`).
   */
  readonly dispatch = async (
    item: WorkItem,
    scheduledMs: Ms,
    onReply?: (text: string) => void,
  ): Promise<RequestRecord> => {
    const { clock, tally } = this;
    if (!item.warmup) tally?.sent(clock.now() - this.stageZero);
    this.inFlight++;
    if (!item.warmup && this.inFlight > this.peakInFlight) this.peakInFlight = this.inFlight;
    const handedMs = clock.now();
    let record: RequestRecord;
    try {
      const sendOpts = { scheduledMs, signal: this.signal() };
      record = await this.send(item, onReply ? { ...sendOpts, onReply } : sendOpts);
    } catch (e) {
      record = failedRecord(item, scheduledMs, clock.now(), e);
    }
    this.inFlight--;
    if (!item.warmup) tally?.ended(clock.now() - this.stageZero);
    // The client's own wait: a connect the server was slow to accept is the server's.
    if (!item.warmup) {
      const connect = record.attempts === 1 ? (record.connectMs ?? 0) : 0;
      this.clientQueueWait.record(Math.max(0, (record.firstSentMs ?? record.sentMs) - handedMs - connect));
    }
    if (!item.warmup && record.endMs > this.measuredEndMs) this.measuredEndMs = record.endMs;
    this.slotWaiters.shift()?.();
    this.records.push(record);
    return record;
  };

  /** Resolves when a request in flight ends (or every waiter is woken). */
  slotFreed(): Promise<void> {
    return new Promise<void>((resolve) => this.slotWaiters.push(resolve));
  }

  /** Resolves when a request in flight ends, or when `until` aborts. */
  slotFreedOr(until: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        until.removeEventListener('abort', wake);
        resolve();
      };
      this.slotWaiters.push(wake);
      until.addEventListener('abort', wake, { once: true });
    });
  }

  /** Resolves when no request is in flight. */
  async idle(): Promise<void> {
    while (this.inFlight > 0) await this.slotFreed();
  }

  /** Wakes every waiter (the load stopped). */
  wakeAll(): void {
    for (const wake of this.slotWaiters.splice(0)) wake();
  }
}

/** A record for a sender that threw (a bug: the client must not throw), so the run keeps going. */
function failedRecord(item: WorkItem, scheduledMs: Ms, now: Ms, err: unknown): RequestRecord {
  const record: RequestRecord = {
    id: item.id,
    index: item.index,
    warmup: item.warmup,
    outcome: 'error',
    error: { code: 'UNKNOWN', message: err instanceof Error ? err.message : String(err) },
    attempts: 1,
    scheduledMs,
    sentMs: now,
    firstSentMs: now,
    endMs: now,
    chunkMs: [],
    chunkChars: [],
    promptTokens: item.promptTokens,
    outputTokens: 0,
    outputTokensSource: 'counted',
    maxTokens: item.maxTokens,
  };
  if (item.sessionId !== undefined) record.sessionId = item.sessionId;
  if (item.turn !== undefined) record.turn = item.turn;
  if (item.class !== undefined) record.class = item.class;
  return record;
}
