/**
 * Leaf helpers every module may import: secret redaction, bounded reads, "did you mean",
 * the package version.
 * Imports nothing from the rest of goodput.
 *
 * @module
 */

export { unwatchAbort, watchAbort } from './abort-watch.js';
export { type BoundedReadOptions, type BoundedStop, type BoundedText, readBounded } from './bounded.js';
export { type CsvValue, csvField, csvLine } from './csv.js';
export { type ImageHeader, type ImageMime, imageHeader } from './image-header.js';
export { inputStopSignal, openForReading, stopInputReads } from './input-file.js';
export { MAX_TOKENS } from './limits.js';
export { outOfFilesCode, parseLimit, readOpenFilesLimit } from './open-files.js';
export { seededRandom } from './random.js';
export {
  MIN_SECRET_FRAGMENT,
  makeRedactor,
  noRedaction,
  REDACTED,
  type Redactor,
  redactAndCut,
  redactDeep,
} from './redact.js';
export { terminalSafe, terminalSafeStream } from './terminal.js';
export {
  closestIds,
  closestName,
  didYouMean,
  editDistance,
  escapeHtml,
  markdownCell,
  markdownCode,
  markdownText,
  oneLine,
} from './text.js';
export { toolVersion } from './version.js';
export {
  type BoundedFile,
  parseYamlBounded,
  readTextFileBounded,
  YAML_MAX_ALIASES,
  YAML_MAX_BYTES,
  type YamlLimits,
  type YamlParse,
} from './yaml.js';
