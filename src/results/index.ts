/**
 * Result directories: summary.json, requests.jsonl, server-metrics.jsonl and gpu-metrics.jsonl.
 *
 * @module
 */
export { type JsonlHeader, RESULT_FILES, type RunPaths, type RunRebuildInfo, runPaths } from './files.js';
export { describeFsError } from './fs-error.js';
export { type JsonlReadOptions, JsonlWriter, type JsonlWriterOptions, readJsonl } from './jsonl.js';
export {
  type OutDirOptions,
  type PreparedOutDir,
  prepareOutDir,
  RUN_FILES,
  RUN_MARKERS,
} from './outdir.js';
export { type OutputFileOptions, outputFileError, writeOutputFile } from './output-file.js';
export { type SavedSummary, saveSummary, type WriteFailure, writeFailedError } from './save.js';
export {
  ImportedSummarySchema,
  JsonlHeaderSchema,
  RequestRecordSchema,
  RunMetaSchema,
  RunSummarySchema,
  ServerSampleSchema,
} from './schema.js';
export { GpuSampleSchema } from './schema-gpu.js';
export {
  collect,
  type RunSource,
  readGpuSamples,
  readRecords,
  readRunSource,
  readServerSamples,
  readSummary,
  writeSummary,
} from './summary.js';
export { parseSweepResult, readSweepResult, SWEEP_FILE, SweepResultSchema } from './sweep-file.js';
export { foreignTool, recogniseForeign } from './validate.js';
