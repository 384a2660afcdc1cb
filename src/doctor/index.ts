/**
 * `goodput doctor`: progressive checks of a channel, each failure with its cause and fix.
 *
 * @module
 */
export {
  analyzeBaseUrl,
  analyzeKey,
  foreignAuthMode,
  isLoopbackHost,
  type Problem,
} from './channel.js';
export { type DoctorOptions, runDoctor, STAGE_EXIT } from './doctor.js';
export { closestIds } from './http.js';
export { MAX_ERROR_RATE, PROGRESSIVE_STAGES } from './progressive.js';
export { renderDoctorJson, renderDoctorSummary, renderStep } from './render.js';
export { looksBuffered, type StreamTrace, traceStream } from './stream-trace.js';
export type { DoctorReport, StageId, StepResult, StepStatus } from './types.js';
