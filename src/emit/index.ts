/**
 * emit: artefacts generated from an ADR — Prometheus alerting rules and their promtool test.
 *
 * @module
 */
export { alertsFromAdr, type EmittedAlert, renderRulesTest, renderRulesYaml } from './rules.js';
