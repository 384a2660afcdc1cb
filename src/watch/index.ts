/**
 * watch: periodic small probes of one or more targets, with the prober's own lag measured,
 * history in the store, a Prometheus exporter, and the ADR's rollback rule.
 *
 * @module
 */

// The series the exporter writes that alerts read, defined beside the catalogue's.
export { LAST_VALID_ROUND_SERIES } from '../metrics/index.js';
export { type BreachEvidence, breachEnv, runBreachCommand, withoutKeys } from './breach.js';
export {
  bucketsWithThresholds,
  E2EL_BUCKETS,
  type ExporterOptions,
  TPOT_BUCKETS,
  TTFT_BUCKETS,
  WatchExporter,
} from './exporter.js';
export { renderHistoryHtml, renderHistoryJson, renderHistoryTable } from './history.js';
export {
  adrMetricSubject,
  initialRollbackState,
  parseRollbackFlag,
  type RollbackRule,
  type RollbackState,
  type RollbackStep,
  rollbackFromAdr,
  stepRollback,
  windowIsBad,
  windowsNeeded,
} from './rollback.js';
export { type ProbeTarget, type RoundOptions, type RoundResult, runRound } from './round.js';
export { parseTargetsText, readTargetsFile, type WatchTarget } from './targets.js';
export { runWatch, type WatchConfig, type WatchIo, type WatchOutcome } from './watcher.js';
