/**
 * emit: artefacts generated from an ADR for watch's cadence — Prometheus alerting rules, their
 * promtool test, and a Grafana dashboard.
 *
 * @module
 */
export {
  alertForMs,
  type Cadence,
  DEFAULT_CADENCE,
  promDuration,
  roundRangeMs,
  roundsFor,
  STALE_ROUNDS,
  staleAfterMs,
} from './cadence.js';
export { GRAFANA_UNIT, renderDashboard } from './dashboard.js';
export {
  alertsFromAdr,
  type EmittedAlert,
  type EmittedRules,
  renderRulesYaml,
  type SkippedThreshold,
  type StaleAlert,
  type ThresholdAlert,
} from './rules.js';
export { renderRulesTest, testInterval } from './rules-test.js';
