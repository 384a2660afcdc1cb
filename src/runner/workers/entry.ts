/**
 * Worker-thread entry of a load worker (see pool.ts): runs its share of the load on this
 * thread's own event loop.
 *
 * @module
 */

import { parentPort, workerData } from 'node:worker_threads';
import type { LoadWorkerData } from './protocol.js';
import { runLoadWorker } from './thread.js';

const data = workerData as LoadWorkerData | undefined;
if (parentPort && data?.kind === 'goodput.load-worker') void runLoadWorker(parentPort, data);
