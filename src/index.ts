/**
 * goodput as a library: the data contracts, coded errors and result files. Each module's
 * public API is re-exported here as it lands.
 *
 * @module
 */
export * from './adr/index.js';
export * from './client/index.js';
export * from './compare/index.js';
export * from './config/index.js';
export * from './diagnosis/index.js';
export * from './doctor/index.js';
export * from './emit/index.js';
export * from './errors.js';
export * from './gate/index.js';
export * from './metrics/index.js';
export * from './report/index.js';
export * from './results/index.js';
export * from './runner/index.js';
export * from './server-metrics/index.js';
export * from './sim/index.js';
export * from './store/index.js';
export * from './sweep/index.js';
export * from './types.js';
export * from './watch/index.js';
export * from './workload/index.js';
