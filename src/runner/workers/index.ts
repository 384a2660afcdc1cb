/**
 * Load workers (`--workers N`): the run's load split across worker threads, each with its own
 * event loop and client; the main thread writes the records and merges the results.
 *
 * @module
 */
export { checkWorkers } from './config.js';
export { effectiveWorkers, MAX_WORKERS, resolveWorkerCount } from './count.js';
export { mergeConnectionWarmups, mergeLoadResults, workerName } from './merge.js';
export { type LoadWorkerPool, startLoadWorkers } from './pool.js';
export { openLoopSplit, shareArrivals, workerLoad } from './share.js';
