/**
 * gate: a small threshold grammar, evaluation against a RunSummary, and CI-friendly output
 * (pass/fail lines, JUnit XML, a Markdown job summary). Pure; the command lives in command.ts.
 *
 * @module
 */
export {
  adrGateThresholdText,
  evaluateThresholds,
  evaluateThresholdsWith,
  type GateResult,
  type GateSpec,
  gateLimit,
  gateSpecThresholds,
  limitOp,
  missingClasses,
  SHORTHAND_THRESHOLDS,
  shorthandThresholds,
  type ThresholdOutcome,
  thresholdHolds,
  thresholdValue,
} from './evaluate.js';
export {
  formatThreshold,
  type LatencyStat,
  parseThreshold,
  parseThresholds,
  subjectText,
  THRESHOLD_LATENCIES,
  THRESHOLD_SCALARS,
  THRESHOLD_STATS,
  type Threshold,
  type ThresholdOp,
  type ThresholdScalar,
  type ThresholdSubject,
} from './grammar.js';
export {
  escapeXml,
  formatLimit,
  formatOutcomeValue,
  type JunitOptions,
  renderGateLines,
  renderGateMarkdown,
  renderJunit,
} from './render.js';
