/**
 * adr: Architecture Decision Records whose front matter is executable — written from runs
 * (`new`), linted (`lint`), required for serving-parameter changes (`check`) and enforced
 * against serving configurations (`enforce`). The command lives in command.ts.
 *
 * @module
 */
export { type FlagValues, flagsOf, normaliseFlag, tokenizeCommandLine } from './args.js';
export {
  adrDateStamp,
  buildAdr,
  chooseCandidate,
  deriveGate,
  type ExperimentVerdict,
  experimentVerdict,
  KEY_METRICS,
  type NewAdr,
  type NewAdrInput,
  nextAdrId,
  slugify,
  workloadOf,
} from './build.js';
export {
  type ChangedFile,
  type CheckOutcome,
  evaluateChange,
  gitChanges,
  PROJECT_CONFIG_FILE,
  type ProjectConfig,
  parseNameStatus,
  readProjectConfig,
} from './check.js';
export { type AdrDocument, parseAdr, serializeAdr } from './document.js';
export { type EnforceResult, type EnforceViolation, enforceFile, enforceRules } from './enforce.js';
export { ADR_FILE_PATTERN, DEFAULT_ADR_DIR, latestAcceptedAdr, listAdrFiles, readAdr } from './files.js';
export { globMatcher, globToRegExp } from './glob.js';
export { type LintResult, lintAdrs, lintAdrText, NO_CONCLUSION } from './lint.js';
export {
  checkRules,
  mergeRules,
  parseRuleText,
  type RuleViolation,
  rulesFromServingArgs,
  SERVING_ARGS_LABEL,
} from './rules.js';
export {
  ADR_STATUSES,
  type AdrFrontMatter,
  AdrFrontMatterSchema,
  type AdrGate,
  type AdrRollback,
  type AdrRule,
  type AdrStatus,
  type AdrWorkload,
  formatRule,
  gateHasThreshold,
} from './schema.js';
export {
  argsFromStructured,
  parseServingConfig,
  type ServingArgs,
  servingTargets,
} from './serving-config.js';
export { windowsForDuration } from './windows.js';
export { adrWorkloadAsMeta, applyAdrWorkload } from './workload.js';
