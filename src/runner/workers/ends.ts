/**
 * The ends of the load workers as the main thread holds them: a worker thread from the built
 * package (entry.js), or from the TypeScript sources (as tests run, where entry.js is not
 * there) the same worker on this thread over a MessageChannel.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import { workerName } from './merge.js';
import type { FromWorker, LoadWorkerData, ToWorker } from './protocol.js';
import { runLoadWorker } from './thread.js';

const ENTRY = new URL('./entry.js', import.meta.url);
/** One worker as the main thread sees it: a thread, or the in-process stand-in. */
export interface WorkerEnd {
  post(m: ToWorker): void;
  on(listener: (m: FromWorker) => void): void;
  /** Called when the worker ends without a result (a crash). */
  onFailure(listener: (e: Error) => void): void;
  end(): Promise<void>;
  /** True when this worker is a thread of its own. */
  readonly thread: boolean;
}

/** A worker thread running entry.js. */
function threadWorker(data: LoadWorkerData): WorkerEnd {
  const worker = new Worker(ENTRY, { workerData: data, name: workerName(data.worker, data.workers) });
  let ended = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    thread: true,
    post: (m) => worker.postMessage(m),
    on: (listener) =>
      worker.on('message', (m: FromWorker) => {
        // Its last word: the thread exits next, and that is no failure.
        if (m.type === 'done' || m.type === 'error') ended = true;
        listener(m);
      }),
    onFailure(listener) {
      worker.on('error', listener);
      worker.once('exit', (code) => {
        if (!ended) listener(new Error(`exited with code ${code}`));
      });
    },
    async end() {
      ended = true;
      // A worker stuck in a loop must not hold the run's exit.
      const timer = setTimeout(() => void worker.terminate(), 2_000);
      timer.unref();
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The same worker on this thread, over a MessageChannel. */
function inProcessWorker(data: LoadWorkerData): WorkerEnd {
  const { port1, port2 } = new MessageChannel();
  const done = runLoadWorker(port2, data);
  return {
    thread: false,
    post: (m) => port1.postMessage(m),
    on: (listener) => port1.on('message', listener),
    onFailure: () => undefined,
    async end() {
      await done;
      port1.close();
    },
  };
}

/**
 * Whether workers are threads of their own: entry.js is there (the built package), and
 * GOODPUT_WORKER_THREADS=0 does not run them on this thread (to tell a threading problem from a
 * split one; the workers bench compares the two).
 */
export function workerThreadsAvailable(): boolean {
  return existsSync(fileURLToPath(ENTRY)) && process.env.GOODPUT_WORKER_THREADS !== '0';
}

/** Starts one worker: a thread, or the in-process stand-in. */
export function startWorkerEnd(data: LoadWorkerData, thread: boolean): WorkerEnd {
  return thread ? threadWorker(data) : inProcessWorker(data);
}
