/**
 * Wake-ups to the tens of microseconds without a busy core. Node's timers (and the event
 * loop's poll) count whole milliseconds, so an open loop at thousands of requests per second
 * cannot be paced by setTimeout alone, and turning the event loop over with setImmediate for
 * a whole wait keeps a core busy (which, on a machine shared with the server under test,
 * takes CPU from both) and feeds the garbage collector. The pacer is one small thread that
 * sleeps on a futex (`Atomics.wait`, microsecond timeouts) until the earliest instant asked
 * for, then posts a message, which wakes the event loop like any I/O. (RunClock asks to be
 * woken a tenth of a millisecond early and turns the loop over for the rest: timer.ts.)
 *
 * The thread starts on first use; until it is online (or if it cannot start) waits fall back
 * to setTimeout plus setImmediate turns, so nothing waits for it.
 *
 * @module
 */

import { Worker } from 'node:worker_threads';
import { unwatchAbort, watchAbort } from '../util/index.js';

/** Milliseconds on the process-wide monotonic clock, the same in every thread. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * The thread: sleeps until the armed instant (or until re-armed), posts the arm's sequence
 * number when the instant comes, and stops when told. Plain CommonJS, run with `eval`, so it
 * needs no file of its own beside the sources or the build.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const control = new Int32Array(workerData, 0, 2); // [arm sequence, stop]
const at = new Float64Array(workerData, 8, 1); // armed instant, monotonic ms
const now = () => Number(process.hrtime.bigint()) / 1e6;
let posted = 0;
for (;;) {
  if (Atomics.load(control, 1) !== 0) break;
  const seq = Atomics.load(control, 0);
  if (seq === posted) { Atomics.wait(control, 0, seq); continue; }
  const left = at[0] - now();
  if (left <= 0.02) { posted = seq; parentPort.postMessage(seq); continue; }
  Atomics.wait(control, 0, seq, left);
}
`;

interface Waiter {
  atMs: number;
  resolve: () => void;
}

/** One thread that wakes the event loop at the instants it is asked for. */
export class Pacer {
  private readonly shared = new SharedArrayBuffer(16);
  private readonly control = new Int32Array(this.shared, 0, 2);
  private readonly at = new Float64Array(this.shared, 8, 1);
  private thread: Worker | undefined;
  private online = false;
  private failed = false;
  private closed = false;
  /** Pending waits, earliest first. */
  private waiters: Waiter[] = [];

  /** True when waits go through the thread (it is running). Starts it on first use. */
  get ready(): boolean {
    this.prepare();
    return this.online;
  }

  /**
   * Starts the thread, if it is not running, without waiting for it: a thread takes tens of
   * milliseconds of CPU to boot, which belongs before a run's clock starts, not in its first sends.
   */
  prepare(): void {
    if (!this.thread && !this.failed && !this.closed) this.start();
  }

  /**
   * Resolves true at `atMs` on monotonicMs() (a little after, never before), or false as soon
   * as `signal` aborts. Needs `ready`.
   */
  wake(atMs: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        if (i === 0) this.arm();
        resolve(false);
      };
      const waiter: Waiter = {
        atMs,
        resolve: () => {
          if (signal) unwatchAbort(signal, onAbort);
          resolve(true);
        },
      };
      if (signal) watchAbort(signal, onAbort);
      let i = this.waiters.length;
      while (i > 0 && this.waiters[i - 1]!.atMs > atMs) i--;
      this.waiters.splice(i, 0, waiter);
      if (i === 0) this.arm();
    });
  }

  /** Stops the thread; pending waits resolve now (early). */
  close(): void {
    this.closed = true;
    Atomics.store(this.control, 1, 1);
    Atomics.notify(this.control, 0);
    this.thread?.unref();
    this.thread = undefined;
    this.online = false;
    this.release(Number.POSITIVE_INFINITY);
  }

  private start(): void {
    try {
      const thread = new Worker(THREAD_SOURCE, {
        eval: true,
        workerData: this.shared,
        name: 'goodput pacer',
      });
      thread.on('online', () => {
        this.online = !this.closed;
      });
      thread.on('message', () => {
        this.release(monotonicMs());
        this.arm();
      });
      thread.on('error', () => this.fail());
      thread.on('exit', () => this.fail());
      // After the listeners: adding a 'message' listener refs a worker again, and an idle
      // pacer must not hold the process open.
      thread.unref();
      this.thread = thread;
    } catch {
      this.failed = true;
    }
  }

  private fail(): void {
    this.failed = true;
    this.online = false;
    this.thread = undefined;
    // Nothing will post for them any more: their instants are checked by the fallback.
    this.release(Number.POSITIVE_INFINITY);
  }

  /** Resolves every wait due by `nowMs`. */
  private release(nowMs: number): void {
    let due = 0;
    while (due < this.waiters.length && this.waiters[due]!.atMs <= nowMs + 0.001) due++;
    if (due === 0) return;
    const woken = this.waiters.splice(0, due);
    for (const w of woken) w.resolve();
  }

  /** Points the thread at the earliest pending instant; holds the process open while one is pending. */
  private arm(): void {
    const next = this.waiters[0];
    if (!this.thread) return;
    if (!next) {
      this.thread.unref();
      return;
    }
    this.thread.ref();
    this.at[0] = next.atMs;
    Atomics.add(this.control, 0, 1);
    Atomics.notify(this.control, 0);
  }
}
