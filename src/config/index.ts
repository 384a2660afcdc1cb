/**
 * Config and secrets: config files (settings.json and gateway shapes), the precedence of
 * flags over environment over file with the origin of every value, API key handling that
 * never leaks the key, and the SLO and duration grammars.
 *
 * @module
 */
// Types only: file.ts (zod) loads when a config file is read (resolve.ts), not with config/.
export type { ConfigFileShape, FileConfig } from './file.js';
export { describeIssues, formatPath, jsonType, suggest } from './issues.js';
export { formatSlo, parseDuration, parseSlo, unitGuess } from './parse.js';
export {
  DEFAULT_SESSION_HEADER,
  parseExtraBody,
  parseHeaders,
  type RequestHeaders,
  sessionHeaderName,
} from './request-extras.js';
export {
  type Origin,
  refuseUnusableKey,
  resolveTarget,
  type TargetConfig,
  type TargetFlags,
  type TargetInputs,
  type ValueSource,
} from './resolve.js';
export { DEFAULT_SAMPLING, resolveSampling, type SamplingInput } from './sampling.js';
export {
  describeKey,
  hasBearerPrefix,
  inspectKey,
  type KeyInspection,
  redactCommandLine,
  redactUrl,
} from './secrets.js';
export { parseStartAt } from './start-at.js';
export { type NormalizedBaseUrl, normalizeBaseUrl, normalizeMetricsUrl } from './url.js';
