/**
 * store: the SQLite history of `goodput watch` — rounds with compact mergeable histograms,
 * rollbacks, resumable watch state, retention, and windows recomputed from merged histograms.
 *
 * @module
 */
export {
  bucketIndex,
  bucketRange,
  type HistogramMoments,
  STORE_PERCENTILE_RELATIVE_ERROR,
  STORE_SUB_BUCKET_BITS,
  StoreHistogram,
} from './histogram.js';
export { packHistograms, unpackHistograms } from './rows.js';
export { MIGRATIONS, STORE_SCHEMA_VERSION } from './schema.js';
export { DEFAULT_STORE_FILE, type OpenStoreOptions, type RoundQuery, WatchStore } from './store.js';
export {
  type RoundGpuFigures,
  type RoundServerFigures,
  STORED_LATENCIES,
  type StoredLatency,
  type StoredRollback,
  type StoredRound,
  type WindowFigures,
} from './types.js';
