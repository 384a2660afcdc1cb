/**
 * Data contracts shared by every module: what the workload produces, what the client
 * records, what metrics summarise, what every later command reads.
 *
 * Times named `...Ms` without further qualification are milliseconds on the run's
 * monotonic clock: `performance.now()` minus the run's t0 (floats, sub-millisecond
 * resolution). Durations are milliseconds unless the name says otherwise. Every
 * persisted file carries `schemaVersion` (see SCHEMA_VERSION).
 *
 * @module
 */

export * from './types/classes.js';
export * from './types/efficiency.js';
export * from './types/experiment.js';
export * from './types/gpu.js';
export * from './types/imported.js';
export * from './types/load.js';
export * from './types/request.js';
export * from './types/run.js';
export * from './types/server.js';
export * from './types/summary.js';
export * from './types/sweep.js';
